/* Batches (runtime/engine/batch.h, docs/batches.md): many runs of one
 * kernel shape in one index space.
 *   index   the index space: parts, ranges, slots' photons, the order
 *   cpu     the CPU engine: every run of a batch bit-identical to the run
 *           alone, in any order, thread count, and with a run split in two
 *           parts of one slot
 *   gpu     the GPU engine (label gpu; exit 77 without one): the batch
 *           kernel as batches choose it (one launch, one engine) and bare
 *           (no register cache, launches of 1234 indices, two engines sharing
 *           the batch), bit-identical to each run alone with its own kernel;
 *           -A too; the runs taken as they finish (gpu_pool_job's
 *           slot_done): every run once and whole, on one engine or two, in
 *           one launch or launches of part of the batch (the pool tells a
 *           run once it has ended on every launch and engine: gpu_pool.c) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "batch.h"
#include "check.h"
#include "cpu.h"
#include "gpu.h"
#include "engine_device.h"
#include "gpu_runner.h"
#include "gpu_pool.h"
#include "mci.h"
#include "variant.h"

#define SKIP 77
#define SEED 99u

/* Four runs of one grid (40 x 30 x 5, three layers): other optics, other
 * photon counts, a glass layer on top in the third, and the fourth with
 * twice the thickness of the first layer. */
static const char *input = "1.0\n4\n"
                           "a.mco A\n3000\n0.01 0.01\n30 40 5\n3\n1.0\n"
                           "1.37 1 100 0.9 0.1\n1.37 1 10 0 0.1\n1.37 2 10 0.7 0.2\n1.0\n"
                           "b.mco A\n2500\n0.01 0.01\n30 40 5\n3\n1.0\n"
                           "1.4 0.1 50 0.8 0.1\n1.33 5 30 0.5 0.1\n1.4 0.5 80 0.95 0.2\n1.0\n"
                           "c.mco A\n2000\n0.01 0.01\n30 40 5\n3\n1.0\n"
                           "1.5 0 0 0 0.05\n1.37 3 100 0.9 0.1\n1.37 10 10 0 0.3\n1.5\n"
                           "d.mco A\n1500\n0.01 0.01\n30 40 5\n3\n1.2\n"
                           "1.37 0.05 200 0.9 0.2\n1.37 1 10 0 0.1\n1.37 2 10 0.7 0.2\n1.0\n";

#define RUNS 4

static bool parse(mci_file *f)
{
    tm_error err;
    if (!mci_parse(input, "batch input", f, &err)) {
        error_print(stderr, &err);
        return false;
    }
    return true;
}

static bool init_all(tally_set *t, int n, const mci_run *grid)
{
    for (int i = 0; i < n; i++)
        if (!tally_set_init(&t[i], grid->nr, grid->nz, grid->na))
            return false;
    return true;
}

static void free_all(tally_set *t, int n)
{
    for (int i = 0; i < n; i++)
        tally_set_free(&t[i]);
}

/* ---- the index space ---------------------------------------------------- */

typedef struct seen {
    int count;
    int part[8];
    uint64_t first[8], n[8];
} seen;

static bool note(void *ctx, int part, uint64_t first, uint64_t n, tm_error *err)
{
    (void)err;
    seen *s = ctx;
    s->part[s->count] = part;
    s->first[s->count] = first;
    s->n[s->count] = n;
    return ++s->count < 8;
}

static void test_index(void)
{
    mci_file f;
    CHECK(parse(&f));
    const mci_run *r = f.runs;
    /* Run 0 in two parts (one slot), runs 1 and 2 whole. */
    batch_part parts[] = {
        {&r[1], 0, 100, 1}, {&r[0], 500, 50, 0}, {&r[2], 0, 10, 2}, {&r[0], 0, 500, 0}};
    photon_batch b;
    tm_error err;
    CHECK(photon_batch_init(&b, parts, 4, &err));
    CHECK(photon_batch_size(&b) == 660 && b.slots == 3);
    CHECK(photon_batch_part_at(&b, 0) == 0 && photon_batch_part_at(&b, 99) == 0);
    CHECK(photon_batch_part_at(&b, 100) == 1 && photon_batch_part_at(&b, 149) == 1);
    CHECK(photon_batch_part_at(&b, 150) == 2 && photon_batch_part_at(&b, 160) == 3);
    CHECK(photon_batch_part_at(&b, 659) == 3);
    CHECK(photon_batch_slot_run(&b, 0) == &r[0] && photon_batch_slot_run(&b, 2) == &r[2]);
    /* [90, 170): the end of part 0, part 1, part 2, the start of part 3. */
    seen s = {0};
    CHECK(photon_batch_ranges(&b, 90, 80, note, &s, &err));
    CHECK(s.count == 4);
    CHECK(s.part[0] == 0 && s.first[0] == 90 && s.n[0] == 10);
    CHECK(s.part[1] == 1 && s.first[1] == 500 && s.n[1] == 50);
    CHECK(s.part[2] == 2 && s.first[2] == 0 && s.n[2] == 10);
    CHECK(s.part[3] == 3 && s.first[3] == 0 && s.n[3] == 10);
    seen none = {0};
    CHECK(photon_batch_ranges(&b, 660, 0, note, &none, &err) && none.count == 0);
    uint64_t photons[3] = {0};
    photon_batch_slot_photons(&b, 90, 80, photons);
    CHECK(photons[0] == 60 && photons[1] == 10 && photons[2] == 10);
    photon_batch_free(&b);

    /* Refused: a slot shared by two runs, an empty part, another grid. */
    batch_part shared[] = {{&r[0], 0, 10, 0}, {&r[1], 0, 10, 0}};
    CHECK(!photon_batch_init(&b, shared, 2, &err));
    batch_part empty[] = {{&r[0], 0, 0, 0}};
    CHECK(!photon_batch_init(&b, empty, 1, &err));
    mci_run other;
    CHECK(mci_run_copy(&other, &r[1]));
    other.nz = 7;
    batch_part grids[] = {{&r[0], 0, 10, 0}, {&other, 0, 10, 1}};
    CHECK(!photon_batch_init(&b, grids, 2, &err));
    mci_run_free(&other);

    /* Longest first: run d (mua 0.05 in its thick first layer) before a,
     * then b; the order of equal estimates is kept. */
    batch_part order[] = {{&r[0], 0, 1, 0}, {&r[1], 0, 1, 1}, {&r[3], 0, 1, 3}, {&r[3], 5, 1, 3}};
    batch_order_longest_first(order, 4);
    CHECK(order[0].run == &r[3] && order[0].first == 0 && order[1].first == 5);
    CHECK(batch_steps_estimate(&r[3]) > batch_steps_estimate(&r[0]));
    mci_free(&f);
}

/* ---- the CPU engine ------------------------------------------------------ */

static bool cpu_alone(const mci_run *run, tally_set *t)
{
    cpu_options opt = {.seed = SEED, .threads = 2, .score_absorption = true};
    tm_error err;
    bool ok = cpu_simulate(run, &opt, 0, (uint64_t)run->photons, t, &err);
    if (!ok)
        error_print(stderr, &err);
    return ok;
}

static bool cpu_batch(const batch_part *parts, int count, int threads, tally_set *t)
{
    photon_batch b;
    tm_error err;
    cpu_options opt = {.seed = SEED, .threads = threads, .score_absorption = true};
    bool ok = photon_batch_init(&b, parts, count, &err) && cpu_simulate_batch(&b, &opt, t, &err);
    if (!ok)
        error_print(stderr, &err);
    photon_batch_free(&b);
    return ok;
}

static void test_cpu(void)
{
    mci_file f;
    CHECK(parse(&f));
    const mci_run *r = f.runs;
    tally_set alone[RUNS], forward[RUNS], backward[RUNS];
    CHECK(init_all(alone, RUNS, r) && init_all(forward, RUNS, r) && init_all(backward, RUNS, r));
    for (int i = 0; i < RUNS; i++)
        CHECK(cpu_alone(&r[i], &alone[i]));
    batch_part in_order[RUNS];
    for (int i = 0; i < RUNS; i++)
        in_order[i] = (batch_part){&r[i], 0, (uint64_t)r[i].photons, i};
    CHECK(cpu_batch(in_order, RUNS, 3, forward));
    /* Runs 0 and 2 alone in slots 1 and 3 of a batch whose slots 0 and 2
     * have no parts (the runs a checkpoint found done). */
    tally_set sparse[RUNS];
    CHECK(init_all(sparse, RUNS, r));
    batch_part gaps[] = {{&r[2], 0, 2000, 3}, {&r[0], 0, 3000, 1}};
    CHECK(cpu_batch(gaps, 2, 2, sparse));
    CHECK(tally_set_equal(&alone[0], &sparse[1]) && tally_set_equal(&alone[2], &sparse[3]));
    CHECK(sparse[0].photons == 0 && sparse[2].photons == 0);
    free_all(sparse, RUNS);
    /* Reversed, run 0 split in two parts around the others, one thread. */
    batch_part mixed[] = {{&r[0], 1000, 2000, 0},
                          {&r[3], 0, 1500, 3},
                          {&r[2], 0, 2000, 2},
                          {&r[1], 0, 2500, 1},
                          {&r[0], 0, 1000, 0}};
    CHECK(cpu_batch(mixed, 5, 1, backward));
    for (int i = 0; i < RUNS; i++) {
        CHECK_MSG(tally_set_equal(&alone[i], &forward[i]), "run %d in order", i);
        CHECK_MSG(tally_set_equal(&alone[i], &backward[i]), "run %d reversed and split", i);
        CHECK(forward[i].photons == (uint64_t)r[i].photons);
    }
    free_all(alone, RUNS);
    free_all(forward, RUNS);
    free_all(backward, RUNS);
    mci_free(&f);
}

/* ---- the GPU engine ------------------------------------------------------ */

/* Run alone on its own kernel (the heuristic variant of its shape: an A_rz
 * tile, the edge bins, constant or shared layers). */
static bool gpu_alone(gpu_engine *eng, const mci_run *run, bool absorb, tally_set *t)
{
    variant_options none;
    variant_options_init(&none);
    kernel_spec spec;
    gpu_options opt = {.seed = SEED};
    gpu_stats stats;
    tm_error err;
    bool ok = variant_spec_for_run(run, absorb, device_of(eng), &none, &spec, &err) &&
              gpu_simulate(eng, run, &spec, &opt, 0, (uint64_t)run->photons, t, &stats, &err);
    if (!ok)
        error_print(stderr, &err);
    return ok;
}

/* What slot_done saw: each slot's calls, and whether its tallies were
 * then those of its run alone (acc is the engine's, alone the runs'). */
typedef struct slots_seen {
    const tally_set *acc, *alone;
    int calls[RUNS], whole[RUNS], total;
    uint64_t launches[RUNS]; /* as the pool counted them */
} slots_seen;

static bool slot_seen(void *ctx, int slot, uint64_t launches, tm_error *err)
{
    (void)err;
    slots_seen *s = ctx;
    s->calls[slot]++;
    s->launches[slot] += launches;
    s->whole[slot] += tally_set_equal(&s->acc[slot], &s->alone[slot]);
    s->total++;
    return true;
}

/* The parts on a pool of `engines` engines of GPU 0, with the batch kernel
 * of the first run's heuristic variant (as batches choose it, or bare:
 * spec_for_batch), in launches of at most launch indices; seen (may be
 * NULL) is told of the slots taken as they finish. */
static bool gpu_batch(const batch_part *parts, int count, int engines, uint64_t launch, bool absorb,
                      bool bare, slots_seen *seen, tally_set *t)
{
    int devices[2] = {0, 0};
    gpu_pool *pool = NULL;
    photon_batch b;
    tm_error err;
    variant_options none;
    variant_options_init(&none);
    kernel_spec specs[2];
    bool ok = photon_batch_init(&b, parts, count, &err) &&
              gpu_pool_open(devices, engines, &pool, &err) &&
              variant_spec_for_run(parts[0].run, absorb, device_of(gpu_pool_engine(pool, 0)), &none,
                                   &specs[0], &err);
    const tune_device *dev = ok ? device_of(gpu_pool_engine(pool, 0)) : NULL;
    if (ok && bare)
        spec_for_batch(&specs[0]);
    else if (ok)
        ok = variant_batch_spec(&specs[0], &none, dev, &err);
    if (ok) {
        specs[1] = specs[0];
        ok = gpu_batch_fits(gpu_pool_engine(pool, 0), &specs[0], b.slots, b.count);
        if (!ok)
            error_set(&err, NULL, 0, "the batch's tables do not fit");
    }
    gpu_options opt = {.seed = SEED, .max_launch_photons = launch};
    if (seen)
        seen->acc = t;
    gpu_pool_job job = {.batch = &b,
                        .specs = specs,
                        .opt = &opt,
                        .count = ok ? photon_batch_size(&b) : 0,
                        .slot_done = seen ? slot_seen : NULL,
                        .slot_ctx = seen};
    ok = ok && gpu_pool_simulate(pool, &job, t, NULL, &err);
    if (!ok)
        error_print(stderr, &err);
    gpu_pool_close(pool);
    photon_batch_free(&b);
    return ok;
}

/* The launches of `launch` indices each (one engine) that hold photons of
 * slot s among parts[0 .. count-1]. */
static uint64_t launches_of_slot(const batch_part *parts, int count, uint64_t launch, int s)
{
    uint64_t n = 0, at = 0, last = UINT64_MAX;
    for (int k = 0; k < count; k++) {
        for (uint64_t i = at; parts[k].slot == s && i < at + parts[k].count; i++)
            if (i / launch != last) {
                last = i / launch;
                n++;
            }
        at += parts[k].count;
    }
    return n;
}

static int test_gpu(void)
{
    tm_error err;
    int n = gpu_device_count(&err);
    if (n < 1) {
        char text[2048];
        printf("no GPU: skipped (%s)\n", error_format(&err, text, sizeof text));
        return SKIP;
    }
    mci_file f;
    CHECK(parse(&f));
    const mci_run *r = f.runs;
    gpu_engine *eng;
    CHECK(gpu_engine_open(0, &eng, &err));
    for (int absorb = 1; absorb >= 0; absorb--) {
        tally_set alone[RUNS], one[RUNS], two[RUNS];
        CHECK(init_all(alone, RUNS, r) && init_all(one, RUNS, r) && init_all(two, RUNS, r));
        for (int i = 0; i < RUNS; i++)
            CHECK(gpu_alone(eng, &r[i], absorb, &alone[i]));
        batch_part in_order[RUNS];
        for (int i = 0; i < RUNS; i++)
            in_order[i] = (batch_part){&r[i], 0, (uint64_t)r[i].photons, i};
        /* One engine, one launch; then two engines, launches of 1234
         * indices, run 0 split around the others. */
        slots_seen one_seen = {.alone = alone};
        CHECK(gpu_batch(in_order, RUNS, 1, 0, absorb, false, &one_seen, one));
        batch_part mixed[] = {{&r[0], 1000, 2000, 0},
                              {&r[3], 0, 1500, 3},
                              {&r[2], 0, 2000, 2},
                              {&r[1], 0, 2500, 1},
                              {&r[0], 0, 1000, 0}};
        slots_seen two_seen = {.alone = alone};
        CHECK(gpu_batch(mixed, 5, 2, 1234, absorb, true, &two_seen, two));
        /* One engine, the mixed parts (run 0 in two parts of one slot) in
         * one launch, then in launches of 1234 indices: taken as they
         * finish too. */
        tally_set split[RUNS], chunks[RUNS];
        CHECK(init_all(split, RUNS, r) && init_all(chunks, RUNS, r));
        slots_seen split_seen = {.alone = alone}, chunks_seen = {.alone = alone};
        CHECK(gpu_batch(mixed, 5, 1, 0, absorb, false, &split_seen, split));
        CHECK(gpu_batch(mixed, 5, 1, 1234, absorb, false, &chunks_seen, chunks));
        const slots_seen *seen[] = {&one_seen, &split_seen, &chunks_seen, &two_seen};
        const char *how[] = {"in order", "mixed parts", "launches of 1234", "two engines"};
        for (int c = 0; c < 4; c++)
            for (int i = 0; i < RUNS; i++)
                CHECK_MSG(seen[c]->calls[i] == 1 && seen[c]->whole[i] == 1,
                          "run %d (%s) taken %d times, %d whole", i, how[c], seen[c]->calls[i],
                          seen[c]->whole[i]);
        for (int i = 0; i < RUNS; i++) {
            uint64_t want = launches_of_slot(mixed, 5, 1234, i);
            CHECK_MSG(one_seen.launches[i] == 1 && split_seen.launches[i] == 1 &&
                          chunks_seen.launches[i] == want,
                      "run %d: launches %llu, %llu, %llu (want 1, 1, %llu)", i,
                      (unsigned long long)one_seen.launches[i],
                      (unsigned long long)split_seen.launches[i],
                      (unsigned long long)chunks_seen.launches[i], (unsigned long long)want);
        }
        for (int i = 0; i < RUNS; i++) {
            CHECK_MSG(tally_set_equal(&alone[i], &split[i]), "run %d, mixed parts, one launch", i);
            CHECK_MSG(tally_set_equal(&alone[i], &chunks[i]), "run %d, mixed parts, launches", i);
        }
        printf("-A %d: of %d runs, %d taken as they finished (in order), %d (mixed parts), %d "
               "(launches of 1234), %d (two engines)\n",
               !absorb, RUNS, one_seen.total, split_seen.total, chunks_seen.total, two_seen.total);
        free_all(split, RUNS);
        free_all(chunks, RUNS);
        for (int i = 0; i < RUNS; i++) {
            CHECK_MSG(tally_set_equal(&alone[i], &one[i]), "run %d, one launch, -A %d", i, !absorb);
            CHECK_MSG(tally_set_equal(&alone[i], &two[i]), "run %d, two engines, -A %d", i,
                      !absorb);
            CHECK(one[i].photons == (uint64_t)r[i].photons && alone[i].steps > 0);
        }
        free_all(alone, RUNS);
        free_all(one, RUNS);
        free_all(two, RUNS);
    }
    gpu_engine_close(eng);
    mci_free(&f);
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (strcmp(mode, "index") == 0) {
        test_index();
    } else if (strcmp(mode, "cpu") == 0) {
        test_cpu();
    } else if (strcmp(mode, "gpu") == 0) {
        if (test_gpu() == SKIP)
            return SKIP;
    } else {
        fprintf(stderr, "usage: test_batch index|cpu|gpu\n");
        return 2;
    }
    return check_summary("batch");
}
