/* The fiber detector's geometry, text and checks (detector.h). */
#include "detector.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number_parse.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* The next ':'-separated number of *p into *v (one not finite kept, for
 * detector_check to name); false for none or junk (*status says which). */
static bool detector_number(const char **p, bool last, double *v, number_status *status)
{
    const char *end = NULL;
    *status = number_parse_prefix(*p, &end, v);
    if ((*status != NUMBER_OK && *status != NUMBER_NOT_FINITE) ||
        (last ? *end != '\0' : *end != ':'))
        return false;
    *p = last ? end : end + 1;
    return true;
}

bool detector_parse(const char *text, const char *what, fiber_detector *d, tm_error *err)
{
    const char *p = text ? text : "";
    if (strncmp(p, "fiber:", 6) != 0) {
        error_set(err, NULL, 0,
                  "%s: expected fiber:SEP:RADIUS:NA (cm, cm, numerical aperture; got \"%s\")", what,
                  p);
        return false;
    }
    p += 6;
    double *values[3] = {&d->sep, &d->radius, &d->na};
    bool ok = true;
    for (int i = 0; ok && i < 3; i++) {
        const char *at = p;
        number_status status;
        ok = detector_number(&p, i == 2, values[i], &status);
        if (status == NUMBER_TOO_SMALL) {
            char number[64];
            size_t len = strcspn(at, ":");
            snprintf(number, sizeof number, "%.*s", (int)(len < 63 ? len : 63), at);
            number_error_set(err, NULL, 0, what, number, status);
            return false;
        }
    }
    if (!ok) {
        error_set(err, NULL, 0,
                  "%s: expected fiber:SEP:RADIUS:NA, three numbers after \"fiber:\" (got \"%s\")",
                  what, text);
        return false;
    }
    /* The medium above is checked per run (detector_check with its n). */
    return detector_check(what, d, INFINITY, err);
}

bool detector_check(const char *what, const fiber_detector *d, double n_above, tm_error *err)
{
    const double values[3] = {d->sep, d->radius, d->na};
    static const char *const names[3] = {"separation", "radius", "numerical aperture"};
    for (int i = 0; i < 3; i++)
        if (number_is_subnormal(values[i])) {
            error_set(err, NULL, 0,
                      "%s: %s %g is too small to compute with: a number other than 0 must be "
                      "at least 1e-300",
                      what, names[i], values[i]);
            return false;
        }
    if (!(d->sep >= 0.0 && isfinite(d->sep))) {
        error_set(err, NULL, 0, "%s: separation %g cm is not a finite number >= 0", what, d->sep);
        return false;
    }
    if (!(d->radius > 0.0 && isfinite(d->radius))) {
        error_set(err, NULL, 0, "%s: radius %g cm is not a finite number > 0", what, d->radius);
        return false;
    }
    if (!(d->na > 0.0 && isfinite(d->na))) {
        error_set(err, NULL, 0, "%s: numerical aperture %g is not a finite number > 0", what,
                  d->na);
        return false;
    }
    if (d->na > n_above) {
        error_set(err, NULL, 0,
                  "%s: numerical aperture %g exceeds the refractive index %g of the medium above "
                  "(sin(theta) = NA / n cannot pass 1)",
                  what, d->na, n_above);
        return false;
    }
    return true;
}

const char *detector_name(const char *what, int k, int count, char *buf, size_t size)
{
    if (count <= 1)
        snprintf(buf, size, "%s", what);
    else
        snprintf(buf, size, "%s %d", what, k);
    return buf;
}

bool detector_check_all(const char *what, const fiber_detector *d, int count, double n_above,
                        tm_error *err)
{
    for (int k = 0; k < count; k++) {
        char name[96];
        if (!detector_check(detector_name(what, k + 1, count, name, sizeof name), &d[k], n_above,
                            err))
            return false;
    }
    return true;
}

double detector_fiber_fraction(double r, double sep, double radius)
{
    if (r + sep <= radius)
        return 1.0; /* the whole circle inside the disc */
    if (r >= sep + radius || r <= sep - radius)
        return 0.0; /* beyond it, or inside a disc that leaves the axis out */
    /* The circle crosses the disc's edge at azimuths +-phi from the disc's
     * centre: law of cosines in the triangle axis, centre, crossing. */
    double c = (r * r + sep * sep - radius * radius) / (2.0 * r * sep);
    c = c < -1.0 ? -1.0 : (c > 1.0 ? 1.0 : c);
    return acos(c) / M_PI;
}

double detector_cos_accept(double na, double n_above)
{
    double s = na / n_above;
    return s >= 1.0 ? 0.0 : sqrt(1.0 - s * s);
}
