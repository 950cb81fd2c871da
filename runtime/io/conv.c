/* Broad beams by convolution of the pencil response (conv.h; the method and
 * its error: docs/physics.md, "Broad beams by convolution").
 *
 * The pencil response is known as ring means G_j (MCML's normalisation is
 * the ring's exact area, 2 pi (j + 1/2) dr^2), and is taken constant on each
 * ring.  Then the beam's ring means are exactly
 *     R_i = sum_j G_j X_ij / area_i,   X_ij = integral over ring i, ring j of S(x - y),
 * and X_ij is a double difference of Lambda(k, l), the beam's power moved
 * between the discs of radius k dr and l dr (computed as pi min^2 less what
 * leaves, conv_delta):
 *     Lambda(k, l) = integral_0^inf s(d) L(k dr, l dr, d) 2 pi d dd,
 * s the beam's radial profile and L the area of two discs whose centres lie
 * d apart (the lens).  One integral over the beam's offset d, done on pieces
 * between the lens's tangencies, where the integrand is analytic. */
#include "conv.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number_parse.h"

#define CONV_NODES 16 /* Gauss-Legendre nodes a piece (docs/physics.md: error) */
/* A radius below CONV_TINY dr is the pencil: the beam would move at most
 * 2 E|d| / dr ~ 1e-12 of an array's range between rings (docs/physics.md),
 * and 1/W^2 must stay finite. */
#define CONV_TINY  1e-12

/* Gauss-Legendre nodes and weights on [0, 1], by Newton's method on the
 * Legendre polynomial's three-term recurrence. */
static void conv_gauss_legendre(int n, double *x, double *w)
{
    for (int i = 0; i < n; i++) {
        double t = cos(M_PI * (i + 0.75) / (n + 0.5)), dp = 1;
        for (int it = 0; it < 100; it++) {
            double p0 = 1, p1 = t;
            for (int k = 2; k <= n; k++) {
                double p2 = ((2 * k - 1) * t * p1 - (k - 1) * p0) / k;
                p0 = p1;
                p1 = p2;
            }
            dp = n * (t * p1 - p0) / (t * t - 1);
            double step = p1 / dp;
            t -= step;
            if (fabs(step) < 1e-16)
                break;
        }
        x[i] = 0.5 * (1 - t);
        w[i] = 1 / ((1 - t * t) * dp * dp); /* 2/((1-t^2) P'^2), halved for [0, 1] */
    }
}

typedef struct conv_plan {
    conv_beam beam;
    double dr, reach; /* reach: the offsets beyond it carry no power (to 2^-60) */
    double unit;      /* the first piece's width: dr, or W/2 for a narrower Gaussian */
    int nodes;
    double x[64], w[64];
} conv_plan;

/* The radial profile s(d) of a beam of unit power. */
static double conv_profile(const conv_plan *p, double d)
{
    double w = p->beam.radius;
    if (p->beam.kind == CONV_BEAM_GAUSSIAN)
        return 2 / (M_PI * w * w) * exp(-2 * d * d / (w * w));
    return d < w ? 1 / (M_PI * w * w) : 0;
}

/* The beam's power within radius d of its centre. */
static double conv_power_within(const conv_plan *p, double d)
{
    double w = p->beam.radius;
    if (p->beam.kind == CONV_BEAM_GAUSSIAN)
        return -expm1(-2 * d * d / (w * w));
    return d < w ? d * d / (w * w) : 1;
}

/* The area common to discs of radii c1, c2 whose centres lie d apart,
 * |c1 - c2| < d < c1 + c2. */
static double conv_lens(double c1, double c2, double d)
{
    double x1 = (d * d + c1 * c1 - c2 * c2) / (2 * d * c1);
    double x2 = (d * d + c2 * c2 - c1 * c1) / (2 * d * c2);
    double k = (-d + c1 + c2) * (d + c1 - c2) * (d - c1 + c2) * (d + c1 + c2);
    return c1 * c1 * acos(fmin(1, fmax(-1, x1))) + c2 * c2 * acos(fmin(1, fmax(-1, x2))) -
           0.5 * sqrt(fmax(k, 0));
}

/* The integral of s(d) (pi c^2 - L(c1, c2, d)) 2 pi d over [a, a + h],
 * c = min(c1, c2).  A piece that ends at a tangency (at_lo, at_hi), where
 * the lens goes as (d - tangency)^(3/2), is integrated through
 * d = a + h u(t) with u' vanishing there (u = t^2 at the start,
 * 1 - (1 - t)^2 at the end, t^2 (3 - 2t) at both), which makes the
 * integrand analytic in t; the others directly. */
static double conv_piece(const conv_plan *p, double c1, double c2, double a, double h, bool at_lo,
                         bool at_hi)
{
    double disc = M_PI * fmin(c1, c2) * fmin(c1, c2), sum = 0;
    for (int i = 0; i < p->nodes; i++) {
        double t = p->x[i], u = t, du = 1;
        if (at_lo && at_hi)
            u = t * t * (3 - 2 * t), du = 6 * t * (1 - t);
        else if (at_lo)
            u = t * t, du = 2 * t;
        else if (at_hi)
            u = 1 - (1 - t) * (1 - t), du = 2 * (1 - t);
        double d = a + h * u;
        sum += p->w[i] * du * conv_profile(p, d) * (disc - conv_lens(c1, c2, d)) * d;
    }
    return 2 * M_PI * h * sum;
}

/* Delta(k, l) = pi min(c1, c2)^2 - Lambda(k, l): the beam's power that
 * leaves the larger disc from points of the smaller, small for a narrow
 * beam, so that the double difference (where pi min^2 gives area_i
 * delta_ij exactly) loses few digits.  Nothing leaves while d < |c1 - c2|;
 * all of it beyond c1 + c2, in closed form; the lens between the
 * tangencies on pieces that grow geometrically away from the first and
 * shrink towards the second (each no wider than its distance to the lens's
 * singularities: at the tangencies, at d = 0 and at d < 0), and, for the
 * Gaussian, no wider than W/2.  A flat beam's edge R, where the integrand
 * stops, may fall just short of a tangency: the pieces shrinking towards it
 * keep the last one no wider than its distance to the tangency. */
static double conv_delta(const conv_plan *p, int k, int l)
{
    if (k == 0 || l == 0)
        return 0;
    double c1 = k * p->dr, c2 = l * p->dr;
    double lo = abs(k - l) * p->dr, hi = (k + l) * p->dr, top = fmin(hi, p->reach);
    double sum = M_PI * fmin(c1, c2) * fmin(c1, c2) * (1 - conv_power_within(p, hi));
    double cap = p->beam.kind == CONV_BEAM_GAUSSIAN ? p->beam.radius / 2 : INFINITY;
    for (double x = lo; x < top;) {
        double w = fmin(cap, fmin(fmax(p->unit, x - lo), (hi - x) / 2));
        bool last = x + w >= top || (top == hi && hi - x < 2 * p->unit);
        if (last)
            w = top - x;
        sum += conv_piece(p, c1, c2, x, w, x == lo, last && top == hi);
        if (x + w == x)
            break; /* cannot happen for a radius above CONV_TINY dr; a guard */
        x += w;
    }
    return sum;
}

static double conv_area(int i, double dr) { return M_PI * dr * dr * (2 * i + 1); }

/* Each column of a ring array: rings 0 .. m-1 (m = nr - 1) by the transfer
 * X; the overflow ring m keeps its own weight and takes whatever of the
 * others' the beam carries beyond the grid, so each column's weight is
 * kept. */
typedef struct conv_column_set {
    const double *in;
    double *out;
    int cols;
} conv_column_set;

static void conv_finish_overflow(const conv_column_set *s, int m, double dr)
{
    for (int c = 0; c < s->cols; c++) {
        double total = 0, inner = 0;
        for (int j = 0; j <= m; j++)
            total += s->in[(size_t)j * s->cols + c] * conv_area(j, dr);
        for (int i = 0; i < m; i++)
            inner += s->out[(size_t)i * s->cols + c] * conv_area(i, dr);
        s->out[(size_t)m * s->cols + c] = (total - inner) / conv_area(m, dr);
    }
}

/* Rows of X from two rows of Delta at a time: X_ij = area_i delta_ij -
 * (D(i+1, j+1) - D(i+1, j) - D(i, j+1) + D(i, j)). */
static bool conv_apply(const conv_plan *p, int nr, conv_column_set *sets, int nsets)
{
    int m = nr - 1;
    double *below = calloc((size_t)m + 1, sizeof *below), *above = malloc(((size_t)m + 1) * 8);
    double *x = malloc((size_t)m * sizeof *x);
    if (!below || !above || !x) {
        free(below);
        free(above);
        free(x);
        return false;
    }
    for (int i = 0; i < m; i++) {
        for (int l = 0; l <= m; l++)
            above[l] = conv_delta(p, i + 1, l);
        for (int j = 0; j < m; j++)
            x[j] = above[j + 1] - above[j] - below[j + 1] + below[j];
        double area = conv_area(i, p->dr);
        for (int s = 0; s < nsets; s++) {
            int cols = sets[s].cols;
            double *out = sets[s].out + (size_t)i * cols;
            for (int c = 0; c < cols; c++)
                out[c] = 0;
            for (int j = 0; j < m; j++) {
                const double *in = sets[s].in + (size_t)j * cols;
                for (int c = 0; c < cols; c++)
                    out[c] += x[j] * in[c];
            }
            const double *own = sets[s].in + (size_t)i * cols;
            for (int c = 0; c < cols; c++)
                out[c] = own[c] - out[c] / area;
        }
        double *t = below;
        below = above;
        above = t;
    }
    for (int s = 0; s < nsets; s++)
        conv_finish_overflow(&sets[s], m, p->dr);
    free(below);
    free(above);
    free(x);
    return true;
}

/* Whether res has an array of option's group. */
static bool conv_has(const mcml_result *res, output_option option)
{
    for (int o = 0; o < OUTPUT_ARRAYS; o++)
        if (output_table[o].option == option && res->array[o])
            return true;
    return false;
}

/* out: in's totals and arrays, to be convolved where they run along r.
 * The time-resolved escapes and the derivatives are linear in the pencil's
 * escapes as Rd_r is, so they are kept (and convolved).  The path lengths
 * are means over a ring's escaping weight, not densities, and a fiber's
 * reading is not made from rings: a broad beam's of either is not the
 * convolution of the pencil's, and the result has none (result_alloc
 * leaves them out). */
static bool conv_copy(const mcml_result *in, mcml_result *out)
{
    if (!result_alloc(out, in->nr, in->nz, in->na, in->num_layers))
        return false;
    out->photons = in->photons;
    out->rsp = in->rsp;
    out->rd = in->rd;
    out->a = in->a;
    out->tt = in->tt;
    bool ok = (!conv_has(in, OUTPUT_OPTION_TIME) || result_alloc_time(out, in->nt)) &&
              (!conv_has(in, OUTPUT_OPTION_JACOBIAN) || result_alloc_jacobian(out));
    if (!ok) {
        result_free(out);
        return false;
    }
    output_grid g = result_grid(in);
    for (int o = 0; o < OUTPUT_ARRAYS; o++)
        if (out->array[o])
            memcpy(out->array[o], in->array[o],
                   output_stored(&output_table[o], &g) * sizeof(double));
    return true;
}

bool conv_beam_check(const conv_beam *beam, tm_error *err)
{
    if (beam->kind != CONV_BEAM_GAUSSIAN && beam->kind != CONV_BEAM_FLAT) {
        error_set(err, NULL, 0, "beam: unknown kind %d (expected Gaussian or flat)",
                  (int)beam->kind);
        return false;
    }
    if (!isfinite(beam->radius) || beam->radius < 0) {
        error_set(err, NULL, 0, "beam: the radius must be a finite number of cm >= 0 (got %g)",
                  beam->radius);
        return false;
    }
    if (number_is_subnormal(beam->radius)) {
        error_set(err, NULL, 0,
                  "beam: the radius %g cm is too small to compute with: a number other than 0 "
                  "must be at least 1e-300",
                  beam->radius);
        return false;
    }
    return true;
}

bool conv_beam_parse(const char *text, conv_beam *beam, tm_error *err)
{
    const char *colon = strchr(text, ':');
    size_t n = colon ? (size_t)(colon - text) : 0;
    if (colon && n == 8 && strncmp(text, "gaussian", n) == 0)
        beam->kind = CONV_BEAM_GAUSSIAN;
    else if (colon && n == 4 && strncmp(text, "flat", n) == 0)
        beam->kind = CONV_BEAM_FLAT;
    else {
        error_set(err, NULL, 0, "beam \"%s\": expected gaussian:W or flat:R (cm)", text);
        return false;
    }
    number_status s = number_parse(colon + 1, &beam->radius);
    if (s == NUMBER_TOO_SMALL) {
        char what[96];
        snprintf(what, sizeof what, "beam \"%.60s\": the radius", text);
        number_error_set(err, NULL, 0, what, colon + 1, s);
        return false;
    }
    if (s != NUMBER_OK && s != NUMBER_NOT_FINITE) {
        error_set(err, NULL, 0, "beam \"%s\": \"%s\" is not a number of cm", text, colon + 1);
        return false;
    }
    if (!isfinite(beam->radius) || beam->radius < 0) {
        error_set(err, NULL, 0, "beam \"%s\": the radius must be a finite number of cm >= 0", text);
        return false;
    }
    return true;
}

void conv_beam_describe(const conv_beam *beam, char *buf, size_t size)
{
    if (beam->kind == CONV_BEAM_GAUSSIAN)
        snprintf(buf, size, "Gaussian beam of 1/e2 radius %.9g cm", beam->radius);
    else
        snprintf(buf, size, "flat beam of radius %.9g cm", beam->radius);
}

source_desc conv_beam_source(const conv_beam *beam)
{
    source_desc s = {0};
    if (beam->radius > 0.0) {
        s.kind = beam->kind == CONV_BEAM_GAUSSIAN ? SOURCE_GAUSSIAN : SOURCE_FLAT;
        s.radius = beam->radius;
    }
    return s;
}

bool conv_check_input(const mci_run *run, const char *comment, const char *what, tm_error *err)
{
    if (comment && strncmp(comment, CONV_COMMENT_WORD, strlen(CONV_COMMENT_WORD)) == 0) {
        size_t beam = strcspn(comment, ";");
        error_set(err, NULL, 0,
                  "%s: already convolved (\"%.*s\"): convolve the pencil-beam response it was "
                  "made from instead",
                  what, (int)(beam < 200 ? beam : 200), comment);
        return false;
    }
    return source_require_pencil(run, what, err);
}

void conv_comment(const conv_beam *beam, const char *pencil, char *buf, size_t size)
{
    char what[128];
    conv_beam_describe(beam, what, sizeof what);
    int n = snprintf(buf, size, CONV_COMMENT_WORD "%s, unit power%s", what,
                     *pencil ? "; pencil: " : ".");
    for (const char *c = pencil; *c && n >= 0 && (size_t)n + 1 < size; c++) {
        if (strncmp(c, "tallies fnv1a64:", 16) == 0) {
            n += snprintf(buf + n, size - (size_t)n, "pencil tallies fnv1a64=");
            c += 15;
        } else if (*c != '\n' && *c != '\r') {
            buf[n++] = *c;
            buf[n] = '\0';
        }
    }
}

bool conv_result_nodes(const mcml_result *in, double dr, const conv_beam *beam, int nodes,
                       mcml_result *out, tm_error *err)
{
    memset(out, 0, sizeof *out);
    if (!conv_beam_check(beam, err))
        return false;
    if (!(dr > 0) || !isfinite(dr) || nodes < 2 || nodes > 64) {
        error_set(err, NULL, 0, "conv: bad grid (dr %g) or node count (%d)", dr, nodes);
        return false;
    }
    if (!conv_copy(in, out)) {
        error_set(err, NULL, 0, "conv: out of memory");
        return false;
    }
    if (beam->radius < CONV_TINY * dr || in->nr < 2)
        return true; /* the pencil (to 1e-12 of the range: physics.md), or the overflow ring alone */
    conv_plan p = {.beam = *beam, .dr = dr, .unit = dr, .nodes = nodes, .reach = beam->radius};
    if (beam->kind == CONV_BEAM_GAUSSIAN) {
        p.reach = beam->radius * sqrt(30 * log(2.0)); /* exp(-2 d^2 / W^2) = 2^-60 */
        p.unit = fmin(dr, beam->radius / 2);
    }
    conv_gauss_legendre(nodes, p.x, p.w);
    output_grid g = result_grid(in);
    conv_column_set sets[OUTPUT_ARRAYS];
    int nsets = 0;
    for (int o = 0; o < OUTPUT_ARRAYS; o++) {
        const output_array *row = &output_table[o];
        if (row->axes[0] != OUTPUT_AXIS_R || !out->array[o])
            continue;
        /* a ring's entries: its z, angle or time bins, or its derivatives */
        int cols = (int)(output_stored(row, &g) / (uint64_t)in->nr);
        sets[nsets++] = (conv_column_set){in->array[o], out->array[o], cols};
    }
    if (!conv_apply(&p, in->nr, sets, nsets)) {
        result_free(out);
        error_set(err, NULL, 0, "conv: out of memory");
        return false;
    }
    return true;
}

bool conv_result(const mcml_result *in, double dr, const conv_beam *beam, mcml_result *out,
                 tm_error *err)
{
    return conv_result_nodes(in, dr, beam, CONV_NODES, out, err);
}
