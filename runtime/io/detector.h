/* The fiber detector (docs/physics.md, "Fiber detector"): the diffuse
 * reflectance collected by a fiber face on the surface, a disc of radius
 * `radius` whose centre lies `sep` from the beam's axis, counting only the
 * escapes whose direction in the medium above (after refraction) lies
 * within the fiber's acceptance cone, sin(theta) <= NA / n_above.
 *
 * The problem and the source are axially symmetric, so an escape at radius
 * r is scored with the fraction of the circle of radius r that lies inside
 * the disc (detector_fiber_fraction): the expectation over the escape's
 * azimuth of the disc's indicator, unbiased and of lower variance than the
 * indicator at one sampled azimuth. */
#ifndef TMCML_DETECTOR_H
#define TMCML_DETECTOR_H

#include <stdbool.h>

#include <stddef.h>

#include "error.h"

/* One fiber detector: its face's centre `sep` cm from the axis, its
 * radius (cm) and numerical aperture.  A run has up to TM_MAX_DETECTORS
 * (tm_limits.h), scored alike from the same escapes (Rd_fiber: one value
 * each, in the order given). */
typedef struct fiber_detector {
    double sep, radius, na;
} fiber_detector;

/* "fiber:SEP:RADIUS:NA" (--detector): cm, cm, numerical aperture.  False
 * with *err naming what (the option, "--detector 2" for the second of
 * several) and the value. */
bool detector_parse(const char *text, const char *what, fiber_detector *d, tm_error *err);

/* sep >= 0, radius > 0, both finite, 0 < na <= n_above (the refractive
 * index of the medium above, where the fiber sits); what names the caller's
 * option or function in the message. */
bool detector_check(const char *what, const fiber_detector *d, double n_above, tm_error *err);

/* Detector k (1-based) of count as messages name it: what alone when it is
 * the only one ("--detector"), else what and its number ("--detector 2"),
 * into buf. */
const char *detector_name(const char *what, int k, int count, char *buf, size_t size);

/* Each of the count detectors checked against n_above (detector_check,
 * named by detector_name): false with *err naming the first bad one. */
bool detector_check_all(const char *what, const fiber_detector *d, int count, double n_above,
                        tm_error *err);

/* The fraction of the circle of radius r about the axis inside the disc of
 * the given radius centred sep from the axis: 1, 0, or acos(...) / pi. */
double detector_fiber_fraction(double r, double sep, double radius);

/* The least exit cosine (in the medium above) the fiber accepts:
 * sqrt(1 - (na / n_above)^2), 0 when na >= n_above (every direction). */
double detector_cos_accept(double na, double n_above);

#endif
