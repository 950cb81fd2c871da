/* Every template family renders and compiles with NVRTC to an sm_90 cubin
 * without spilling, on a machine without a GPU (exit 77 when NVRTC is not
 * there).  A template change that makes a variant spill fails here: spills
 * to local memory cost far more than they save in this kernel. */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "compile.h"
#include "mci.h"
#include "render.h"
#include "variant.h"

typedef struct family {
    const char *input;
    const char *name;
    const char *options; /* knob options as on the command line, in pairs */
    bool absorb, out_of_bounds;
    int batch;  /* 1: the batch kernel of the variant (variant_batch_spec); 2: spec_for_batch */
    int sets;   /* absorption sets (variant_sets_spec), 0 for none */
    bool paths; /* the sets score their path lengths */
} family;

static const family families[] = {
    {"skin7_600nm.mci", "default", "", true, false, 0, 0, false},
    {"skin7_600nm.mci", "-A", "", false, false, 0, 0, false},
    {"skin7_600nm.mci", "64-bit tile", "--tile 48x128 --entry 64", true, false, 0, 0, false},
    {"skin7_600nm.mci", "no tile", "--tile 0x0", true, false, 0, 0, false},
    {"skin7_600nm.mci", "shared layers", "--layers shared", true, false, 0, 0, false},
    {"skin7_600nm.mci", "immediate layers", "--layers immediate", true, false, 0, 0, false},
    {"skin7_600nm.mci", "block 1024, 2 blocks/SM", "--block 1024 --min-blocks 2", true, false, 0, 0,
     false},
    {"skin7_600nm.mci", "block 64", "--tile 16x16 --entry 32 --block 64", true, false, 0, 0, false},
    {"skin7_600nm.mci", "debug out of bounds", "", true, true, 0, 0, false},
    {"skin7_600nm.mci", "last-bin cache", "--min-blocks 0 --last-bin on", true, false, 0, 0, false},
    {"intralipid_slab.mci", "last-bin cache, 64-bit",
     "--tile 100x100 --entry 64 --min-blocks 0 --last-bin on", true, false, 0, 0, false},
    {"mcml_example.mci", "default", "", true, false, 0, 0, false},
    {"intralipid_slab.mci", "default", "", true, false, 0, 0, false},
    {"vanhulst_slab.mci", "-A immediate", "--layers immediate", false, false, 0, 0, false},
    {"skin7_600nm.mci", "no edge cache", "--edge-cache off", true, false, 0, 0, false},
    {"mcml_example.mci", "no shared A_rz", "--tile 0x0 --edge-cache off", true, false, 0, 0, false},
    {"skin7_600nm.mci", "cluster of 4, 32-bit", "--tile 100x250 --entry 32 --cluster 4", true,
     false, 0, 0, false},
    {"skin7_600nm.mci", "cluster of 2, 64-bit", "--tile 100x250 --entry 64 --cluster 2", true,
     false, 0, 0, false},
    {"skin7_600nm.mci", "batch", "", true, false, 1, 0, false},
    {"skin7_600nm.mci", "batch -A", "", false, false, 1, 0, false},
    {"skin7_600nm.mci", "batch, no run tiles", "--tile 0x0", true, false, 1, 0, false},
    {"skin7_600nm.mci", "batch, run tiles without edge bins", "--edge-cache off", true, false, 1, 0,
     false},
    {"skin7_600nm.mci", "batch, no last bin", "--tile 0x0", true, false, 2, 0, false},
    {"skin7_600nm.mci", "batch -A, 8x256", "", false, false, 2, 0, false},
    {"intralipid_slab.mci", "batch", "", true, false, 1, 0, false},
    {"vanhulst_slab.mci", "batch, no last bin", "--tile 0x0", true, false, 2, 0, false},
    {"skin7_600nm.mci", "-A, 64 sets", "", false, false, 0, 64, false},
    {"skin7_600nm.mci", "-A, 64 sets, 1024", "--block 1024", false, false, 0, 64, false},
    {"intralipid_slab.mci", "-A, 1 set", "", false, false, 0, 1, false},
    {"vanhulst_slab.mci", "-A, 256 sets, 128", "--block 128", false, false, 0, 256, false},
    {"skin7_600nm.mci", "-A, 64 sets, paths", "", false, false, 0, 64, true},
    {"mcml_example.mci", "-A, 4 sets, paths, 1024", "--block 1024", false, false, 0, 4, true},
    {"skin7_600nm.mci", "A, 8 sets", "", true, false, 0, 8, false},
    {"mcml_example.mci", "A, 64 sets, paths, 128", "--block 128", true, false, 0, 64, true},
};

/* The sources' kernels (templates/source.cu): a family each, with the
 * source given to the run (docs/physics.md, "Sources"). */
static const struct {
    family fam;
    const char *source;
} source_families[] = {
    {{"skin7_600nm.mci", "gaussian", "", true, false, 0, 0, false}, "gaussian:0.1"},
    {{"skin7_600nm.mci", "flat -A", "", false, false, 0, 0, false}, "flat:0.1"},
    {{"skin7_600nm.mci", "point", "", true, false, 0, 0, false}, "point:0.05"},
    {{"skin7_600nm.mci", "fiber", "", true, false, 0, 0, false}, "fiber:0.02:0.22"},
    {{"skin7_600nm.mci", "fiber immediate", "--layers immediate", true, false, 0, 0, false},
     "fiber:0.02:0.22"},
    {{"skin7_600nm.mci", "point shared", "--layers shared", true, false, 0, 0, false},
     "point:0.05"},
    {{"skin7_600nm.mci", "batch gaussian", "", true, false, 1, 0, false}, "gaussian:0.1"},
    {{"skin7_600nm.mci", "batch -A fiber", "", false, false, 1, 0, false}, "fiber:0.02:0.22"},
    {{"intralipid_slab.mci", "batch point", "--tile 0x0", true, false, 2, 0, false}, "point:1.0"},
    {{"skin7_600nm.mci", "-A, 64 sets, point", "", false, false, 0, 64, false}, "point:0.05"},
    {{"skin7_600nm.mci", "-A, 64 sets, fiber", "", false, false, 0, 64, false}, "fiber:0.02:0.22"},
    {{"skin7_600nm.mci", "oblique", "", true, false, 0, 0, false}, "oblique:45"},
    {{"skin7_600nm.mci", "oblique -A", "", false, false, 0, 0, false}, "oblique:45"},
};

/* Kernels with time bins (1), a fiber detector (2) or both (3), or with
 * TM_MAX_DETECTORS fiber detectors (4: the kernel's loop over them), or
 * the Cartesian grid (8): a run's own kernel, the launch bound dropped as
 * the variant drops it. */
typedef struct timed_family {
    family base;
    int timed;
} timed_family;

static const timed_family timed_families[] = {
    {{"skin7_600nm.mci", "time bins", "", true, false, 0, 0, false}, 1},
    {{"skin7_600nm.mci", "fiber", "", true, false, 0, 0, false}, 2},
    {{"skin7_600nm.mci", "time bins and fiber", "", true, false, 0, 0, false}, 3},
    {{"skin7_600nm.mci", "-A, time bins and fiber", "", false, false, 0, 0, false}, 3},
    {{"skin7_600nm.mci", "time bins and 16 fibers", "", true, false, 0, 0, false}, 5},
    {{"skin7_600nm.mci", "-A, 16 fibers", "", false, false, 0, 0, false}, 4},
    {{"intralipid_slab.mci", "time bins and fiber", "--tile 100x100 --entry 64", true, false, 0, 0,
      false},
     3},
    {{"vanhulst_slab.mci", "time bins, immediate", "--layers immediate", true, false, 0, 0, false},
     1},
    {{"skin7_600nm.mci", "both, cluster of 2", "--tile 100x250 --entry 64 --cluster 2", true, false,
      0, 0, false},
     3},
};

/* The Cartesian grid's kernels (templates/xy.cu), of an oblique beam's run
 * or with time bins and a fiber (8 and the bits above). */
static const struct {
    family fam;
    const char *source;
    int timed;
} grid_families[] = {
    {{"skin7_600nm.mci", "oblique, grid", "", true, false, 0, 0, false}, "oblique:45", 8},
    {{"skin7_600nm.mci", "oblique -A, grid", "", false, false, 0, 0, false}, "oblique:45", 8},
    {{"skin7_600nm.mci", "oblique, grid, last bin", "--min-blocks 0 --last-bin on", true, false, 0,
      0, false},
     "oblique:45",
     8},
    {{"mcml_example.mci", "grid, time bins, fiber", "", true, false, 0, 0, false}, NULL, 11},
};

/* The batch kernel of the family's variant, as batches choose it or bare. */
static bool for_batch(const family *fam, const variant_options *v, kernel_spec *spec, tm_error *err)
{
    if (fam->batch == 1)
        return variant_batch_spec(spec, v, NULL, err);
    if (fam->batch == 2)
        spec_for_batch(spec);
    return true;
}

/* Sets the family's options, word pairs "--option value". */
static bool set_options(const char *options, variant_options *v, tm_error *err)
{
    char words[256], *save = NULL;
    snprintf(words, sizeof words, "%s", options);
    for (char *opt = strtok_r(words, " ", &save); opt; opt = strtok_r(NULL, " ", &save))
        if (!variant_options_set(v, opt, strtok_r(NULL, " ", &save), err))
            return false;
    return true;
}

static bool compile_family(const family *fam, const char *source_text, int timed)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/../../examples/%s", TMCML_TEST_DATA, fam->input);
    mci_file f;
    tm_error err = {0};
    if (!mci_read(path, &f, &err)) {
        error_print(stderr, &err);
        return false;
    }
    if (source_text && (!source_parse(source_text, "source", &f.runs[0].source, &err) ||
                        !source_check_run(&f.runs[0].source, &f.runs[0], "source", &err))) {
        error_print(stderr, &err);
        mci_free(&f);
        return false;
    }
    if (timed & 1) {
        f.runs[0].time_dt = 0.01;
        f.runs[0].time_nt = 100;
    }
    if (timed & 2) {
        f.runs[0].fiber_count = 1;
        f.runs[0].fibers[0] = (fiber_detector){0.1, 0.05, 0.5};
    }
    for (int k = 0; (timed & 4) && k < TM_MAX_DETECTORS; k++)
        f.runs[0].fibers[f.runs[0].fiber_count++] = (fiber_detector){0.02 * k, 0.05, 0.5};
    if (timed & 8) {
        f.runs[0].xy_dx = 0.01;
        f.runs[0].xy_nx = 200;
    }
    variant_options v;
    variant_options_init(&v);
    v.debug_out_of_bounds = fam->out_of_bounds;
    kernel_spec spec;
    render_output src = {0};
    compile_result r = {0};
    compile_options copt = {.arch = 90, .cache_dir = ""};
    bool ok = set_options(fam->options, &v, &err) &&
              variant_spec_for_run(&f.runs[0], fam->absorb, NULL, &v, &spec, &err) &&
              for_batch(fam, &v, &spec, &err) &&
              (fam->sets == 0 ||
               variant_sets_spec(&spec, (sets_scoring){.num_sets = fam->sets, .paths = fam->paths},
                                 &v, NULL, &err)) &&
              render_kernel(&spec, NULL, &src, &err) && compile_cubin(&src, &copt, &r, &err);
    if (ok) {
        printf("  %-20s %-28s %3d registers, %4d bytes stack, spills %d/%d bytes, %.2f s\n",
               fam->input, fam->name, r.registers, r.stack_bytes, r.spill_stores, r.spill_loads,
               r.seconds);
        CHECK_MSG(r.spill_stores == 0 && r.spill_loads == 0, "%s %s spills", fam->input, fam->name);
        CHECK(r.registers > 0 && r.cubin_size > 0);
    } else {
        error_print(stderr, &err);
    }
    compile_result_free(&r);
    render_output_free(&src);
    mci_free(&f);
    return ok;
}

int main(void)
{
    char version[32];
    tm_error err;
    if (!compile_nvrtc_available(version, sizeof version, &err)) {
        printf("no NVRTC: skipped (%s)\n", err.message);
        return 77;
    }
    printf("NVRTC %s, sm_90:\n", version);
    for (size_t i = 0; i < sizeof families / sizeof *families; i++) {
        CHECK_MSG(compile_family(&families[i], NULL, 0), "%s %s", families[i].input,
                  families[i].name);
    }
    for (size_t i = 0; i < sizeof source_families / sizeof *source_families; i++) {
        const family *fam = &source_families[i].fam;
        CHECK_MSG(compile_family(fam, source_families[i].source, 0), "%s %s", fam->input,
                  fam->name);
    }
    for (size_t i = 0; i < sizeof timed_families / sizeof *timed_families; i++) {
        const family *fam = &timed_families[i].base;
        CHECK_MSG(compile_family(fam, NULL, timed_families[i].timed), "%s %s", fam->input,
                  fam->name);
    }
    for (size_t i = 0; i < sizeof grid_families / sizeof *grid_families; i++) {
        const family *fam = &grid_families[i].fam;
        CHECK_MSG(compile_family(fam, grid_families[i].source, grid_families[i].timed), "%s %s",
                  fam->input, fam->name);
    }
    return check_summary("kernels");
}
