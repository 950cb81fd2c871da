/* The options of `tmcml lut` as one table (lut_option_table.h): the rows
 * the parser, the usage and "did you mean" read, then what each sets. */
#include "lut_option_table.h"

#include <string.h>

#include "lut_table.h"
#include "option_value.h"
#include "precision.h"
#include "spatial_frequencies.h"
#include "tm_limits.h"

/* In groups, each applied by its own function (lut_option_apply). */
enum lut_option_id {
    /* the layer's numbers: apply_number */
    LUT_N,
    LUT_N_ABOVE,
    LUT_N_BELOW,
    LUT_G,
    LUT_D,
    LUT_DR,
    LUT_NR,
    LUT_THREADS,
    LUT_GPU,
    /* the errors: apply_errors */
    LUT_STDERR,
    LUT_PRECISION,
    LUT_PRECISION_OF,
    LUT_MAX_PHOTONS,
    /* the rest: apply_other */
    LUT_MUA,
    LUT_MUSP,
    LUT_OUTPUT,
    LUT_PHOTONS,
    LUT_SEED,
    LUT_STRATEGY,
    LUT_SPATIAL_FREQUENCIES,
    LUT_ENGINE,
    LUT_CHECKPOINT_EVERY,
    LUT_RESUME,
    LUT_QUIET,
    LUT_HELP
};

static const cli_option rows[] = {
    {"--mua", NULL, "AXIS", "absorption coefficients (1/cm)", LUT_MUA, 0, 0, 0},
    {"--musp", NULL, "AXIS", "reduced scattering coefficients mus' (1/cm)", LUT_MUSP, 0, 0, 0},
    {"--output", "-o", "OUT",
     "write OUT.csv and OUT.npz (an ending .csv or .npz of OUT\n"
     "is dropped; OUT's directory is made when missing);\n"
     "existing files are replaced atomically",
     LUT_OUTPUT, 0, 0, 0},
    {"--n", NULL, "N", "refractive index of the layer (default 1.4)", LUT_N, 0, 0, 0},
    {"--n-above", NULL, "N", "of the medium above (default 1.0)", LUT_N_ABOVE, 0, 0, 0},
    {"--n-below", NULL, "N", "of the medium below (default 1.0)", LUT_N_BELOW, 0, 0, 0},
    {"--g", NULL, "G", "anisotropy, -1 to below 1 (default 0.9)", LUT_G, 0, 0, 0},
    {"--d", NULL, "D",
     "thickness in cm, or inf (default inf: semi-infinite,\n"
     "simulated as 1e8 cm)",
     LUT_D, 0, 0, 0},
    {"--nr", NULL, "N", "rings of Rd_r (default 100)", LUT_NR, 0, 0, 0},
    {"--dr", NULL, "DR", "ring width in cm (default 0.01)", LUT_DR, 0, 0, 0},
    {"--photons", "-N", "N", "photons per point (default 100000; 1e6 is accepted)", LUT_PHOTONS, 0,
     0, 0},
    {"--seed", "-S", "SEED", "random seed (default 1)", LUT_SEED, 0, 0, 0},
    {"--stderr", NULL, NULL,
     "each point's standard errors (Rd_stderr, Rd_r_stderr and\n"
     "its photons in OUT.npz and OUT.csv; docs/lut.md)",
     LUT_STDERR, 0, 0, 0},
    {"--precision", NULL, "P",
     "each point simulated until the relative standard error\n"
     "of --precision-of's quantity is at most P (2% or 0.02),\n"
     "a point of high absorption taking more photons than one\n"
     "of low; -N is then a point's most photons (at least\n"
     "64000); implies --stderr and --strategy runs; a point\n"
     "short of P at its most is an error (exit 1, files\n"
     "written)",
     LUT_PRECISION, 0, 0, 0},
    {"--precision-of", NULL, "Q", "Rd (default), Rd_r[I] or the worst of Rd_r[I:J]",
     LUT_PRECISION_OF, 0, 0, 0},
    {"--max-photons", NULL, "N", "a point's most photons with --precision (default -N)",
     LUT_MAX_PHOTONS, 0, 0, 0},
    {"--strategy", NULL, "auto|sets|runs",
     "sets: each mus' one simulation whose mua are absorption\n"
     "sets (one history for all mua of a mus': their errors\n"
     "are correlated); runs: each point its own simulation, the\n"
     "mus' of a mua batched (independent errors across mua);\n"
     "auto (default): sets, but runs with --precision, and on\n"
     "the GPU with --spatial-frequencies",
     LUT_STRATEGY, 0, 0, 0},
    {"--spatial-frequencies", NULL, "LIST",
     "also each point's R(fx), the reflectance's Hankel\n"
     "transform, at spatial frequencies in 1/cm (Rd_fx; as\n"
     "tmcml run's: 0,0.5,1 or 0:0.5:26, /mm after the list\n"
     "for 1/mm): an SFDI table (docs/lut.md)",
     LUT_SPATIAL_FREQUENCIES, 0, 0, 0},
    {"--engine", NULL, "cpu|gpu|auto", "engine (default auto: the GPU if one is usable)",
     LUT_ENGINE, 0, 0, 0},
    {"--gpu", NULL, "K", "use GPU K (default 0)", LUT_GPU, 0, 0, 0},
    {"--threads", NULL, "N", "CPU engine threads (default 0: every core)", LUT_THREADS, 0, 0, 0},
    {"--checkpoint-every", NULL, "S",
     "keep the simulations done in OUT.lut.ckpt every S\n"
     "seconds (default 600; 0: only when a signal stops it)",
     LUT_CHECKPOINT_EVERY, 0, 0, 0},
    {"--resume", NULL, NULL,
     "continue the table OUT.lut.ckpt holds (a stopped one):\n"
     "the same options end with the files of an uninterrupted\n"
     "table, byte for byte; with no checkpoint, from the start",
     LUT_RESUME, 0, 0, 0},
    {"--quiet", "-q", NULL, "no progress and no report", LUT_QUIET, 0, 0, 0},
    {"--help", "-h", NULL, "this text", LUT_HELP, 0, 0, 0},
};

const cli_option_table lut_options = {"lut: ", rows, (int)(sizeof rows / sizeof *rows)};

static bool strategy_of(const char *text, tmcml_lut_strategy *out, tm_error *err)
{
    for (lut_strategy s = LUT_AUTO; s <= LUT_RUNS; s++)
        if (strcmp(text, lut_strategy_name(s)) == 0) {
            *out = (tmcml_lut_strategy)s;
            return true;
        }
    error_set(err, NULL, 0, "--strategy: expected auto, sets or runs (got \"%s\")", text);
    return false;
}

_Static_assert(TMCML_ENGINE_AUTO == 0 && TMCML_ENGINE_CPU == 1 && TMCML_ENGINE_GPU == 2,
               "option_engine's order");

static bool engine_of(const char *text, tmcml_engine *out, tm_error *err)
{
    int e;
    if (!option_engine(text, &e, err))
        return false;
    *out = (tmcml_engine)e;
    return true;
}

/* The numbers of the layer and the grid, and the engine's counts. */
static bool apply_number(int id, const char *name, const char *v, lut_args *a, tm_error *err)
{
    tmcml_lut_spec *sp = &a->req.spec;
    double *reals[] = {[LUT_N] = &sp->n,
                       [LUT_N_ABOVE] = &sp->n_above,
                       [LUT_N_BELOW] = &sp->n_below,
                       [LUT_G] = &sp->g,
                       [LUT_D] = &sp->d,
                       [LUT_DR] = &sp->dr};
    if (id <= LUT_DR)
        return option_number(name, v, id == LUT_D, reals[id], err);
    if (id == LUT_NR)
        return option_whole(name, v, 1, (int)MCI_MAX_BINS, &sp->nr, err);
    if (id == LUT_THREADS)
        return option_whole(name, v, 0, 4096, &a->req.opt.threads, err);
    return option_whole(name, v, 0, 1023, &a->req.opt.gpu, err);
}

/* --stderr, --precision P, --precision-of Q and --max-photons N (as
 * `tmcml run`'s). */
static bool apply_errors(int id, const char *v, lut_args *a, tm_error *err)
{
    tmcml_lut_errors *e = &a->req.errors;
    a->req.errors_asked = true;
    switch (id) {
    case LUT_STDERR: return true;
    case LUT_PRECISION: return precision_parse_value(v, "--precision", &e->precision, err);
    case LUT_PRECISION_OF: e->of = v; return true;
    default: return option_count("--max-photons", v, 9.2e18, &e->max_photons, err);
    }
}

static bool apply_other(int id, const char *v, lut_args *a, tm_error *err)
{
    switch (id) {
    case LUT_MUA: a->mua_text = v; return true;
    case LUT_MUSP: a->musp_text = v; return true;
    case LUT_OUTPUT: a->output = v; return true;
    case LUT_PHOTONS: return option_count("--photons", v, 9.2e18, &a->req.opt.photons, err);
    case LUT_SEED: return option_seed("--seed", v, &a->req.opt.seed, err);
    case LUT_STRATEGY: return strategy_of(v, &a->req.spec.strategy, err);
    case LUT_SPATIAL_FREQUENCIES:
        return spatial_frequencies_parse(v, a->req.fx, &a->req.fx_count, err);
    case LUT_ENGINE: return engine_of(v, &a->req.opt.engine, err);
    case LUT_CHECKPOINT_EVERY: return option_checkpoint_every(v, &a->req.ck.every, err);
    case LUT_RESUME: a->req.ck.resume = 1; return true;
    case LUT_QUIET: a->req.quiet = true; return true;
    default: /* LUT_HELP */ a->help = true; return true;
    }
}

bool lut_option_apply(const option_read *o, lut_args *a, tm_error *err)
{
    int id = o->row->id;
    if (id <= LUT_GPU)
        return apply_number(id, o->row->name, o->value, a, err);
    if (id <= LUT_MAX_PHOTONS)
        return apply_errors(id, o->value, a, err);
    return apply_other(id, o->value, a, err);
}
