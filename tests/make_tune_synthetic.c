/* Makes the hand-made tune recording tests/data/tune/synthetic_*: the staged
 * search run against a made-up GPU (a model, not a measurement), recorded as
 * `tmcml tune --csv` records a real one, so that test_tune_replay has a
 * recording to replay before real ones (docs/tuning.md) are dropped beside it.
 *
 *   build/tests/make_tune_synthetic tests/data/mci/mcml_example.mci \
 *       tests/data/tune/synthetic_mcml_example
 * writes PREFIX.csv and PREFIX.replay.json.
 *
 * The model (deterministic; its numbers say nothing about real GPUs):
 *   - the device: sm_90, 132 SMs, 228 KB of shared memory per SM (227 KB per
 *     block), 2048 threads and 65536 registers per SM;
 *   - a steady rate of 2e8 photons/s times a factor per knob (block size,
 *     occupancy, captured tile area, 32-bit entries, layers in shared memory,
 *     the two caches, clusters) and a +-0.4 % wobble per repeat; the whole
 *     launch 10 % slower than its steady part;
 *   - every correct variant gives the same tallies digest for the same
 *     photons and seed; the variant without the edge cache is planted as
 *     buggy (another digest) and 1.5x faster, so the gate must reject it;
 *   - the test bias (--debug-wrong-candidate) changes the digest too;
 *   - deposit events fall off as exp(-ir/6 - iz/9) from the beam;
 *   - a first compile of a spec costs 0.25 s, a virtual clock advances by
 *     the compiles and kernel times (plus 10 ms a run), so the budget (20 s)
 *     cuts the search as a real one would be cut. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "mci.h"
#include "recorder.h"
#include "report.h"
#include "search.h"

#define MODEL_BUDGET_SECONDS 20.0

typedef struct model {
    tune_device device;
    double clock;
    char **keys; /* specs run so far (compiled once) */
    int *runs;   /* runs of each */
    int count;
} model;

static double block_factor(int block)
{
    switch (block) {
    case 128: return 0.90;
    case 256: return 1.00;
    case 512: return 1.05;
    case 1024: return 0.85;
    default: return 0.80;
    }
}

static double rate_of(const kernel_spec *s, int repeat, uint64_t key_hash)
{
    const kernel_knobs *k = &s->knobs;
    double threads = (double)k->min_blocks_per_sm * k->block_size;
    double rate = 2e8 * block_factor(k->block_size);
    rate *= k->min_blocks_per_sm == 0 ? 0.97 : threads >= 2048 ? 1.0 : 0.9 + 0.1 * threads / 2048;
    double area = (double)k->tile_nr * k->tile_nz / ((double)s->nr * s->nz);
    rate *= 1 + 0.5 * (area < 1 ? area : 1);
    rate *= k->entry_bits == 32 ? 1.03 : 1.0;
    rate *= k->layer_placement == SPEC_LAYERS_SHARED ? 1.08 : 1.0;
    rate *= k->last_bin_cache ? 1.01 : 1.0;
    rate *= k->edge_cache ? 1.0 : 1.5; /* the planted bug: fast and wrong */
    rate *= 1 + 0.02 * log2(k->cluster_size > 1 ? k->cluster_size : 1);
    uint64_t h = hash_fnv1a(key_hash, &repeat, sizeof repeat);
    return rate * (1 + 0.004 * ((double)(h % 11) - 5) / 5);
}

static uint64_t digest_of(const kernel_spec *s, uint64_t photons, uint64_t seed)
{
    uint64_t d = hash_fnv1a(HASH_FNV1A_START, &photons, sizeof photons);
    d = hash_fnv1a(d, &seed, sizeof seed);
    if (s->debug_bias || !s->knobs.edge_cache)
        d ^= 0xbad;
    return d;
}

/* Index of key among the specs run so far, added when new; -1 when out of
 * memory. */
static int seen(model *m, const char *key)
{
    for (int i = 0; i < m->count; i++)
        if (strcmp(m->keys[i], key) == 0)
            return i;
    char **keys = realloc(m->keys, (size_t)(m->count + 1) * sizeof *keys);
    int *runs = keys ? realloc(m->runs, (size_t)(m->count + 1) * sizeof *runs) : NULL;
    if (keys)
        m->keys = keys;
    if (!runs || !(m->keys[m->count] = strdup(key)))
        return -1;
    m->runs = runs;
    m->runs[m->count] = 0;
    return m->count++;
}

static bool deposits(const kernel_spec *s, uint64_t photons, tune_measurement *out)
{
    out->nr = s->nr;
    out->nz = s->nz;
    out->deposits = malloc((size_t)s->nr * (size_t)s->nz * sizeof *out->deposits);
    if (!out->deposits)
        return false;
    for (int ir = 0; ir < s->nr; ir++)
        for (int iz = 0; iz < s->nz; iz++)
            out->deposits[ir * s->nz + iz] =
                (uint64_t)floor((double)photons * 0.05 * exp(-ir / 6.0 - iz / 9.0));
    return true;
}

static bool model_run(void *ctx, const mci_run *run, const kernel_spec *spec, uint64_t photons,
                      uint64_t seed, tune_measurement *out, tm_error *err)
{
    (void)run;
    model *m = ctx;
    memset(out, 0, sizeof *out);
    char *key = spec_key(spec);
    int i = key ? seen(m, key) : -1;
    uint64_t key_hash = key ? hash_fnv1a(HASH_FNV1A_START, key, strlen(key)) : 0;
    free(key);
    if (i < 0 || (spec->count_deposits && !deposits(spec, photons, out))) {
        error_set(err, NULL, 0, "out of memory");
        return false;
    }
    double rate = rate_of(spec, m->runs[i]++, key_hash);
    out->digest = digest_of(spec, photons, seed);
    out->steps = 37.5 * (double)photons;
    out->steady_photons_per_second = rate;
    out->kernel_seconds = (double)photons / (0.9 * rate);
    out->compile_seconds = m->runs[i] == 1 ? 0.25 : 0;
    double threads = (double)spec->knobs.min_blocks_per_sm * spec->knobs.block_size;
    out->registers = threads >= 2048 ? 32 : 40;
    out->blocks_per_sm = spec->knobs.min_blocks_per_sm > 0 ? spec->knobs.min_blocks_per_sm
                                                           : 2048 / spec->knobs.block_size;
    m->clock += out->compile_seconds + out->kernel_seconds + 0.01;
    return true;
}

static bool model_usable(void *ctx)
{
    (void)ctx;
    return true;
}

static double model_now(void *ctx) { return ((const model *)ctx)->clock; }

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: make_tune_synthetic INPUT.mci PREFIX\n");
        return 2;
    }
    model m = {.clock = 1000};
    snprintf(m.device.name, sizeof m.device.name, "synthetic GPU (hand-made model)");
    m.device.cc_major = 9;
    m.device.sm_count = 132;
    m.device.shared_per_block_optin = 232448;
    m.device.shared_per_sm = 233472;
    m.device.max_threads_per_sm = 2048;
    m.device.regs_per_sm = 65536;
    m.device.driver_version = 13000;
    tune_runner inner = {&m.device, model_run, model_usable, model_now, &m}, recorded;
    tune_recorder rec;
    tune_recorder_init(&rec, &inner, &recorded);
    tune_options opt;
    tune_options_init(&opt);
    opt.budget_seconds = MODEL_BUDGET_SECONDS;
    tm_error err = {0};
    mci_file file;
    tune_result res;
    memset(&res, 0, sizeof res);
    size_t n = strlen(argv[2]) + 16;
    char *csv = malloc(n), *json = malloc(n);
    bool ok = csv && json && mci_read(argv[1], &file, &err);
    if (ok) {
        snprintf(csv, n, "%s.csv", argv[2]);
        snprintf(json, n, "%s.replay.json", argv[2]);
        ok = tune_search(&recorded, &file.runs[0], true, &opt, &res, &err) &&
             tune_write_csv(csv, &res, &err) &&
             tune_recorder_write(&rec, json, &file.runs[0], true, &opt, &err);
        mci_free(&file);
    }
    if (!ok)
        error_print(stderr, &err);
    else
        printf("%d candidates, %d mismatches, winner %d; %s and %s written\n", res.count,
               res.mismatches, res.winner, csv, json);
    tune_result_free(&res);
    tune_recorder_free(&rec);
    for (int i = 0; i < m.count; i++)
        free(m.keys[i]);
    free(m.keys);
    free(m.runs);
    free(csv);
    free(json);
    return ok ? 0 : 1;
}
