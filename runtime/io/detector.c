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

bool detector_parse(const char *text, double *sep, double *radius, double *na, tm_error *err)
{
    const char *p = text ? text : "";
    if (strncmp(p, "fiber:", 6) != 0) {
        error_set(
            err, NULL, 0,
            "--detector: expected fiber:SEP:RADIUS:NA (cm, cm, numerical aperture; got \"%s\")", p);
        return false;
    }
    p += 6;
    double *values[3] = {sep, radius, na};
    bool ok = true;
    for (int i = 0; ok && i < 3; i++) {
        const char *at = p;
        number_status status;
        ok = detector_number(&p, i == 2, values[i], &status);
        if (status == NUMBER_TOO_SMALL) {
            char number[64];
            size_t len = strcspn(at, ":");
            snprintf(number, sizeof number, "%.*s", (int)(len < 63 ? len : 63), at);
            number_error_set(err, NULL, 0, "--detector", number, status);
            return false;
        }
    }
    if (!ok) {
        error_set(
            err, NULL, 0,
            "--detector: expected fiber:SEP:RADIUS:NA, three numbers after \"fiber:\" (got \"%s\")",
            text);
        return false;
    }
    /* The medium above is checked per run (detector_check with its n). */
    return detector_check("--detector", *sep, *radius, *na, INFINITY, err);
}

bool detector_check(const char *what, double sep, double radius, double na, double n_above,
                    tm_error *err)
{
    const double values[3] = {sep, radius, na};
    static const char *const names[3] = {"separation", "radius", "numerical aperture"};
    for (int i = 0; i < 3; i++)
        if (number_is_subnormal(values[i])) {
            error_set(err, NULL, 0,
                      "%s: %s %g is too small to compute with: a number other than 0 must be "
                      "at least 1e-300",
                      what, names[i], values[i]);
            return false;
        }
    if (!(sep >= 0.0 && isfinite(sep))) {
        error_set(err, NULL, 0, "%s: separation %g cm is not a finite number >= 0", what, sep);
        return false;
    }
    if (!(radius > 0.0 && isfinite(radius))) {
        error_set(err, NULL, 0, "%s: radius %g cm is not a finite number > 0", what, radius);
        return false;
    }
    if (!(na > 0.0 && isfinite(na))) {
        error_set(err, NULL, 0, "%s: numerical aperture %g is not a finite number > 0", what, na);
        return false;
    }
    if (na > n_above) {
        error_set(err, NULL, 0,
                  "%s: numerical aperture %g exceeds the refractive index %g of the medium above "
                  "(sin(theta) = NA / n cannot pass 1)",
                  what, na, n_above);
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
