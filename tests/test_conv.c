/* Broad beams by convolution (runtime/io/conv.c): against the analytic
 * Gaussian within the bound docs/physics.md derives, the quadrature against
 * twice its nodes, the totals kept, the pencil as the radius goes to 0, the
 * time-resolved arrays and the derivatives convolved as Rd_r is (the path
 * lengths and the detector dropped), the beam's text. */
#include <float.h>
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "conv.h"

static double area(int i, double dr) { return M_PI * dr * dr * (2 * i + 1); }

/* A result of the grid with every array filled from a fixed generator. */
static void fill_random(mcml_result *r, int nr, int nz, int na, int layers, unsigned seed)
{
    CHECK(result_alloc(r, nr, nz, na, layers));
    output_grid g = result_grid(r);
    srand(seed);
    for (int o = 0; o < OUTPUT_ARRAYS; o++)
        for (uint64_t k = 0; r->array[o] && k < output_stored(&output_table[o], &g); k++)
            r->array[o][k] = (double)rand() / RAND_MAX;
    r->photons = 1000;
    r->rsp = 0.1, r->rd = 0.2, r->a = 0.3, r->tt = 0.4;
}

/* Pencil G(r) = exp(-r^2/s^2)/(pi s^2) as exact ring means in Rd_r; a
 * Gaussian beam of 1/e^2 radius W is exp(-r^2/(W^2/2)), so the exact answer
 * is G with s^2 + W^2/2, whose ring means are exact too.  The bound
 * (physics.md): (dr/2) max|grad S| sum_j area_j (G(a_j) - G(b_j)), max|grad S|
 * = 4 e^(-1/2) / (pi W^3), plus the quadrature's 1e-12 of the peak. */
static double ring_mean(double s, int j, double dr)
{
    double a = j * dr, b = (j + 1) * dr;
    return (exp(-a * a / (s * s)) - exp(-b * b / (s * s))) / (M_PI * (2 * j + 1) * dr * dr);
}

static void test_gaussian_analytic(double s, double w, double dr, int nr)
{
    mcml_result in, out;
    CHECK(result_alloc(&in, nr, 1, 1, 1));
    double spread = 0;
    for (int j = 0; j < nr; j++) {
        in.rd_r[j] = ring_mean(s, j, dr);
        double ga = exp(-j * dr * j * dr / (s * s)),
               gb = exp(-(j + 1) * dr * (j + 1) * dr / (s * s));
        spread += area(j, dr) * (ga - gb) / (M_PI * s * s);
    }
    double bound = dr / 2 * 4 * exp(-0.5) / (M_PI * w * w * w) * spread + 1e-12 / (M_PI * s * s);
    tm_error err = {0};
    conv_beam beam = {CONV_BEAM_GAUSSIAN, w};
    CHECK(conv_result(&in, dr, &beam, &out, &err));
    double s2 = sqrt(s * s + w * w / 2), worst = 0;
    for (int i = 0; i + 1 < nr; i++)
        worst = fmax(worst, fabs(out.rd_r[i] - ring_mean(s2, i, dr)));
    printf("gaussian s %g W %g dr %g: max error %.3g, bound %.3g (peak %.3g)\n", s, w, dr, worst,
           bound, 1 / (M_PI * s2 * s2));
    CHECK_MSG(worst <= bound, "error %g above the bound %g", worst, bound);
    result_free(&in);
    result_free(&out);
}

/* The area of two discs of radii a, b whose centres lie d apart. */
static double disc_overlap(double a, double b, double d)
{
    if (d >= a + b)
        return 0;
    if (d <= fabs(a - b))
        return M_PI * fmin(a, b) * fmin(a, b);
    double x = (d * d + a * a - b * b) / (2 * d * a), y = (d * d + b * b - a * a) / (2 * d * b);
    return a * a * acos(x) + b * b * acos(y) -
           0.5 * sqrt((-d + a + b) * (d + a - b) * (d - a + b) * (d + a + b));
}

/* Ring i's mean of the flat beam's response to G = 1 inside radius c (a
 * response constant on rings, for which the convolution is exact): the
 * beam's power that falls in the disc, overlap(c, R, r) / (pi R^2), averaged
 * over the ring directly in r by the midpoint rule with n points. */
static double flat_disc_ring(double c, double radius, int i, double dr, int n)
{
    double sum = 0;
    for (int k = 0; k < n; k++) {
        double r = (i + (k + 0.5) / n) * dr;
        sum += disc_overlap(c, radius, r) * r;
    }
    return sum * dr / n * 2 * M_PI / (M_PI * radius * radius) / area(i, dr);
}

/* The flat beam against that direct average: the reference's error is at
 * most its change from n to 2n points (the midpoint rule converges at least
 * as h^(3/2) at the tangencies), plus the quadrature's 1e-12. */
static void test_flat_exact(double radius)
{
    const int nr = 40, inside = 10;
    const double dr = 0.01;
    mcml_result in, out;
    CHECK(result_alloc(&in, nr, 1, 1, 1));
    for (int j = 0; j < inside; j++)
        in.rd_r[j] = 1;
    tm_error err = {0};
    conv_beam beam = {CONV_BEAM_FLAT, radius};
    CHECK(conv_result(&in, dr, &beam, &out, &err));
    double worst = 0;
    for (int i = 0; i + 1 < nr; i++) {
        double a = flat_disc_ring(inside * dr, radius, i, dr, 2000);
        double b = flat_disc_ring(inside * dr, radius, i, dr, 4000);
        double e = fabs(out.rd_r[i] - b);
        worst = fmax(worst, e);
        CHECK_MSG(e <= fabs(a - b) + 1e-12, "flat R %g ring %d: %.15g, direct %.15g (+-%g)", radius,
                  i, out.rd_r[i], b, fabs(a - b));
    }
    printf("flat R %g on a disc: max difference from the direct average %.3g\n", radius, worst);
    result_free(&in);
    result_free(&out);
}

/* The quadrature (16 nodes a piece) against 32: the documented 1e-12 of the
 * array's largest value. */
static void test_quadrature(conv_beam_kind kind, double radius)
{
    mcml_result in, a, b;
    fill_random(&in, 60, 2, 2, 1, 7);
    tm_error err = {0};
    conv_beam beam = {kind, radius};
    CHECK(conv_result_nodes(&in, 0.01, &beam, 16, &a, &err));
    CHECK(conv_result_nodes(&in, 0.01, &beam, 32, &b, &err));
    double worst = 0;
    for (int k = 0; k < 60 * 2; k++)
        worst = fmax(worst, fabs(a.a_rz[k] - b.a_rz[k]));
    CHECK_MSG(worst <= 1e-12, "kind %d radius %g: 16 and 32 nodes differ by %g", kind, radius,
              worst);
    result_free(&in);
    result_free(&a);
    result_free(&b);
}

/* Every column of a ring array keeps its weight (sum of area x value) to
 * rounding: 4 nr eps of the weight; the other arrays and RAT are copied. */
static void test_totals(conv_beam_kind kind, double radius)
{
    const int nr = 40, nz = 5, na = 3;
    const double dr = 0.02;
    mcml_result in, out;
    fill_random(&in, nr, nz, na, 2, 11);
    tm_error err = {0};
    conv_beam beam = {kind, radius};
    CHECK(conv_result(&in, dr, &beam, &out, &err));
    output_grid g = result_grid(&in);
    for (int o = 0; o < OUTPUT_ARRAYS; o++) {
        const output_array *row = &output_table[o];
        uint64_t n = output_stored(row, &g);
        if (!in.array[o]) /* optional, absent: none in the convolution either */
            continue;
        if (row->axes[0] != OUTPUT_AXIS_R) {
            CHECK(memcmp(in.array[o], out.array[o], n * sizeof(double)) == 0);
            continue;
        }
        int cols = (int)(n / nr);
        for (int c = 0; c < cols; c++) {
            double w0 = 0, w1 = 0;
            for (int i = 0; i < nr; i++) {
                w0 += area(i, dr) * in.array[o][i * cols + c];
                w1 += area(i, dr) * out.array[o][i * cols + c];
                CHECK(out.array[o][i * cols + c] >= -1e-12);
            }
            CHECK_MSG(fabs(w1 - w0) <= 4 * nr * DBL_EPSILON * w0, "%s column %d: %.17g -> %.17g",
                      row->name, c, w0, w1);
        }
    }
    CHECK(out.rsp == in.rsp && out.rd == in.rd && out.a == in.a && out.tt == in.tt);
    CHECK(out.photons == in.photons);
    result_free(&in);
    result_free(&out);
}

/* A radius going to 0 gives the pencil: a ring's mean moves by at most
 * 2 E|d| / dr times its largest difference with a neighbour (physics.md;
 * the overflow ring, never spread, counts as 0),
 * E|d| = W sqrt(pi/8) (Gaussian), 2R/3 (flat); radius 0 copies. */
/* The optional groups: every ring-resolved array of the time bins and the
 * derivatives made of Rd_r scaled by (its column + 1), so that each of its
 * columns convolved is Rd_r's convolution times that (to rounding); their
 * totals copied; the path lengths and the detector's arrays gone. */
static void test_optional_arrays(conv_beam_kind kind, double radius)
{
    const int nr = 30, nz = 4, na = 2, nt = 5;
    const double dr = 0.03;
    mcml_result in, out;
    fill_random(&in, nr, nz, na, 3, 5);
    CHECK(result_alloc_paths(&in) && result_alloc_time(&in, nt) && result_alloc_detectors(&in, 1) &&
          result_alloc_jacobian(&in));
    output_grid g = result_grid(&in);
    for (int o = 0; o < OUTPUT_ARRAYS; o++) {
        const output_array *row = &output_table[o];
        if (!row->option || !in.array[o])
            continue;
        uint64_t n = output_stored(row, &g);
        int cols = (int)(n / (uint64_t)nr);
        for (uint64_t k = 0; k < n; k++)
            in.array[o][k] = row->axes[0] == OUTPUT_AXIS_R
                                 ? in.rd_r[k / (uint64_t)cols] * (double)(k % (uint64_t)cols + 1)
                                 : (double)k + 0.5;
    }
    tm_error err = {0};
    conv_beam beam = {kind, radius};
    CHECK(conv_result(&in, dr, &beam, &out, &err));
    for (int o = 0; o < OUTPUT_ARRAYS; o++) {
        const output_array *row = &output_table[o];
        if (!row->option || !in.array[o])
            continue;
        bool kept =
            row->option == OUTPUT_OPTION_TIME ||
            (row->option == OUTPUT_OPTION_JACOBIAN &&
             output_has_axes(
                 row, &(output_grid){.nr = nr, .nz = nz, .na = na, .num_layers = 3, .nt = nt}));
        CHECK_MSG(kept == (out.array[o] != NULL), "%s: %s", row->name,
                  kept ? "dropped" : "kept, but not the convolution of the pencil's");
        if (!out.array[o])
            continue;
        uint64_t n = output_stored(row, &g);
        if (row->axes[0] != OUTPUT_AXIS_R) {
            CHECK_MSG(memcmp(in.array[o], out.array[o], n * sizeof(double)) == 0, "%s", row->name);
            continue;
        }
        int cols = (int)(n / (uint64_t)nr);
        for (int i = 0; i < nr; i++)
            for (int c = 0; c < cols; c++) {
                double want = out.rd_r[i] * (c + 1), got = out.array[o][i * cols + c];
                CHECK_MSG(fabs(got - want) <= 1e-12 * (c + 1) * fabs(out.rd_r[0]) + 1e-300,
                          "%s ring %d column %d: %.17g, Rd_r's times %d %.17g", row->name, i, c,
                          got, c + 1, want);
            }
    }
    result_free(&in);
    result_free(&out);
}

static void test_pencil_limit(conv_beam_kind kind, double radius)
{
    const int nr = 30;
    const double dr = 0.01;
    mcml_result in, out;
    fill_random(&in, nr, 3, 2, 1, 5);
    tm_error err = {0};
    conv_beam beam = {kind, radius};
    CHECK(conv_result(&in, dr, &beam, &out, &err));
    double mean_d = kind == CONV_BEAM_GAUSSIAN ? radius * sqrt(M_PI / 8) : 2 * radius / 3;
    for (int i = 0; i + 1 < nr; i++)
        for (int c = 0; c < 3; c++) {
            double f = in.a_rz[i * 3 + c], range = 0;
            for (int j = i > 0 ? i - 1 : 0; j <= i + 1; j++) /* the overflow ring brings nothing */
                range = fmax(range, fabs((j + 1 < nr ? in.a_rz[j * 3 + c] : 0) - f));
            double bound = 2 * mean_d / dr * range + 1e-13;
            CHECK_MSG(fabs(out.a_rz[i * 3 + c] - f) <= bound, "kind %d radius %g ring %d: %g", kind,
                      radius, i, out.a_rz[i * 3 + c] - f);
        }
    if (radius == 0) {
        output_grid g = result_grid(&in);
        for (int o = 0; o < OUTPUT_ARRAYS; o++)
            CHECK(!in.array[o] ||
                  memcmp(in.array[o], out.array[o],
                         output_stored(&output_table[o], &g) * sizeof(double)) == 0);
    }
    result_free(&in);
    result_free(&out);
}

static void test_parse(void)
{
    conv_beam b;
    tm_error err = {0};
    CHECK(conv_beam_parse("gaussian:0.1", &b, &err) && b.kind == CONV_BEAM_GAUSSIAN &&
          b.radius == 0.1);
    CHECK(conv_beam_parse("flat:2e-1", &b, &err) && b.kind == CONV_BEAM_FLAT && b.radius == 0.2);
    CHECK(conv_beam_parse("flat:0", &b, &err) && b.radius == 0);
    static const struct {
        const char *text, *says;
    } bad[] = {
        {"gauss:1", "expected gaussian:W or flat:R"}, {"gaussian", "expected gaussian:W or flat:R"},
        {"gaussian:", "\"\" is not a number"},        {"gaussian:abc", "\"abc\" is not a number"},
        {"flat:1cm", "\"1cm\" is not a number"},      {"gaussian:-1", "finite number of cm >= 0"},
        {"flat:inf", "finite number of cm >= 0"},     {"flat:nan", "finite number of cm >= 0"}};
    for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
        tm_error e = {0};
        CHECK_MSG(!conv_beam_parse(bad[k].text, &b, &e), "%s accepted", bad[k].text);
        CHECK_CONTAINS(e.message, bad[k].says);
        CHECK_CONTAINS(e.message, bad[k].text);
    }
    char text[128];
    conv_beam_describe(&(conv_beam){CONV_BEAM_GAUSSIAN, 0.25}, text, sizeof text);
    CHECK_CONTAINS(text, "Gaussian beam of 1/e2 radius 0.25 cm");
}

int main(void)
{
    test_gaussian_analytic(0.05, 0.1, 0.005, 200);
    test_gaussian_analytic(0.02, 0.05, 0.002, 300);
    test_gaussian_analytic(0.1, 0.04, 0.01, 120);
    test_flat_exact(0.063);
    test_flat_exact(0.0137);
    test_flat_exact(0.25);
    const double radii[] = {0.003, 0.025, 0.4, 2};
    for (int k = 0; k < 4; k++) {
        test_quadrature(CONV_BEAM_GAUSSIAN, radii[k]);
        test_quadrature(CONV_BEAM_FLAT, radii[k]);
        test_totals(CONV_BEAM_GAUSSIAN, radii[k]);
        test_totals(CONV_BEAM_FLAT, radii[k]);
        test_optional_arrays(CONV_BEAM_GAUSSIAN, radii[k]);
        test_optional_arrays(CONV_BEAM_FLAT, radii[k]);
    }
    const double tiny[] = {0, 1e-9, 1e-6, 1e-4};
    for (int k = 0; k < 4; k++) {
        test_pencil_limit(CONV_BEAM_GAUSSIAN, tiny[k]);
        test_pencil_limit(CONV_BEAM_FLAT, tiny[k]);
    }
    test_parse();
    return check_summary("conv");
}
