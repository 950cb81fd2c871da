#include "mco.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fs.h"
#include "number_text.h"
#include "tmcml_config.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- writing: MCML 1.2.2's WriteResult, format string for format string ---- */

static void mco_write_version(FILE *f, char format)
{
    /* MCML writes "B1" for a binary request but ASCII data all the same. */
    bool binary = format == 'B' || format == 'b';
    fprintf(f, "%s \t# Version number of the file format.\n\n", binary ? "B1" : "A1");
    fprintf(f, "####\n# Data categories include: \n");
    fprintf(f, "# InParm, RAT, \n");
    fprintf(f, "# A_l, A_z, Rd_r, Rd_a, Tt_r, Tt_a, \n");
    fprintf(f, "# A_rz, Rd_ra, Tt_ra \n####\n\n");
}

/* MCML builds this text in PunchTime ("User time: %8.0lf sec = %8.2lf hr.  %s"
 * with the message " Simulation time of this run."), hence three spaces.
 * (MCML 1.2.1 and earlier printed the seconds as %8.2lf.) */
void mco_time_comment(double seconds, char *buf, size_t size)
{
    snprintf(buf, size, "User time: %8.0f sec = %8.2f hr.   Simulation time of this run.", seconds,
             seconds / 3600.0);
}

void mco_provenance(char *buf, size_t size, const char *engine, uint64_t seed,
                    bool score_absorption, uint64_t tallies_digest, const char *partial,
                    const char *json_name)
{
    snprintf(buf, size,
             "tmcml %s, %s engine, seed %llu, %s, " MCO_DIGEST_WORD "%016llx.%s Timings: %s.",
             TMCML_VERSION, engine, (unsigned long long)seed,
             score_absorption ? "absorption scored" : "-A: absorption not scored",
             (unsigned long long)tallies_digest, partial ? partial : "", json_name);
}

static void mco_write_inparm(FILE *f, const mci_run *run)
{
    const mci_layer *l = run->layers;
    fprintf(f, "InParm \t\t\t# Input parameters. cm is used.\n");
    /* MCML writes "A" here whatever the input said. */
    fprintf(f, "%s \tA\t\t# output file name, ASCII.\n", run->out_name);
    fprintf(f, "%" PRId64 " \t\t\t# No. of photons\n", run->photons);
    fprintf(f, "%G\t%G\t\t# dz, dr [cm]\n", run->dz, run->dr);
    fprintf(f, "%d\t%d\t%d\t# No. of dz, dr, da.\n\n", run->nz, run->nr, run->na);
    fprintf(f, "%d\t\t\t\t\t# Number of layers\n", run->num_layers);
    fprintf(f, "#n\tmua\tmus\tg\td\t# One line for each layer\n");
    fprintf(f, "%G\t\t\t\t\t# n for medium above\n", l[0].n);
    for (int i = 1; i <= run->num_layers; i++)
        fprintf(f, "%G\t%G\t%G\t%G\t%G\t# layer %d\n", l[i].n, l[i].mua, l[i].mus, l[i].g,
                l[i].z1 - l[i].z0, i);
    fprintf(f, "%G\t\t\t\t\t# n for medium below\n\n", l[run->num_layers + 1].n);
}

static void mco_write_rat(FILE *f, const mcml_result *res)
{
    fprintf(f, "RAT #Reflectance, absorption, transmission. \n");
    fprintf(f, "%-14.6G \t#Specular reflectance [-]\n", res->rsp);
    fprintf(f, "%-14.6G \t#Diffuse reflectance [-]\n", res->rd);
    fprintf(f, "%-14.6G \t#Absorbed fraction [-]\n", res->a);
    fprintf(f, "%-14.6G \t#Transmittance [-]\n", res->tt);
    fprintf(f, "\n");
}

/* The numbers v[0 .. n-1] as "%12.4E", each followed by after (a space or
 * a newline) and, in a 2-D array, a newline after every fifth (MCML counts
 * them over the whole array); built in blocks and written with fwrite, the
 * text printf's (runtime/io/number_text.h). */
static void mco_write_numbers(FILE *f, const double *v, long n, char after, bool fives)
{
    char block[8192];
    size_t used = 0;
    for (long i = 0; i < n; i++) {
        if (used > sizeof block - 2 * NUMBER_TEXT_SIZE) {
            fwrite(block, 1, used, f);
            used = 0;
        }
        used += (size_t)number_e12_4(v[i], block + used);
        block[used++] = after;
        if (fives && (i + 1) % 5 == 0)
            block[used++] = '\n';
    }
    fwrite(block, 1, used, f);
}

static void mco_write_1d(FILE *f, const char *header, const double *v, int n)
{
    fprintf(f, "%s\n", header);
    mco_write_numbers(f, v, n, '\n', false);
    fprintf(f, "\n");
}

/* Five numbers a line, counted over the whole array as MCML does. */
static void mco_write_2d(FILE *f, const char *const header[6], const double *v, int rows, int cols)
{
    for (int i = 0; i < 6; i++)
        fprintf(f, "%s\n", header[i]);
    mco_write_numbers(f, v, (long)rows * cols, ' ', true);
    fprintf(f, "\n");
}

static const char *const mco_a_rz_header[6] = {
    "# A[r][z]. [1/cm3]",
    "# A[0][0], [0][1],..[0][nz-1]",
    "# A[1][0], [1][1],..[1][nz-1]",
    "# ...",
    "# A[nr-1][0], [nr-1][1],..[nr-1][nz-1]",
    "A_rz",
};
static const char *const mco_rd_ra_header[6] = {
    "# Rd[r][angle]. [1/(cm2sr)].",
    "# Rd[0][0], [0][1],..[0][na-1]",
    "# Rd[1][0], [1][1],..[1][na-1]",
    "# ...",
    "# Rd[nr-1][0], [nr-1][1],..[nr-1][na-1]",
    "Rd_ra",
};
static const char *const mco_tt_ra_header[6] = {
    "# Tt[r][angle]. [1/(cm2sr)].",
    "# Tt[0][0], [0][1],..[0][na-1]",
    "# Tt[1][0], [1][1],..[1][na-1]",
    "# ...",
    "# Tt[nr-1][0], [nr-1][1],..[nr-1][na-1]",
    "Tt_ra",
};

bool mco_write_stream(FILE *stream, const mci_run *run, const mcml_result *res, const char *comment)
{
    if (res->nr != run->nr || res->nz != run->nz || res->na != run->na ||
        res->num_layers != run->num_layers)
        return false;
    mco_write_version(stream, run->out_format);
    fprintf(stream, "# %s\n\n", comment ? comment : "");
    mco_write_inparm(stream, run);
    mco_write_rat(stream, res);
    fprintf(stream, "A_l #Absorption as a function of layer. [-]\n");
    for (int i = 1; i <= run->num_layers; i++)
        fprintf(stream, "%12.4G\n", res->a_l[i]);
    fprintf(stream, "\n");
    mco_write_1d(stream, "A_z #A[0], [1],..A[nz-1]. [1/cm]", res->a_z, run->nz);
    mco_write_1d(stream, "Rd_r #Rd[0], [1],..Rd[nr-1]. [1/cm2]", res->rd_r, run->nr);
    mco_write_1d(stream, "Rd_a #Rd[0], [1],..Rd[na-1]. [sr-1]", res->rd_a, run->na);
    mco_write_1d(stream, "Tt_r #Tt[0], [1],..Tt[nr-1]. [1/cm2]", res->tt_r, run->nr);
    mco_write_1d(stream, "Tt_a #Tt[0], [1],..Tt[na-1]. [sr-1]", res->tt_a, run->na);
    mco_write_2d(stream, mco_a_rz_header, res->a_rz, run->nr, run->nz);
    mco_write_2d(stream, mco_rd_ra_header, res->rd_ra, run->nr, run->na);
    mco_write_2d(stream, mco_tt_ra_header, res->tt_ra, run->nr, run->na);
    return !ferror(stream);
}

typedef struct mco_write_ctx {
    const mci_run *run;
    const mcml_result *res;
    const char *comment;
} mco_write_ctx;

static bool mco_write_cb(FILE *stream, void *ctx, tm_error *err)
{
    const mco_write_ctx *c = ctx;
    (void)err; /* fs_write_atomic reports the system's reason */
    return mco_write_stream(stream, c->run, c->res, c->comment);
}

bool mco_write(const char *path, const mci_run *run, const mcml_result *res, const char *comment,
               tm_error *err)
{
    if (res->nr != run->nr || res->nz != run->nz || res->na != run->na ||
        res->num_layers != run->num_layers) {
        error_set(err, path, 0,
                  "result grid %dx%dx%d with %d layers does not match the run's "
                  "%dx%dx%d with %d layers (nr, nz, na)",
                  res->nr, res->nz, res->na, res->num_layers, run->nr, run->nz, run->na,
                  run->num_layers);
        return false;
    }
    mco_write_ctx ctx = {run, res, comment};
    return fs_write_atomic(path, mco_write_cb, &ctx, err);
}
