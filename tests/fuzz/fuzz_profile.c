/* libFuzzer harness of the profile reader and writer (tuner/profile_json.c,
 * tuner/profile.c).
 *
 * The input is written to a file and read as a profile (profile_load, whole
 * and header only).  When it reads, it must validate, write back
 * (profile_write), and read again to the same profile: the same header and
 * the same entries (the writer sorts them by class and rounds the measured
 * rates to 6 digits, profile_round_timing); writing that again must give the
 * same bytes.  Every entry must be found by its own class.  Then an entry
 * is stored into the input file (profile_store_entry), as a tuner does:
 * whatever the file held, the store must succeed and read back. */
#include "fs.h"
#include "fuzz_util.h"
#include "profile.h"

static bool devices_equal(const profile_device *a, const profile_device *b)
{
    return strcmp(a->name, b->name) == 0 && a->cc_major == b->cc_major &&
           a->cc_minor == b->cc_minor && a->sm_count == b->sm_count &&
           a->shared_per_block_optin == b->shared_per_block_optin &&
           a->driver_version == b->driver_version;
}

static bool knob_fields_equal(const kernel_knobs *a, const kernel_knobs *b)
{
    for (int i = 0; i < knob_count; i++)
        for (int f = 0; f < knob_field_count(&knob_table[i]); f++)
            if (knob_field_get(&knob_table[i], a, f) != knob_field_get(&knob_table[i], b, f))
                return false;
    return true;
}

/* b is a read back of a written: the timings rounded as profile_write rounds. */
static bool entries_equal(const profile_entry *a, const profile_entry *b)
{
    return problem_shape_equal(&a->cls, &b->cls) && knob_fields_equal(&a->config, &b->config) &&
           profile_round_timing(a->photons_per_second) == b->photons_per_second &&
           profile_round_timing(a->steps_per_second) == b->steps_per_second &&
           profile_round_timing(a->heuristic_photons_per_second) ==
               b->heuristic_photons_per_second &&
           profile_round_timing(a->tuning_seconds) == b->tuning_seconds &&
           a->pilot_photons == b->pilot_photons && a->candidates == b->candidates &&
           strcmp(a->date, b->date) == 0;
}

static void check_same(const profile *p, const profile *q)
{
    FUZZ_CHECK(devices_equal(&p->device, &q->device), "device \"%s\" read back as \"%s\"",
               p->device.name, q->device.name);
    FUZZ_CHECK(profile_toolchain_equal(&p->toolchain, &q->toolchain), "toolchain differs");
    FUZZ_CHECK(p->num_entries == q->num_entries, "%d entries read back as %d", p->num_entries,
               q->num_entries);
    for (int i = 0; i < p->num_entries; i++) {
        const profile_entry *e = &p->entries[i], *back = NULL;
        char c[64];
        problem_shape_text(&e->cls, c, sizeof c);
        FUZZ_CHECK(profile_lookup(q, &e->cls, &back) == PROFILE_MATCH_EXACT,
                   "entry %d (%s) not read back", i, c);
        FUZZ_CHECK(entries_equal(e, back), "entry %d (%s) read back differently", i, c);
    }
}

/* The entry and header profile_store_entry adds to a file it cannot keep. */
static profile_entry store_entry(void)
{
    profile_entry e;
    memset(&e, 0, sizeof e);
    e.cls =
        (profile_class){.num_layers = 3, .nr = 50, .nz = 40, .na = 10, .score_absorption = true};
    knobs_init(&e.config);
    e.config.tile_nr = 8;
    e.config.tile_nz = 16;
    e.photons_per_second = 1.5e7;
    e.steps_per_second = 9.25e9;
    e.heuristic_photons_per_second = 1e7;
    e.pilot_photons = 1000000;
    e.candidates = 12;
    e.tuning_seconds = 20.5;
    snprintf(e.date, sizeof e.date, "2026-11-22T10:00:00Z");
    return e;
}

/* profile_store_entry over the input file (tuner/profile_store.c): whatever
 * the file holds, the entry is stored and reads back; a file that read keeps
 * its other entries, one that did not is set aside as <path>.corrupt. */
static void check_store(const char *path, const profile *old)
{
    profile_device dev;
    profile_toolchain tc;
    if (old) {
        dev = old->device;
        tc = old->toolchain;
    } else {
        memset(&dev, 0, sizeof dev);
        memset(&tc, 0, sizeof tc);
        snprintf(dev.name, sizeof dev.name, "Fuzz GPU");
        dev.cc_major = 9;
        dev.sm_count = 132;
        snprintf(tc.nvrtc_version, sizeof tc.nvrtc_version, "13.0");
        snprintf(tc.generator, sizeof tc.generator, "0123456789abcdef");
    }
    profile_entry e = store_entry();
    char note[2048];
    tm_error err = {0};
    FUZZ_CHECK(profile_store_entry(path, &dev, &tc, &e, note, sizeof note, &err), "not stored: %s",
               err.message);
    FUZZ_CHECK(old || strstr(note, "corrupt") != NULL, "a corrupt file without a note: \"%s\"",
               note);
    profile r;
    FUZZ_CHECK(profile_read(path, &r, &err), "stored but not read back: %s", err.message);
    const profile_entry *found = NULL;
    FUZZ_CHECK(profile_lookup(&r, &e.cls, &found) == PROFILE_MATCH_EXACT &&
                   entries_equal(&e, found),
               "the stored entry is not read back");
    if (old) {
        int kept = 0;
        for (int i = 0; i < old->num_entries; i++) {
            const profile_entry *o = &old->entries[i];
            if (problem_shape_equal(&o->cls, &e.cls))
                continue;
            kept++;
            FUZZ_CHECK(profile_lookup(&r, &o->cls, &found) == PROFILE_MATCH_EXACT &&
                           entries_equal(o, found),
                       "entry %d lost or changed by a store", i);
        }
        FUZZ_CHECK(r.num_entries == kept + 1, "%d entries after a store, expected %d",
                   r.num_entries, kept + 1);
    }
    profile_free(&r);
}

static char *slurp(const char *path)
{
    tm_error err;
    char *text = fs_read_text(path, NULL, &err);
    FUZZ_CHECK(text != NULL, "%s: %s", path, err.message);
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char in[4200], out1[4200], out2[4200];
    fuzz_path(in, sizeof in, "in.json");
    fuzz_path(out1, sizeof out1, "out1.json");
    fuzz_path(out2, sizeof out2, "out2.json");
    fuzz_write_file(in, data, size);

    profile p, h;
    tm_error err = {0}, herr = {0};
    profile_status st = profile_load(in, false, &p, &err);
    profile_status hst = profile_load(in, true, &h, &herr);
    FUZZ_CHECK(st != PROFILE_MISSING && st != PROFILE_UNREADABLE, "status %d: %s", (int)st,
               err.message);
    FUZZ_CHECK(st == PROFILE_OK || err.message[0], "status %d without a message", (int)st);
    if (st != PROFILE_OK) {
        FUZZ_CHECK(p.num_entries == 0 && p.entries == NULL, "a failed read kept entries");
        profile_free(&p);
        profile_free(&h);
        check_store(in, NULL);
        return 0;
    }
    /* Whatever reads whole reads header only, to the same header. */
    FUZZ_CHECK(hst == PROFILE_OK, "reads whole but not header only: %s", herr.message);
    FUZZ_CHECK(h.num_entries == 0 && devices_equal(&h.device, &p.device) &&
                   profile_toolchain_equal(&h.toolchain, &p.toolchain),
               "the header-only read differs");
    profile_free(&h);

    FUZZ_CHECK(profile_validate(&p, in, &err), "read but invalid: %s", err.message);
    char name[512];
    (void)profile_file_name(&p.device, name, sizeof name);
    for (int i = 0; i < p.num_entries; i++) {
        const profile_entry *found = NULL;
        FUZZ_CHECK(profile_lookup(&p, &p.entries[i].cls, &found) == PROFILE_MATCH_EXACT &&
                       found == &p.entries[i],
                   "entry %d not found by its class", i);
    }

    FUZZ_CHECK(profile_write(out1, &p, &err), "read but not written: %s", err.message);
    profile q;
    FUZZ_CHECK(profile_read(out1, &q, &err), "written but not read back: %s", err.message);
    check_same(&p, &q);

    /* Written again from what was read back: the same bytes. */
    FUZZ_CHECK(profile_write(out2, &q, &err), "read back but not written: %s", err.message);
    char *t1 = slurp(out1), *t2 = slurp(out2);
    FUZZ_CHECK(strcmp(t1, t2) == 0, "a second write differs:\n%s\n---\n%s", t1, t2);
    free(t1);
    free(t2);
    profile_free(&q);
    check_store(in, &p);
    profile_free(&p);
    return 0;
}
