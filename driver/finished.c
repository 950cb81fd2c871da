/* A finished run's outputs as one unit (driver/finished.h). */
#include "finished.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "hash.h"
#include "mco.h"
#include "resume.h"
#include "tm_limits.h"

bool finished_identity(const driver_options *opt, const mci_run *run, const char *physics,
                       summary_identity *id, tm_error *err)
{
    memset(id, 0, sizeof *id);
    char *input = checkpoint_input_text(run, opt->score_absorption,
                                        opt->max_steps ? opt->max_steps : TM_MAX_STEPS_PER_PHOTON);
    if (!input) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    id->seed = opt->seed;
    id->optics_set = run->optics_set;
    id->photons = (uint64_t)run->photons;
    id->input_digest = hash_fnv1a(HASH_FNV1A_START, input, strlen(input));
    snprintf(id->physics, sizeof id->physics, "%s", physics);
    free(input);
    return true;
}

/* The first way the outputs' identity differs from this run's, or false. */
static bool differs(const summary_identity *had, const summary_identity *id, char *what,
                    size_t size)
{
    if (had->seed != id->seed)
        snprintf(what, size, "of seed %" PRIu64 ", this run has seed %" PRIu64, had->seed,
                 id->seed);
    else if (had->photons != id->photons)
        snprintf(what, size, "of %" PRIu64 " photons, this run has %" PRIu64, had->photons,
                 id->photons);
    else if (had->input_digest != id->input_digest)
        snprintf(what, size,
                 "of another input (its layers, grid, -A, --max-steps, --path-lengths or --source "
                 "differ)");
    else if (!resume_physics_same(had->physics, id->physics, id->optics_set))
        snprintf(what, size, "of other physics code (%s; this tmcml: %s)", had->physics,
                 id->physics);
    else
        return false;
    return true;
}

bool finished_check(const run_paths *paths, const summary_identity *id, FILE *notes, bool *done,
                    tm_error *err)
{
    *done = false;
    bool mco = output_exists(paths->mco), json = output_exists(paths->json);
    if (!mco && !json)
        return true;
    if (!mco || !json) {
        if (notes)
            fprintf(notes,
                    "tmcml: %s without %s (a run cut short between the two): simulating "
                    "it again\n",
                    mco ? paths->mco : paths->json, mco ? paths->json : paths->mco);
        return true;
    }
    summary_identity had;
    uint64_t mco_digest;
    if (!summary_read_identity(paths->json, &had, err) ||
        !mco_read_digest(paths->mco, &mco_digest, err))
        return false;
    char what[700];
    if (had.partial || mco_digest != had.tallies_digest) {
        error_set(err, paths->json, 0,
                  "%s and this summary are not of one run (tallies fnv1a64:%016" PRIx64
                  " and fnv1a64:%016" PRIx64 "): delete both to run it again",
                  paths->mco, mco_digest, had.tallies_digest);
        return false;
    }
    if (differs(&had, id, what, sizeof what)) {
        error_set(err, paths->json, 0,
                  "holds a finished run %s: --resume leaves it alone; delete it and %s to run "
                  "this one, or give this run another output name",
                  what, paths->mco);
        return false;
    }
    /* --npz: a finished pair without its .npz is simulated again for it
     * (the .mco's 5 digits cannot make it; the .mco comes out the same). */
    if (paths->npz && !output_exists(paths->npz)) {
        if (notes)
            fprintf(notes, "tmcml: %s is missing (--npz): simulating its run again\n", paths->npz);
        return true;
    }
    *done = true;
    return true;
}
