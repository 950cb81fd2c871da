/* Every template family renders and compiles with NVRTC to an sm_90 cubin
 * without spilling, on a machine without a GPU (exit 77 when NVRTC is not
 * there).  A template change that makes a variant spill fails here: spills
 * to local memory cost far more than they save in this kernel. */
#include <stdio.h>

#include "check.h"
#include "compile.h"
#include "mci.h"
#include "render.h"
#include "variant.h"

typedef struct family {
    const char *input;
    const char *name;
    const char *tile;
    int entry, block, min_blocks, layers;
    bool absorb, out_of_bounds;
    int last_bin; /* -1: default */
} family;

static const family families[] = {
    {"skin7_600nm.mci", "default", NULL, 0, 0, -1, -1, true, false, -1},
    {"skin7_600nm.mci", "-A", NULL, 0, 0, -1, -1, false, false, -1},
    {"skin7_600nm.mci", "64-bit tile", "48x128", 64, 0, -1, -1, true, false, -1},
    {"skin7_600nm.mci", "no tile", "0x0", 0, 0, -1, -1, true, false, -1},
    {"skin7_600nm.mci", "shared layers", NULL, 0, 0, -1, 1, true, false, -1},
    {"skin7_600nm.mci", "immediate layers", NULL, 0, 0, -1, 2, true, false, -1},
    {"skin7_600nm.mci", "block 1024, 2 blocks/SM", NULL, 0, 1024, 2, -1, true, false, -1},
    {"skin7_600nm.mci", "block 64", "16x16", 32, 64, -1, -1, true, false, -1},
    {"skin7_600nm.mci", "debug out of bounds", NULL, 0, 0, -1, -1, true, true, -1},
    {"skin7_600nm.mci", "last-bin cache", NULL, 0, 0, 0, -1, true, false, 1},
    {"intralipid_slab.mci", "last-bin cache, 64-bit", "100x100", 64, 0, 0, -1, true, false, 1},
    {"mcml_example.mci", "default", NULL, 0, 0, -1, -1, true, false, -1},
    {"intralipid_slab.mci", "default", NULL, 0, 0, -1, -1, true, false, -1},
    {"vanhulst_slab.mci", "-A immediate", NULL, 0, 0, -1, 2, false, false, -1},
};

static bool compile_family(const family *fam)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/../../examples/%s", TMCML_TEST_DATA, fam->input);
    mci_file f;
    tm_error err = {0};
    if (!mci_read(path, &f, &err)) {
        error_print(stderr, &err);
        return false;
    }
    variant_options v;
    variant_options_init(&v);
    if (fam->tile)
        v.tile_given = spec_parse_tile(fam->tile, &v.tile_nr, &v.tile_nz);
    v.entry_bits = fam->entry;
    v.block_size = fam->block;
    v.min_blocks_per_sm = fam->min_blocks;
    v.layer_placement = fam->layers;
    v.debug_out_of_bounds = fam->out_of_bounds;
    v.last_bin_cache = fam->last_bin;
    kernel_spec spec;
    render_output src = {0};
    compile_result r = {0};
    compile_options copt = {.arch = 90, .cache_dir = ""};
    bool ok = variant_spec_for_run(&f.runs[0], fam->absorb, NULL, &v, &spec, &err) &&
              render_kernel(&spec, NULL, &src, &err) && compile_cubin(&src, &copt, &r, &err);
    if (ok) {
        printf("  %-20s %-24s %3d registers, %4d bytes stack, spills %d/%d bytes, %.2f s\n",
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
        CHECK_MSG(compile_family(&families[i]), "%s %s", families[i].input, families[i].name);
    }
    return check_summary("kernels");
}
