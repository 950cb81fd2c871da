/* A run's source: its text form, its checks, its description
 * (runtime/io/source.h). */
#include "source.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mci.h"
#include "number_parse.h"

/* Per kind: its name, how many numbers follow it, and their names. */
static const struct {
    const char *name;
    int values;
    const char *form;
} kinds[SOURCE_KINDS] = {
    [SOURCE_PENCIL] = {"pencil", 0, "pencil"},   [SOURCE_GAUSSIAN] = {"gaussian", 1, "gaussian:W"},
    [SOURCE_FLAT] = {"flat", 1, "flat:R"},       [SOURCE_POINT] = {"point", 1, "point:Z"},
    [SOURCE_FIBER] = {"fiber", 2, "fiber:R:NA"},
};

#define SOURCE_FORMS "pencil, gaussian:W, flat:R, point:Z or fiber:R:NA (cm)"

const char *source_kind_name(source_kind kind)
{
    return kind >= 0 && kind < SOURCE_KINDS ? kinds[kind].name : "unknown";
}

/* The kind named by text up to its first ':' (or its end). */
static bool parse_kind(const char *text, source_kind *kind)
{
    size_t n = strcspn(text, ":");
    for (int k = 0; k < SOURCE_KINDS; k++)
        if (strlen(kinds[k].name) == n && strncmp(text, kinds[k].name, n) == 0) {
            *kind = (source_kind)k;
            return true;
        }
    return false;
}

/* The count numbers after the kind, each followed by ':' or the end. */
static bool parse_values(const char *text, const char *what, int count, double *v, tm_error *err)
{
    const char *at = text + strcspn(text, ":");
    for (int i = 0; i < count; i++) {
        if (*at != ':') {
            error_set(err, NULL, 0, "%s \"%s\": expected %s", what, text, SOURCE_FORMS);
            return false;
        }
        at++;
        const char *end;
        number_status s = number_parse_prefix(at, &end, &v[i]);
        size_t len = strcspn(at, ":");
        if (s == NUMBER_TOO_SMALL) {
            char where[220], number[64];
            snprintf(where, sizeof where, "%s \"%.160s\"", what, text);
            snprintf(number, sizeof number, "%.*s", (int)(len < 63 ? len : 63), at);
            number_error_set(err, NULL, 0, where, number, s);
            return false;
        }
        if (s == NUMBER_NONE || end != at + len) {
            error_set(err, NULL, 0, "%s \"%s\": \"%.*s\" is not a number", what, text, (int)len,
                      at);
            return false;
        }
        at = end;
    }
    if (*at != '\0') {
        error_set(err, NULL, 0, "%s \"%s\": expected %s", what, text, SOURCE_FORMS);
        return false;
    }
    return true;
}

bool source_parse(const char *text, const char *what, source_desc *out, tm_error *err)
{
    source_desc s = {0};
    double v[2] = {0.0, 0.0};
    if (!text || !parse_kind(text, &s.kind)) {
        error_set(err, NULL, 0, "%s \"%s\": expected %s", what, text ? text : "", SOURCE_FORMS);
        return false;
    }
    if (!parse_values(text, what, kinds[s.kind].values, v, err))
        return false;
    if (s.kind == SOURCE_POINT)
        s.depth = v[0];
    else
        s.radius = v[0];
    s.na = v[1];
    if (!source_check_values(&s, what, err))
        return false;
    *out = s;
    return true;
}

bool source_check_values(const source_desc *s, const char *what, tm_error *err)
{
    char text[160];
    source_text(s, text, sizeof text);
    double values[] = {s->radius, s->depth, s->na};
    for (int i = 0; i < 3; i++)
        if (s->kind != SOURCE_PENCIL && number_is_subnormal(values[i])) {
            error_set(err, NULL, 0,
                      "%s \"%s\": %g is too small to compute with: a number other than 0 "
                      "must be at least 1e-300",
                      what, text, values[i]);
            return false;
        }
    switch (s->kind) {
    case SOURCE_PENCIL: return true;
    case SOURCE_GAUSSIAN:
    case SOURCE_FLAT:
        if (isfinite(s->radius) && s->radius > 0.0)
            return true;
        error_set(err, NULL, 0, "%s \"%s\": the %s must be a finite number of cm > 0 (got %g)",
                  what, text, s->kind == SOURCE_GAUSSIAN ? "1/e^2 radius W" : "radius R",
                  s->radius);
        return false;
    case SOURCE_POINT:
        if (isfinite(s->depth) && s->depth > 0.0)
            return true;
        error_set(err, NULL, 0, "%s \"%s\": the depth Z must be a finite number of cm > 0 (got %g)",
                  what, text, s->depth);
        return false;
    case SOURCE_FIBER:
        if (!isfinite(s->radius) || s->radius < 0.0) {
            error_set(err, NULL, 0,
                      "%s \"%s\": the fiber's radius R must be a finite number of cm >= 0 (got %g)",
                      what, text, s->radius);
            return false;
        }
        if (!isfinite(s->na) || s->na < 0.0) {
            error_set(err, NULL, 0,
                      "%s \"%s\": the fiber's NA must be a finite number >= 0 (got %g)", what, text,
                      s->na);
            return false;
        }
        return true;
    default:
        error_set(err, NULL, 0, "%s: unknown source kind %d", what, (int)s->kind);
        return false;
    }
}

/* True when z is the depth of a boundary between two layers (or the
 * surfaces). */
static bool on_boundary(const mci_run *run, double z)
{
    for (int i = 1; i <= run->num_layers; i++)
        if (z == run->layers[i].z0 || z == run->layers[i].z1)
            return true;
    return false;
}

bool source_check_run(const source_desc *s, const mci_run *run, const char *what, tm_error *err)
{
    if (!source_check_values(s, what, err))
        return false;
    char text[160];
    source_text(s, text, sizeof text);
    if (s->kind == SOURCE_FIBER && s->na > run->layers[0].n) {
        error_set(err, NULL, 0,
                  "%s \"%s\": the NA %g exceeds the n %g of the medium above (NA = n sin "
                  "theta_max)",
                  what, text, s->na, run->layers[0].n);
        return false;
    }
    if (s->kind != SOURCE_POINT)
        return true;
    double bottom = run->layers[run->num_layers].z1;
    if (s->depth >= bottom) {
        error_set(err, NULL, 0, "%s \"%s\": the depth %g cm is not inside the stack (0 to %g cm)",
                  what, text, s->depth, bottom);
        return false;
    }
    if (on_boundary(run, s->depth)) {
        error_set(err, NULL, 0,
                  "%s \"%s\": the depth %g cm is a boundary between layers: put the point inside "
                  "one layer",
                  what, text, s->depth);
        return false;
    }
    return true;
}

/* v in the fewest significant digits (15 to 17) that strtod reads back as
 * v: 0.05, not 0.050000000000000003. */
static void shortest(double v, char *buf, size_t size)
{
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, size, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

void source_text(const source_desc *s, char *buf, size_t size)
{
    char a[32], b[32];
    shortest(s->kind == SOURCE_POINT ? s->depth : s->radius, a, sizeof a);
    shortest(s->na, b, sizeof b);
    switch (s->kind) {
    case SOURCE_GAUSSIAN:
    case SOURCE_FLAT:
    case SOURCE_POINT: snprintf(buf, size, "%s:%s", kinds[s->kind].name, a); break;
    case SOURCE_FIBER: snprintf(buf, size, "fiber:%s:%s", a, b); break;
    default: snprintf(buf, size, "%s", source_kind_name(s->kind));
    }
}

void source_describe(const source_desc *s, char *buf, size_t size)
{
    switch (s->kind) {
    case SOURCE_GAUSSIAN:
        snprintf(buf, size, "Gaussian beam, 1/e^2 radius %.9g cm, normal incidence", s->radius);
        break;
    case SOURCE_FLAT:
        snprintf(buf, size, "flat beam, radius %.9g cm, normal incidence", s->radius);
        break;
    case SOURCE_POINT:
        snprintf(buf, size, "isotropic point at depth %.9g cm on the axis, weight 1", s->depth);
        break;
    case SOURCE_FIBER:
        snprintf(buf, size, "fiber, radius %.9g cm, NA %.9g, at the surface", s->radius, s->na);
        break;
    default: snprintf(buf, size, "pencil beam (MCML's)");
    }
}

int source_point_layer(const source_desc *s, const mci_run *run)
{
    for (int i = 1; i < run->num_layers; i++)
        if (s->depth < run->layers[i].z1)
            return i;
    return run->num_layers;
}

bool source_require_pencil(const mci_run *run, const char *what, tm_error *err)
{
    if (source_is_pencil(&run->source))
        return true;
    char text[160];
    source_describe(&run->source, text, sizeof text);
    error_set(err, NULL, 0,
              "%s: a convolution needs a pencil-beam response, and this result's source is a %s",
              what, text);
    return false;
}
