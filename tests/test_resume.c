/* Checkpoint files and a run's photon ranges (runtime/io/checkpoint.h,
 * driver/resume.h): a round trip keeps every field and 128-bit count,
 * a corrupt, truncated or foreign file is refused with a message naming it,
 * mismatches name the difference, and ranges added in any order merge and
 * leave the right gaps.  The groups of the standard errors (version 4) and
 * the groups kept (a cut one: version 4; several: version 6) come back bit
 * for bit; a file without them keeps version 1's bytes; groups
 * of more photons than done, of other arrays or layers, or with a sum no
 * run makes are refused naming the file. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "checkpoint.h"
#include "resume.h"

static const char *input_text = "grid nz 2 nr 3 na 2\nlayer 1: n 1.4 mua 1\nmax_steps 100000000\n";
#define DONE ((UINT64_C(1) << 41) + 50)

/* A checkpoint of 2^41 + 50 photons done: enough for tallies beyond 64 bits
 * that are still plausible (checkpoint_read's invariants). */
static void fill(checkpoint *c)
{
    memset(c, 0, sizeof *c);
    c->run_number = 2;
    c->seed = UINT64_C(0xfedcba9876543210);
    c->photons = UINT64_C(1) << 62;
    c->input = strdup(input_text);
    c->physics = strdup("cpu 0123456789abcdef");
    CHECK(tally_set_init(&c->tallies, 3, 2, 2));
    c->range_count = 2;
    c->ranges[0] = (photon_range){0, UINT64_C(1) << 41};
    c->ranges[1] = (photon_range){UINT64_C(1) << 42, (UINT64_C(1) << 42) + 50};
    c->tallies.photons = DONE;
    c->tallies.steps = (tally_acc_t)UINT64_MAX * 3u + 7u; /* beyond 64 bits */
    c->tallies.trapped_photons = 4;
    c->tallies.trapped_units = 12345;
    for (int i = 0; i < 6; i++)
        c->tallies.a_rz[i] = (tally_acc_t)i * 1000u + 1u;
    c->tallies.a_rz[5] += (tally_acc_t)1 << 64; /* beyond 64 bits */
    for (int i = 0; i < 6; i++) {
        c->tallies.rd_ra[i] = (tally_acc_t)i * 77u;
        c->tallies.tt_ra[i] = (tally_acc_t)i * 99u + 5u;
    }
}

static bool same(const checkpoint *a, const checkpoint *b)
{
    return a->run_number == b->run_number && a->seed == b->seed && a->photons == b->photons &&
           strcmp(a->input, b->input) == 0 && strcmp(a->physics, b->physics) == 0 &&
           a->range_count == b->range_count &&
           memcmp(a->ranges, b->ranges, (size_t)a->range_count * sizeof a->ranges[0]) == 0 &&
           tally_set_equal(&a->tallies, &b->tallies);
}

static void write_bytes(const char *path, const unsigned char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    CHECK(f && fwrite(data, 1, n, f) == n);
    if (f)
        fclose(f);
}

static void test_round_trip(const char *dir)
{
    char path[512], bad[512];
    snprintf(path, sizeof path, "%s/run.ckpt", dir);
    snprintf(bad, sizeof bad, "%s/bad.ckpt", dir);
    checkpoint c, r;
    fill(&c);
    tm_error err = {0};
    CHECK(checkpoint_write(path, &c, &err));
    CHECK_MSG(checkpoint_read(path, &r, &err), "%s", err.message);
    CHECK(same(&c, &r));
    CHECK(checkpoint_done(&r) == DONE);
    checkpoint_free(&r);

    size_t n = 0;
    FILE *f = fopen(path, "rb");
    unsigned char buf[4096];
    if (f) {
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
    }
    CHECK(n > 100 && n < sizeof buf);
    /* One byte changed anywhere: the checksum (or a field check) refuses it. */
    for (size_t at = 8; at < n; at += 37) {
        buf[at] ^= 0x20;
        write_bytes(bad, buf, n);
        buf[at] ^= 0x20;
        CHECK_MSG(!checkpoint_read(bad, &r, &err), "byte %zu changed: accepted", at);
        CHECK(strstr(err.message, "checkpoint") != NULL && strcmp(err.file, bad) == 0);
    }
    write_bytes(bad, buf, n - 9); /* truncated */
    CHECK(!checkpoint_read(bad, &r, &err) && strstr(err.message, "truncated"));
    write_bytes(bad, buf, 8);
    CHECK(!checkpoint_read(bad, &r, &err));
    write_bytes(bad, (const unsigned char *)"TMCMLCKX", 8); /* not ours */
    CHECK(!checkpoint_read(bad, &r, &err) && strstr(err.message, "magic"));

    /* Mismatches name what differs. */
    CHECK(checkpoint_matches(&c, path, 2, c.seed, c.photons, input_text, c.physics, &err));
    CHECK(!checkpoint_matches(&c, path, 2, 7, c.photons, input_text, c.physics, &err) &&
          strstr(err.message, "seed"));
    CHECK(!checkpoint_matches(&c, path, 3, c.seed, c.photons, input_text, c.physics, &err) &&
          strstr(err.message, "run 2, not run 3"));
    CHECK(!checkpoint_matches(&c, path, 2, c.seed, c.photons,
                              "grid nz 2 nr 3 na 2\nlayer 1: n 1.5 mua 1\nmax_steps 100000000\n",
                              c.physics, &err) &&
          strstr(err.message, "\"layer 1: n 1.4 mua 1\" in the checkpoint, \"layer 1: n 1.5 "
                              "mua 1\" now"));
    CHECK(
        !checkpoint_matches(&c, path, 2, c.seed, c.photons, input_text, "gpu generator=1", &err) &&
        strstr(err.message, "other physics code"));
    checkpoint_free(&c);
    unlink(path);
    unlink(bad);
}

/* Tallies edited and the checksum recomputed (checkpoint_write does both):
 * refused by the invariants, each with what is wrong. */
static void test_implausible(const char *dir)
{
    char path[512];
    snprintf(path, sizeof path, "%s/edited.ckpt", dir);
    tm_error err = {0};
    checkpoint c, r;
    const tally_acc_t unit = (tally_acc_t)1 << TALLY_UNITS_PER_WEIGHT_LOG2;
    static const char *const cases[] = {"trapped", "trapped weight", "steps",     "wrapped",
                                        "A = 1.4", "sum wraps",      "no photons"};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        fill(&c);
        tally_set *t = &c.tallies;
        const char *want = "implausible tallies";
        switch (k) {
        case 0:
            t->trapped_photons = DONE + 1;
            want = "trapped photons of";
            break;
        case 1: t->trapped_units = (tally_acc_t)t->trapped_photons * unit * 2; break;
        case 2:
            t->steps = (tally_acc_t)DONE * 100000001u;
            want = "steps for";
            break;
        case 3: t->rd_ra[2] = (tally_acc_t)0 - 5u; break; /* a wrapped sum */
        case 4: t->a_rz[0] = (tally_acc_t)DONE * unit * 14 / 10; break;
        case 5: /* entries each below 2^128 whose sum wraps to a small number */
            t->a_rz[0] = (tally_acc_t)1 << 127;
            t->a_rz[1] = (tally_acc_t)1 << 127;
            break;
        case 6: /* the ranges and photons emptied, the tallies kept */
            c.range_count = 0;
            t->photons = 0;
            t->trapped_photons = 0;
            t->steps = 0;
            break;
        }
        CHECK(checkpoint_write(path, &c, &err));
        CHECK_MSG(!checkpoint_read(path, &r, &err), "%s: accepted", cases[k]);
        CHECK_MSG(strstr(err.message, want) && !strstr(err.message, "checksum"), "%s: %s", cases[k],
                  err.message);
        checkpoint_free(&c);
    }
    /* At the edge of the plausible: every photon's whole weight absorbed,
     * none escaped (a glass-free absorber), is accepted. */
    fill(&c);
    memset(c.tallies.rd_ra, 0, 6 * sizeof(tally_acc_t));
    memset(c.tallies.tt_ra, 0, 6 * sizeof(tally_acc_t));
    memset(c.tallies.a_rz, 0, 6 * sizeof(tally_acc_t));
    c.tallies.trapped_units = 0;
    c.tallies.a_rz[3] = (tally_acc_t)DONE * unit + DONE; /* plus rounding */
    CHECK(checkpoint_write(path, &c, &err));
    CHECK_MSG(checkpoint_read(path, &r, &err), "%s", err.message);
    checkpoint_free(&r);
    checkpoint_free(&c);
    unlink(path);
}

/* The groups of the standard errors of fill's tallies (3 x 2 x 2 bins) and
 * `layers` layers (fill_groups: the input's one): every run's arrays, sums
 * that are no run's but are distinct, so that a field read into another's
 * place shows. */
static void fill_groups_of(checkpoint *c, int layers)
{
    uncertainty *u = &c->unc;
    output_grid grid = {.nr = 3, .nz = 2, .na = 2, .num_layers = layers};
    uint32_t arrays = 0;
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        if (output_table[i].option == OUTPUT_OPTION_NONE)
            arrays |= UINT32_C(1) << i;
    tm_error err;
    CHECK(uncertainty_alloc(u, &grid, arrays, &err));
    u->groups = 65;
    u->photons = DONE - 7;
    for (int k = 0; k < 3; k++) {
        u->mean[k] = 0.1 * (k + 1) + 1e-17;
        u->m2[k] = 3.0 / (k + 7);
    }
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        for (uint64_t b = 0; u->array_mean[i] && b < output_stored(&output_table[i], &grid); b++) {
            u->array_mean[i][b] = 1.0 / (double)(i * 31 + (int)b + 3);
            u->array_m2[i][b] = (double)(i + 1) * 1e-9 * (double)(b + 1);
        }
}

static void fill_groups(checkpoint *c) { fill_groups_of(c, 1); }

static bool same_groups(const uncertainty *a, const uncertainty *b)
{
    bool same = a->groups == b->groups && a->photons == b->photons &&
                !memcmp(&a->grid, &b->grid, sizeof a->grid) &&
                !memcmp(a->mean, b->mean, sizeof a->mean) && !memcmp(a->m2, b->m2, sizeof a->m2);
    for (int i = 0; same && i < OUTPUT_ARRAYS; i++) {
        same = (a->array_mean[i] != NULL) == (b->array_mean[i] != NULL);
        size_t bytes =
            a->array_mean[i] ? output_stored(&output_table[i], &a->grid) * sizeof(double) : 0;
        same = same && (!bytes || (!memcmp(a->array_mean[i], b->array_mean[i], bytes) &&
                                   !memcmp(a->array_m2[i], b->array_m2[i], bytes)));
    }
    return same;
}

/* The format version a file was written in (after the magic). */
static unsigned file_version(const char *path)
{
    unsigned char v[4] = {0};
    FILE *f = fopen(path, "rb");
    CHECK(f && fseek(f, 8, SEEK_SET) == 0 && fread(v, 1, 4, f) == 4);
    if (f)
        fclose(f);
    return v[0] | (unsigned)v[1] << 8 | (unsigned)v[2] << 16 | (unsigned)v[3] << 24;
}

/* c's unc given group g kept (from photon first, of size photons): 5
 * photons whose counts are c's own (within them) but for `extra` units
 * more in A_rz's first bin. */
static void keep_group(checkpoint *c, uint64_t g, uint64_t first, uint64_t size, tally_acc_t extra)
{
    tm_error err;
    uncertainty_kept *k = uncertainty_keep(&c->unc, g, first, size, &c->tallies, &err);
    CHECK_MSG(k != NULL, "%s", err.message);
    if (!k)
        return;
    tally_set *p = &k->tallies;
    p->photons = 5;
    p->steps = c->tallies.steps / 2;
    p->a_rz[0] = c->tallies.a_rz[0] / 2 + extra;
    p->rd_ra[1] = c->tallies.rd_ra[1];
}

/* c's unc given a group a stop cut: group 65, the next to fold. */
static void cut_group(checkpoint *c, tally_acc_t extra)
{
    uncertainty_drop_kept(&c->unc);
    keep_group(c, 65, c->unc.photons, 0, extra);
}

/* Whether b's groups kept are a's: index, first photon, size, tallies. */
static bool same_kept(const uncertainty *a, const uncertainty *b)
{
    bool same = a->kept_count == b->kept_count;
    for (int i = 0; same && i < a->kept_count; i++)
        same = a->kept[i].group == b->kept[i].group && a->kept[i].first == b->kept[i].first &&
               a->kept[i].size == b->kept[i].size &&
               tally_set_equal(&a->kept[i].tallies, &b->kept[i].tallies);
    return same;
}

/* The group a stop cut: read back bit for bit (with groups, and alone),
 * version 4's bytes; one that holds more than the tallies refused.
 * Several groups kept (an MPI run's): version 6, read back bit for bit,
 * their first photons and sizes too; out of order, or more photons than
 * their group, refused. */
static void test_cut_group(checkpoint *c, const char *path, const char *bad)
{
    checkpoint r;
    tm_error err = {0};
    cut_group(c, 0);
    CHECK(checkpoint_write(path, c, &err) && file_version(path) == 4);
    CHECK_MSG(checkpoint_read(path, &r, &err), "%s", err.message);
    CHECK(same_groups(&c->unc, &r.unc) && same_kept(&c->unc, &r.unc));
    checkpoint_free(&r);
    checkpoint alone;
    fill(&alone);
    cut_group(&alone, 0);
    CHECK(checkpoint_write(path, &alone, &err) && file_version(path) == 4);
    CHECK_MSG(checkpoint_read(path, &r, &err), "%s", err.message);
    CHECK(r.unc.groups == 0 && same_kept(&alone.unc, &r.unc));
    checkpoint_free(&r);
    cut_group(&alone, c->tallies.a_rz[0] + 1); /* beyond the tallies' bin */
    CHECK(checkpoint_write(bad, &alone, &err));
    CHECK_MSG(!checkpoint_read(bad, &r, &err) && strstr(err.message, "more than the tallies"),
              "a cut group beyond the tallies: %s", err.message);
    checkpoint_free(&alone);
    c->unc.photons -= 13; /* room for three groups of 5 photons */
    cut_group(c, 0);
    keep_group(c, 67, c->unc.photons + 20, 6, 0);
    keep_group(c, 66, c->unc.photons + 10, 0, 0);
    CHECK(checkpoint_write(path, c, &err) && file_version(path) == 6);
    CHECK_MSG(checkpoint_read(path, &r, &err), "%s", err.message);
    CHECK(same_groups(&c->unc, &r.unc) && same_kept(&c->unc, &r.unc) && r.unc.kept_count == 3);
    checkpoint_free(&r);
    c->unc.kept[2].size = 4; /* 5 photons of a group of 4 */
    CHECK(checkpoint_write(bad, c, &err));
    CHECK_MSG(!checkpoint_read(bad, &r, &err) && strstr(err.message, "larger than their group"),
              "a kept group larger than its group: %s", err.message);
    c->unc.kept[2].size = 6;
    c->unc.kept[2].group = 60; /* before 66 */
    CHECK(checkpoint_write(bad, c, &err));
    CHECK_MSG(!checkpoint_read(bad, &r, &err) && strstr(err.message, "out of order"),
              "kept groups out of order: %s", err.message);
    c->unc.photons += 13;
    cut_group(c, 0);
}

static void test_groups(const char *dir)
{
    char path[512], bad[512];
    snprintf(path, sizeof path, "%s/groups.ckpt", dir);
    snprintf(bad, sizeof bad, "%s/bad.ckpt", dir);
    checkpoint c, r;
    tm_error err = {0};
    /* Without groups: version 1's bytes, as before they existed. */
    fill(&c);
    CHECK(checkpoint_write(path, &c, &err) && file_version(path) == 1);
    long plain = 0;
    FILE *f = fopen(path, "rb");
    if (f && fseek(f, 0, SEEK_END) == 0)
        plain = ftell(f);
    if (f)
        fclose(f);
    /* With them: version 4, read back bit for bit. */
    fill_groups(&c);
    CHECK(checkpoint_write(path, &c, &err) && file_version(path) == 4);
    CHECK_MSG(checkpoint_read(path, &r, &err), "%s", err.message);
    CHECK(same(&c, &r) && same_groups(&c.unc, &r.unc));
    checkpoint_free(&r);
    /* Any byte of the groups' part changed: refused, naming the file. */
    unsigned char buf[8192];
    size_t n = 0;
    if ((f = fopen(path, "rb")) != NULL) {
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
    }
    CHECK(plain > 0 && n > (size_t)plain && n < sizeof buf);
    for (size_t at = (size_t)plain - 8; at < n; at += 13) {
        buf[at] ^= 0x04;
        write_bytes(bad, buf, n);
        buf[at] ^= 0x04;
        CHECK_MSG(!checkpoint_read(bad, &r, &err) && strcmp(err.file, bad) == 0,
                  "groups' byte %zu changed: accepted", at);
    }
    /* Edited and the checksum recomputed: each inconsistency named. */
    static const char *const cases[] = {"more photons", "empty group", "layers",
                                        "arrays",       "NaN",         "negative"};
    static const char *const want[] = {"photons for",  "groups of",  "another grid",
                                       "other arrays", "not finite", "negative sum"};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        checkpoint e;
        fill(&e);
        fill_groups(&e);
        uncertainty *u = &e.unc;
        switch (k) {
        case 0: u->photons = DONE + 1; break;
        case 1: u->groups = 51, u->photons = 50; break; /* a group without a photon */
        case 2:                                         /* sums of two layers for the input's one */
            uncertainty_free(u);
            fill_groups_of(&e, 2);
            break;
        case 3: { /* A_rz's sums dropped: another run's arrays */
            int a_rz = (int)(output_by_name("A_rz") - output_table);
            free(u->array_mean[a_rz]);
            free(u->array_m2[a_rz]);
            u->array_mean[a_rz] = u->array_m2[a_rz] = NULL;
            break;
        }
        case 4: u->array_mean[0][1] = NAN; break;
        case 5: u->m2[1] = -1e-30; break;
        }
        CHECK(checkpoint_write(bad, &e, &err));
        CHECK_MSG(!checkpoint_read(bad, &r, &err), "%s: accepted", cases[k]);
        CHECK_MSG(strstr(err.message, want[k]) && !strstr(err.message, "checksum") &&
                      strcmp(err.file, bad) == 0,
                  "%s: %s", cases[k], err.message);
        checkpoint_free(&e);
    }
    test_cut_group(&c, path, bad);
    checkpoint_free(&c);
    unlink(path);
    unlink(bad);
}

static void test_ranges(void)
{
    checkpoint c;
    memset(&c, 0, sizeof c);
    c.photons = 100;
    tm_error err;
    uint64_t b, e;
    CHECK(resume_next_gap(&c, &b, &e) && b == 0 && e == 100);
    CHECK(resume_add(&c, 0, 30, &err));
    CHECK(resume_next_gap(&c, &b, &e) && b == 30 && e == 100);
    CHECK(resume_add(&c, 50, 60, &err)); /* out of order (a dispatcher's chunk) */
    CHECK(c.range_count == 2 && resume_next_gap(&c, &b, &e) && b == 30 && e == 50);
    CHECK(resume_add(&c, 30, 50, &err)); /* fills the gap: one range */
    CHECK(c.range_count == 1 && c.ranges[0].begin == 0 && c.ranges[0].end == 60);
    CHECK(resume_add(&c, 70, 80, &err) && resume_add(&c, 90, 100, &err));
    CHECK(c.range_count == 3 && resume_next_gap(&c, &b, &e) && b == 60 && e == 70);
    CHECK(resume_add(&c, 60, 70, &err) && resume_add(&c, 80, 90, &err));
    CHECK(c.range_count == 1 && checkpoint_done(&c) == 100 && !resume_next_gap(&c, &b, &e));
}

/* resume_cover: a range part of which is done already adds only the rest. */
static void test_cover(void)
{
    checkpoint c;
    memset(&c, 0, sizeof c);
    c.photons = 100;
    tm_error err;
    uint64_t b, e;
    CHECK(resume_add(&c, 10, 20, &err) && resume_add(&c, 40, 50, &err));
    CHECK(resume_cover(&c, 0, 60, &err)); /* over both, and the gaps around them */
    CHECK(c.range_count == 1 && c.ranges[0].begin == 0 && c.ranges[0].end == 60);
    CHECK(resume_cover(&c, 30, 40, &err)); /* all done already: nothing changes */
    CHECK(c.range_count == 1 && checkpoint_done(&c) == 60);
    CHECK(resume_add(&c, 80, 90, &err));
    CHECK(resume_cover(&c, 55, 85, &err)); /* from inside one range into another */
    CHECK(c.range_count == 1 && c.ranges[0].end == 90 && checkpoint_done(&c) == 90);
    CHECK(resume_cover(&c, 90, 100, &err) && checkpoint_done(&c) == 100);
    CHECK(!resume_next_gap(&c, &b, &e));
}

/* Physics identities: equal ones, and an earlier build's listed as giving
 * this one's tallies (resume.c), in that direction only and only for the
 * later identity it names. */
static void test_same_physics(void)
{
    CHECK(resume_physics_same("cpu 0123456789abcdef", "cpu 0123456789abcdef", false));
    CHECK(!resume_physics_same("cpu 0123456789abcdef", "cpu 0123456789abcdee", false));
    CHECK(resume_physics_same("cpu dff8cc904f1a6ac6", "cpu 8ea25a9fe88f1d88", false));
    CHECK(resume_physics_same("cpu a94c288e29efe04e", "cpu 8ea25a9fe88f1d88", false));
    CHECK(resume_physics_same("cpu 123fa2412a7dd68a", "cpu 8ea25a9fe88f1d88", false));
    CHECK(!resume_physics_same("cpu 8ea25a9fe88f1d88", "cpu dff8cc904f1a6ac6", false));
    CHECK(resume_physics_same("cpu 8ea25a9fe88f1d88", "cpu 1dcbe7d66b77df02", false));
    CHECK(!resume_physics_same("cpu 1dcbe7d66b77df02", "cpu 8ea25a9fe88f1d88", false));
    /* This build takes 6b4eeb8's checkpoints: a change of the hashed
     * sources' bytes fails here until it is checked (tools/compare_builds.sh,
     * an old checkpoint resumed) and resume.c's entry names the new identity. */
    char id[64];
    tm_error err;
    CHECK(resume_physics(NULL, id, sizeof id, &err));
    CHECK_MSG(resume_physics_same("cpu dff8cc904f1a6ac6", id, false),
              "this build's CPU physics identity \"%s\" is not listed in driver/resume.c as giving "
              "6b4eeb8's tallies (cpu dff8cc904f1a6ac6): if the hashed sources changed bytes, not "
              "arithmetic, check it with tools/compare_builds.sh and an old checkpoint resumed, "
              "then update the entry",
              id);
    CHECK(!resume_physics_same("cpu dff8cc904f1a6ac6", "cpu 0123456789abcdef", false));
    CHECK(!resume_physics_same("cpu dff8cc904f1a6ac6", "gpu generator=0 nvrtc=13.0 sm_90", false));
    /* A GPU generator whose kernels a later one renders the same: the
     * identity with the same NVRTC and architecture only, one way. */
    CHECK(resume_physics_same("gpu generator=82fb8a102e55388b nvrtc=13.0 sm_90",
                              "gpu generator=77bab5657b23f3f5 nvrtc=13.0 sm_90", false));
    CHECK(!resume_physics_same("gpu generator=77bab5657b23f3f5 nvrtc=13.0 sm_90",
                               "gpu generator=82fb8a102e55388b nvrtc=13.0 sm_90", false));
    CHECK(!resume_physics_same("gpu generator=82fb8a102e55388b nvrtc=13.0 sm_90",
                               "gpu generator=77bab5657b23f3f5 nvrtc=13.1 sm_90", false));
    CHECK(!resume_physics_same("gpu generator=82fb8a102e55388b nvrtc=13.0 sm_90",
                               "gpu generator=77bab5657b23f3f5 nvrtc=13.0 sm_100", false));
    CHECK(resume_physics_same("gpu generator=77bab5657b23f3f5 nvrtc=13.0 sm_90",
                              "gpu generator=2396091d77297fc6 nvrtc=13.0 sm_90", false));
    CHECK(resume_physics_same("gpu generator=82fb8a102e55388b nvrtc=13.0 sm_90",
                              "gpu generator=2396091d77297fc6 nvrtc=13.0 sm_90", false));
    for (int k = 0; k < 3; k++) {
        char before[80];
        snprintf(before, sizeof before, "gpu generator=%s nvrtc=13.0 sm_90",
                 (const char *[]){"82fb8a102e55388b", "77bab5657b23f3f5", "2396091d77297fc6"}[k]);
        CHECK_MSG(
            resume_physics_same(before, "gpu generator=0d3bfdecfe2aa143 nvrtc=13.0 sm_90", false),
            "%s", before);
    }
    /* Then the optics sets' kernels changed (templates/sets.cu
     * sets_deflect): every earlier generator's checkpoint resumes but an
     * optics set's. */
    for (int k = 0; k < 4; k++) {
        char before[80];
        snprintf(before, sizeof before, "gpu generator=%s nvrtc=13.0 sm_90",
                 (const char *[]){"82fb8a102e55388b", "77bab5657b23f3f5", "2396091d77297fc6",
                                  "0d3bfdecfe2aa143"}[k]);
        const char *now = "gpu generator=4af182a050680498 nvrtc=13.0 sm_90";
        CHECK_MSG(resume_physics_same(before, now, false), "%s", before);
        CHECK_MSG(!resume_physics_same(before, now, true), "%s: an optics set", before);
    }
    CHECK(resume_physics_same("gpu generator=4af182a050680498 nvrtc=13.0 sm_90",
                              "gpu generator=4af182a050680498 nvrtc=13.0 sm_90", true));
    /* Then the spatial frequencies' kernel (templates/fx.cu) and the
     * several detectors' (templates/timed.cu) were added: 4af182a0's
     * optics sets resume too. */
    for (int k = 0; k < 6; k++) {
        char before[80];
        snprintf(before, sizeof before, "gpu generator=%s nvrtc=13.0 sm_90",
                 (const char *[]){"82fb8a102e55388b", "77bab5657b23f3f5", "2396091d77297fc6",
                                  "0d3bfdecfe2aa143", "4af182a050680498", "9240865e9acdd63e"}[k]);
        const char *now = "gpu generator=a04dac24c0167bdc nvrtc=13.0 sm_90";
        CHECK_MSG(resume_physics_same(before, now, false), "%s", before);
        CHECK_MSG(resume_physics_same(before, now, true) == (k >= 4), "%s: an optics set", before);
    }
    /* Then the sets' kernel took time bins and detectors: every earlier
     * generator's checkpoint resumes, 4af182a0's and later optics sets'
     * too. */
    for (int k = 0; k < 7; k++) {
        char before[80];
        snprintf(before, sizeof before, "gpu generator=%s nvrtc=13.0 sm_90",
                 (const char *[]){"82fb8a102e55388b", "77bab5657b23f3f5", "2396091d77297fc6",
                                  "0d3bfdecfe2aa143", "4af182a050680498", "9240865e9acdd63e",
                                  "a04dac24c0167bdc"}[k]);
        const char *now = "gpu generator=ab389e16d8f20fcf nvrtc=13.0 sm_90";
        CHECK_MSG(resume_physics_same(before, now, false), "%s", before);
        CHECK_MSG(resume_physics_same(before, now, true) == (k >= 4), "%s: an optics set", before);
    }
    /* Then the run's own kernel took modulation frequencies. */
    for (int k = 0; k < 8; k++) {
        char before[80];
        snprintf(before, sizeof before, "gpu generator=%s nvrtc=13.0 sm_90",
                 (const char *[]){"82fb8a102e55388b", "77bab5657b23f3f5", "2396091d77297fc6",
                                  "0d3bfdecfe2aa143", "4af182a050680498", "9240865e9acdd63e",
                                  "a04dac24c0167bdc", "ab389e16d8f20fcf"}[k]);
        const char *now = "gpu generator=fbe8c62ab6f004fd nvrtc=13.0 sm_90";
        CHECK_MSG(resume_physics_same(before, now, false), "%s", before);
        CHECK_MSG(resume_physics_same(before, now, true) == (k >= 4), "%s: an optics set", before);
    }
}

int main(void)
{
    char dir[] = "/tmp/tmcml-resume-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    test_round_trip(dir);
    test_implausible(dir);
    test_groups(dir);
    test_ranges();
    test_cover();
    test_same_physics();
    rmdir(dir);
    return check_summary("resume");
}
