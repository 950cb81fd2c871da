/* The Cartesian grid's text forms and checks (runtime/io/xy_grid.h). */
#include "xy_grid.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "number_parse.h"
#include "tm_limits.h"

#define XY_LINE_START "Cartesian grid: "

/* The message of a text that is not "DX:NX". */
static void expected(const char *text, tm_error *err)
{
    error_set(err, NULL, 0,
              "--xy \"%s\": expected DX:NX, the cell side in cm and the cells along x and y "
              "(e.g. 0.01:200)",
              text);
}

/* The cell count: a whole number in digits alone ("200"), 1 to
 * TM_MAX_XY_CELLS. */
static bool parse_count(const char *text, const char *count, int *nx, tm_error *err)
{
    size_t digits = strspn(count, "0123456789");
    long v = digits > 0 && digits < 9 && count[digits] == '\0' ? strtol(count, NULL, 10) : -1;
    if (v < 1 || v > TM_MAX_XY_CELLS) {
        error_set(err, NULL, 0,
                  "--xy \"%s\": the cell count \"%s\" is not a whole number from 1 "
                  "to %d",
                  text, count, TM_MAX_XY_CELLS);
        return false;
    }
    *nx = (int)v;
    return true;
}

bool xy_grid_parse(const char *text, double *dx, int *nx, tm_error *err)
{
    const char *colon = text ? strchr(text, ':') : NULL;
    if (!colon || colon == text || colon[1] == '\0' || strchr(colon + 1, ':')) {
        expected(text ? text : "", err);
        return false;
    }
    char side[64];
    size_t len = (size_t)(colon - text);
    snprintf(side, sizeof side, "%.*s", (int)(len < 63 ? len : 63), text);
    double v = 0.0;
    number_status s = len < 63 ? number_parse(side, &v) : NUMBER_TRAILING;
    if (s != NUMBER_OK) {
        char what[96];
        snprintf(what, sizeof what, "--xy \"%.60s\": the cell side", text);
        number_error_set(err, NULL, 0, what, side, s);
        return false;
    }
    int count = 0;
    if (!parse_count(text, colon + 1, &count, err))
        return false;
    *dx = v;
    *nx = count;
    return xy_grid_check("--xy", *dx, *nx, 0, err);
}

bool xy_grid_check(const char *what, double dx, int nx, int nz, tm_error *err)
{
    if (!(isfinite(dx) && dx >= MCI_MIN_STEP)) {
        error_set(err, NULL, 0, "%s: the cell side %g cm is not a finite number of at least %g cm",
                  what, dx, MCI_MIN_STEP);
        return false;
    }
    if (nx < 1 || nx > TM_MAX_XY_CELLS) {
        error_set(err, NULL, 0, "%s: %d cells along x and y: 1 to %d are possible", what, nx,
                  TM_MAX_XY_CELLS);
        return false;
    }
    if (nz > 0 && (int64_t)nx * nz > MCI_MAX_BINS) {
        error_set(err, NULL, 0, "%s: %d cells along x x %d depth bins (A_xz) exceed %lld bins",
                  what, nx, nz, (long long)MCI_MAX_BINS);
        return false;
    }
    return true;
}

void xy_grid_describe(double dx, int nx, const char *prefix, textbuf *t)
{
    textbuf_add(t, "%s" XY_LINE_START "%d x %d cells of ", prefix, nx, nx);
    textbuf_add_double(t, dx);
    textbuf_add(t, " cm centred on the entry point\n");
}

bool xy_grid_parse_line(const char *line, double *dx, int *nx)
{
    int a = 0, b = 0, at = 0;
    double side = 0.0;
    if (sscanf(line, XY_LINE_START "%d x %d cells of %lf cm centred on the entry point%n", &a, &b,
               &side, &at) != 3 ||
        at == 0 || line[at + strspn(line + at, " \t\r")] != '\0' || a != b)
        return false;
    *dx = side;
    *nx = a;
    return true;
}
