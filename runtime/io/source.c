/* A run's source: its text form, its checks, its description
 * (runtime/io/source.h). */
#include "source.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mci.h"
#include "number_parse.h"

#define RADIANS_PER_DEGREE 0.017453292519943295 /* pi / 180 */

/* A parameter with no upper end (below 0: none); designated, so that every
 * compiler sees each field given (clang's -Wmissing-field-initializers). */
#define SOURCE_PARAM(symbol_, what_, key_, unit_, member, zero_allowed_)                           \
    {                                                                                              \
        .symbol = symbol_, .what = what_, .key = key_, .unit = unit_,                              \
        .field = offsetof(source_desc, member), .zero_allowed = zero_allowed_, .below = 0.0,       \
        .above_most = NULL                                                                         \
    }

/* ORDER source_kind (source.h): append, never reorder. */
const source_kind_row source_kind_table[SOURCE_KINDS] = {
    [SOURCE_PENCIL] = {.name = "pencil", .describe = "pencil beam (MCML's)"},
    [SOURCE_GAUSSIAN] = {.name = "gaussian",
                         .params = 1,
                         .param = {SOURCE_PARAM("W", "1/e^2 radius W", "w", "cm", radius, false)},
                         .describe = "Gaussian beam, 1/e^2 radius %.9g cm, normal incidence"},
    [SOURCE_FLAT] = {.name = "flat",
                     .params = 1,
                     .param = {SOURCE_PARAM("R", "radius R", "r", "cm", radius, false)},
                     .describe = "flat beam, radius %.9g cm, normal incidence"},
    [SOURCE_POINT] = {.name = "point",
                      .params = 1,
                      .param = {SOURCE_PARAM("Z", "depth Z", "z0", "cm", depth, false)},
                      .describe = "isotropic point at depth %.9g cm on the axis, weight 1"},
    [SOURCE_FIBER] = {.name = "fiber",
                      .params = 2,
                      .param = {SOURCE_PARAM("R", "fiber's radius R", "r", "cm", radius, true),
                                SOURCE_PARAM("NA", "fiber's NA", "na", "-", na, true)},
                      .describe = "fiber, radius %.9g cm, NA %.9g, at the surface"},
    /* An angle of 90 degrees or more would graze or miss the surface. */
    [SOURCE_OBLIQUE] = {.name = "oblique",
                        .params = 1,
                        .param = {{.symbol = "ANGLE",
                                   .what = "angle of incidence",
                                   .key = "angle",
                                   .unit = "deg",
                                   .field = offsetof(source_desc, angle),
                                   .zero_allowed = true,
                                   .below = 90.0,
                                   .above_most = "at 90 degrees or more the beam would not enter "
                                                 "the tissue"}},
                        .describe = "oblique beam at %.9g degrees of incidence in the x-z plane, "
                                    "entering at x = y = 0"},
};

const source_kind_row *source_kind_of(source_kind kind)
{
    return kind >= 0 && kind < SOURCE_KINDS ? &source_kind_table[kind] : NULL;
}

const char *source_kind_name(source_kind kind)
{
    const source_kind_row *k = source_kind_of(kind);
    return k ? k->name : "unknown";
}

source_desc source_make(source_kind kind, const double *v)
{
    source_desc s = {.kind = kind};
    const source_kind_row *k = source_kind_of(kind);
    for (int i = 0; k && i < k->params; i++)
        *(double *)((char *)&s + k->param[i].field) = v[i];
    return s;
}

double source_value(const source_desc *s, int i)
{
    const source_kind_row *k = source_kind_of(s->kind);
    if (!k || i < 0 || i >= k->params)
        return 0.0;
    return *(const double *)((const char *)s + k->param[i].field);
}

/* Every kind's text form, for messages: "pencil, gaussian:W, flat:R,
 * point:Z, fiber:R:NA or oblique:ANGLE (cm; ANGLE in degrees)". */
static void source_forms(char *buf, size_t size)
{
    size_t at = 0;
    buf[0] = '\0';
    for (int k = 0; k < SOURCE_KINDS && at < size; k++) {
        const source_kind_row *row = &source_kind_table[k];
        const char *sep = k == 0 ? "" : k == SOURCE_KINDS - 1 ? " or " : ", ";
        at += (size_t)snprintf(buf + at, size - at, "%s%s", sep, row->name);
        for (int i = 0; i < row->params && at < size; i++)
            at += (size_t)snprintf(buf + at, size - at, ":%s", row->param[i].symbol);
    }
    if (at < size)
        snprintf(buf + at, size - at, " (cm; ANGLE in degrees)");
}

/* The message of a text that is not a source's. */
static void source_expected(const char *what, const char *text, tm_error *err)
{
    char forms[200];
    source_forms(forms, sizeof forms);
    error_set(err, NULL, 0, "%s \"%s\": expected %s", what, text, forms);
}

/* The kind named by text up to its first ':' (or its end). */
static bool parse_kind(const char *text, source_kind *kind)
{
    size_t n = strcspn(text, ":");
    for (int k = 0; k < SOURCE_KINDS; k++)
        if (strlen(source_kind_table[k].name) == n &&
            strncmp(text, source_kind_table[k].name, n) == 0) {
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
            source_expected(what, text, err);
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
        source_expected(what, text, err);
        return false;
    }
    return true;
}

bool source_parse(const char *text, const char *what, source_desc *out, tm_error *err)
{
    source_kind kind;
    double v[SOURCE_MAX_PARAMS] = {0.0};
    if (!text || !parse_kind(text, &kind)) {
        source_expected(what, text ? text : "", err);
        return false;
    }
    if (!parse_values(text, what, source_kind_table[kind].params, v, err))
        return false;
    source_desc s = source_make(kind, v);
    if (!source_check_values(&s, what, err))
        return false;
    *out = s;
    return true;
}

/* A parameter's unit as messages spell it: "degrees" for "deg", "" for
 * none ("-"). */
static const char *unit_words(const char *unit)
{
    return strcmp(unit, "deg") == 0 ? "degrees" : strcmp(unit, "-") == 0 ? "" : unit;
}

bool source_check_values(const source_desc *s, const char *what, tm_error *err)
{
    const source_kind_row *k = source_kind_of(s->kind);
    if (!k) {
        error_set(err, NULL, 0, "%s: unknown source kind %d", what, (int)s->kind);
        return false;
    }
    char text[160];
    source_text(s, text, sizeof text);
    for (int i = 0; i < k->params; i++)
        if (number_is_subnormal(source_value(s, i))) {
            error_set(err, NULL, 0,
                      "%s \"%s\": %g is too small to compute with: a number other than 0 "
                      "must be at least 1e-300",
                      what, text, source_value(s, i));
            return false;
        }
    for (int i = 0; i < k->params; i++) {
        const source_param *p = &k->param[i];
        double v = source_value(s, i);
        if (!(isfinite(v) && (p->zero_allowed ? v >= 0.0 : v > 0.0))) {
            bool unitless = strcmp(p->unit, "-") == 0;
            error_set(err, NULL, 0, "%s \"%s\": the %s must be a finite number%s%s %s 0 (got %g)",
                      what, text, p->what, unitless ? "" : " of ", unit_words(p->unit),
                      p->zero_allowed ? ">=" : ">", v);
            return false;
        }
        if (p->below > 0.0 && v >= p->below) {
            error_set(err, NULL, 0, "%s \"%s\": the %s must be below %g %s (got %g): %s", what,
                      text, p->what, p->below, unit_words(p->unit), v, p->above_most);
            return false;
        }
    }
    return true;
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

/* An oblique beam enters when Snell's law gives it a direction in each
 * layer it crosses down to the first turbid one: n above sin(angle) below
 * their n (a glass layer 1 and the layer under it, or layer 1). */
static bool oblique_enters(const source_desc *s, const mci_run *run, const char *what,
                           const char *text, tm_error *err)
{
    double n_sin = run->layers[0].n * sin(s->angle * RADIANS_PER_DEGREE);
    int last = mci_layer_is_glass(&run->layers[1]) ? 2 : 1;
    for (int i = 1; i <= last; i++)
        if (n_sin >= run->layers[i].n) {
            error_set(err, NULL, 0,
                      "%s \"%s\": the beam is totally reflected at the surface (n above %g times "
                      "sin %g degrees is not below layer %d's n %g): no photon would enter",
                      what, text, run->layers[0].n, s->angle, i, run->layers[i].n);
            return false;
        }
    return true;
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
    if (s->kind == SOURCE_OBLIQUE)
        return oblique_enters(s, run, what, text, err);
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
    const source_kind_row *k = source_kind_of(s->kind);
    char text[128];
    size_t at = (size_t)snprintf(text, sizeof text, "%s", source_kind_name(s->kind));
    for (int i = 0; k && i < k->params && at < sizeof text; i++) {
        char v[32];
        shortest(source_value(s, i), v, sizeof v);
        at += (size_t)snprintf(text + at, sizeof text - at, ":%s", v);
    }
    snprintf(buf, size, "%s", text);
}

void source_describe(const source_desc *s, char *buf, size_t size)
{
    const source_kind_row *k = source_kind_of(s->kind);
    if (!k)
        k = &source_kind_table[SOURCE_PENCIL];
    snprintf(buf, size, k->describe, source_value(s, 0), source_value(s, 1));
}

int source_point_layer(const source_desc *s, const mci_run *run)
{
    for (int i = 1; i < run->num_layers; i++)
        if (s->depth < run->layers[i].z1)
            return i;
    return run->num_layers;
}

void source_refracted(const source_desc *s, double n_above, double n_first, double *sin_t,
                      double *cos_t)
{
    *sin_t = 0.0;
    *cos_t = 1.0;
    if (s->kind != SOURCE_OBLIQUE)
        return;
    double st = n_above * sin(s->angle * RADIANS_PER_DEGREE) / n_first;
    *sin_t = st;
    *cos_t = sqrt(fmax(0.0, (1.0 - st) * (1.0 + st)));
}

double source_incidence_cos(const source_desc *s)
{
    return s->kind == SOURCE_OBLIQUE ? cos(s->angle * RADIANS_PER_DEGREE) : 1.0;
}

bool source_require_axial(const source_desc *s, const char *option, tm_error *err)
{
    if (!source_breaks_symmetry(s))
        return true;
    char text[160];
    source_text(s, text, sizeof text);
    error_set(err, NULL, 0,
              "%s: assumes a beam along the axis (light spread symmetrically about z), and the "
              "oblique beam (%s) breaks that symmetry: leave it out (the beam's spatial output "
              "is the Cartesian grid)",
              option, text);
    return false;
}

bool source_require_pencil(const mci_run *run, const char *what, tm_error *err)
{
    if (source_is_pencil(&run->source))
        return true;
    char text[160];
    if (source_breaks_symmetry(&run->source)) {
        source_text(&run->source, text, sizeof text);
        error_set(err, NULL, 0,
                  "%s: a convolution assumes a beam along the axis (it spreads the pencil beam's "
                  "rings), and this result's source, --source %s, is not one",
                  what, text);
        return false;
    }
    source_describe(&run->source, text, sizeof text);
    error_set(err, NULL, 0,
              "%s: a convolution needs a pencil-beam response, and this result's source is a %s",
              what, text);
    return false;
}
