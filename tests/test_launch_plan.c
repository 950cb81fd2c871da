/* A batch kernel's run tiles and edge bins fitted to the entries a run may
 * have (runtime/engine/launch_plan.c, launch_tiles_fit): the whole grid
 * when it fits, else the edge bins first and the squarest tile of the
 * rest, none under 16 bins.  The GPU tests check the tallies; these check
 * the plan itself, with the extents measured on an H100 (docs/batches.md:
 * lut100's 100 runs 18x18 and edge bins, 23x23 without). */
#include "check.h"
#include "launch_plan.h"
#include "spec.h"

/* A batch spec of an nr x nz grid whose tiles may reach cap_nr x cap_nz. */
static kernel_spec batch_of(int nr, int nz, int cap_nr, int cap_nz, bool edges)
{
    kernel_spec s;
    spec_init(&s);
    s.num_layers = 1;
    s.nr = nr;
    s.nz = nz;
    s.na = 1;
    s.knobs.tile_nr = cap_nr;
    s.knobs.tile_nz = cap_nz;
    s.knobs.edge_cache = edges;
    spec_for_batch(&s);
    return s;
}

static void expect(const char *what, size_t entries, const kernel_spec *s, unsigned nr, unsigned nz,
                   unsigned edges)
{
    gpu_run_tiles t;
    launch_tiles_fit(entries, s, &t);
    CHECK_MSG(t.nr == nr && t.nz == nz && t.edge_bins == edges,
              "%s: %zu entries gave %ux%u and %u edge bins, expected %ux%u and %u", what, entries,
              t.nr, t.nz, t.edge_bins, nr, nz, edges);
    CHECK_MSG((size_t)t.nr * t.nz + t.edge_bins <= entries, "%s: more entries than %zu", what,
              entries);
}

int main(void)
{
    kernel_spec lut = batch_of(100, 100, 100, 100, true);
    kernel_spec lut_plain = batch_of(100, 100, 100, 100, false);
    CHECK(lut.knobs.edge_cache && !lut_plain.knobs.edge_cache);
    expect("lut100 on an H100", 530, &lut, 18, 18, 199);
    expect("lut100, no edge bins", 530, &lut_plain, 23, 23, 0);
    expect("the whole grid", 10000, &lut, 100, 100, 0);
    expect("the whole grid, short of room for edges too", 10100, &lut, 100, 100, 0);
    expect("no room for the edge bins", 150, &lut, 12, 12, 0);
    expect("the edge bins alone", 210, &lut, 0, 0, 199);
    expect("too few for a tile", 15, &lut_plain, 0, 0, 0);
    kernel_spec capped = batch_of(100, 100, 16, 16, true);
    expect("tile capped at 16x16", 10000, &capped, 16, 16, 199);
    kernel_spec thin = batch_of(20, 500, 20, 500, true);
    expect("a thin grid", 1000, &thin, 20, 24, 519);
    return check_summary("test_launch_plan");
}
