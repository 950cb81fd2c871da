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
#include "run_options.h"
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
    /* MCML's two lines: the 1-D arrays, then the 2-D ones. */
    fprintf(f, "# ");
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        if (output_table[i].rank == 1 && !output_table[i].option)
            fprintf(f, "%s, ", output_table[i].name);
    fprintf(f, "\n# ");
    const char *sep = "";
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        if (output_table[i].rank > 1 && !output_table[i].option) {
            fprintf(f, "%s%s", sep, output_table[i].name);
            sep = ", ";
        }
    fprintf(f, " \n####\n\n");
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

/* A section of output_table[]: its title lines, its numbers (a line each,
 * or five a line counted over the whole array as MCML does), a blank line.
 * The arrays' "%12.4E" is printed by number_text.c (printf's text at a
 * quarter of its cost), in blocks written with fwrite. */
static void mco_write_array(FILE *f, const output_array *o, const double *v, uint64_t n)
{
    fprintf(f, "%s\n", o->mco_title);
    bool fast = strcmp(o->mco_number, "%12.4E") == 0;
    char block[8192];
    size_t used = 0;
    for (uint64_t i = 0; i < n; i++) {
        if (used > sizeof block - 2 * NUMBER_TEXT_SIZE) {
            fwrite(block, 1, used, f);
            used = 0;
        }
        if (fast) {
            used += (size_t)number_e12_4(v[i], block + used);
        } else {
            int len = snprintf(block + used, NUMBER_TEXT_SIZE, o->mco_number, v[i]);
            used += len < 0 ? 0 : len < NUMBER_TEXT_SIZE ? (size_t)len : NUMBER_TEXT_SIZE - 1;
        }
        block[used++] = o->mco_per_line == 1 ? '\n' : ' ';
        if (o->mco_per_line > 1 && (i + 1) % (uint64_t)o->mco_per_line == 0)
            block[used++] = '\n';
    }
    fwrite(block, 1, used, f);
    fprintf(f, "\n");
}

bool mco_write_stream(FILE *stream, const mci_run *run, const mcml_result *res, const char *comment)
{
    if (res->nr != run->nr || res->nz != run->nz || res->na != run->na ||
        res->num_layers != run->num_layers)
        return false;
    mco_write_version(stream, run->out_format);
    if (!source_is_pencil(&run->source)) { /* before the comment, which readers take as the last */
        char what[200], text[160];
        source_describe(&run->source, what, sizeof what);
        source_text(&run->source, text, sizeof text);
        fprintf(stream, "# Source: %s (" MCO_SOURCE_WORD "%s)\n", what, text);
    }
    /* What the run asked for besides MCML's outputs (time bins, a detector):
     * a comment line each, none for a plain run, before the provenance,
     * which stays the last comment before InParm (mco_read's comment). */
    /* Only what the result has (a convolved result has no time arrays):
     * mco_read expects the sections the comments announce. */
    mci_run asked = *run;
    if (!res->rd_t)
        asked.time_nt = 0;
    if (!res->rd_fiber)
        asked.fiber_count = 0;
    if (!res->rd_fx)
        asked.fx_count = 0;
    if (!res->rd_ac)
        asked.mod_count = 0;
    if (!res->rd_xy)
        asked.xy_nx = 0;
    textbuf options = TEXTBUF_INIT;
    run_options_describe(&asked, "# ", &options);
    char *text = textbuf_take(&options);
    fputs(text ? text : "", stream);
    free(text);
    fprintf(stream, "# %s\n\n", comment ? comment : "");
    mco_write_inparm(stream, run);
    mco_write_rat(stream, res);
    output_grid g = result_grid(res);
    /* MCML's sections, then the optional ones the result has (the path
     * lengths: extra sections after Tt_ra, which MCML's readers never
     * reach), but for those the .mco does not hold (no title). */
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        const output_array *o = &output_table[i];
        if (res->array[i] && o->mco_title)
            mco_write_array(stream, o, res->array[i] + output_first(o), output_bins(o, &g));
    }
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
