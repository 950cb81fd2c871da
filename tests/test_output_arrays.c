/* output_arrays: the table of output arrays (runtime/io/output_arrays.h) is
 * whole and agrees with itself: unique names, each integer tally exactly one
 * tallied row, in the table's order (ORDER OUTPUT: the checkpoint's, the
 * digest's and the kernel's order), derived rows summed from a tally whose
 * axes hold theirs, .mco titles ending in the section's name, and the
 * fields by name and by number one and the same. */
#include <string.h>

#include "check.h"
#include "output_arrays.h"
#include "result.h"
#include "tally.h"

static bool holds_axis(const output_array *o, output_axis axis)
{
    for (int d = 0; d < o->rank; d++)
        if (o->axes[d] == axis)
            return true;
    return false;
}

static void test_rows(void)
{
    int last_tally = -1;
    for (int i = 0; i < OUTPUT_ARRAYS; i++) {
        const output_array *o = &output_table[i];
        CHECK_MSG(o->name && *o->name && o->unit && *o->unit, "row %d", i);
        CHECK_MSG(output_by_name(o->name) == o, "%s: a second row of that name", o->name);
        CHECK_MSG(o->rank >= 1 && o->rank <= OUTPUT_MAX_RANK, "%s: rank %d", o->name, o->rank);
        /* Every run's arrays come from every run's tallies; the optional ones
         * (path lengths, time bins, the detector) from the optional tallies,
         * the path lengths as means over an escape tally's weight. */
        CHECK_MSG(o->option ? o->tally >= OUTPUT_TALLIES && o->tally < OUTPUT_TALLIES_ALL
                            : o->tally >= 0 && o->tally < OUTPUT_TALLIES,
                  "%s: tally %d", o->name, o->tally);
        CHECK_MSG(o->option != OUTPUT_OPTION_PATHS || o->path_of == OUTPUT_TALLY_RD_RA ||
                      o->path_of == OUTPUT_TALLY_TT_RA,
                  "%s: a mean over an escape tally's weight", o->name);
        CHECK_MSG(!o->option || i > OUTPUT_TALLY_TT_RA + 6, "%s: optional rows after MCML's",
                  o->name);
        CHECK_MSG(o->option >= OUTPUT_OPTION_NONE && o->option < OUTPUT_OPTIONS, "%s: option %d",
                  o->name, (int)o->option);
        const output_array *t = output_tally(o->tally);
        CHECK_MSG(t != NULL, "%s: tally %d has no row", o->name, o->tally);
        if (!t)
            continue;
        CHECK_MSG(o->tallied == (t == o), "%s: tallied, yet not its tally's row", o->name);
        /* Every run's tallies run along r first (the detector's has one
         * entry a detector; a derivative tally runs along r or a, then its
         * layers and terms; a spatial-frequency tally's parts come first,
         * then its frequencies; a modulation tally runs along r, then its
         * frequencies and parts; the Cartesian grid's along x, then y or
         * z). */
        bool derivative = t->option == OUTPUT_OPTION_JACOBIAN;
        bool fx = t->option == OUTPUT_OPTION_FX, mod = t->option == OUTPUT_OPTION_MOD;
        bool xy = t->option == OUTPUT_OPTION_XY;
        CHECK_MSG(
            t->option == OUTPUT_OPTION_FIBER || derivative || fx ||
                (t->rank == (mod ? 3 : 2) && t->axes[0] == (xy ? OUTPUT_AXIS_XY : OUTPUT_AXIS_R)),
            "%s: a tally runs along r first", t->name);
        CHECK_MSG(
            !xy || (o == t && (t->axes[1] == OUTPUT_AXIS_XY || t->axes[1] == OUTPUT_AXIS_Z) &&
                    (t->norm == (t->axes[1] == OUTPUT_AXIS_Z ? OUTPUT_NORM_XZ : OUTPUT_NORM_XY))),
            "%s: a Cartesian tally's axes", t->name);
        CHECK_MSG(!mod || (t->axes[1] == OUTPUT_AXIS_MOD && t->axes[2] == OUTPUT_AXIS_MOD_PART &&
                           o->axes[o->rank - 1] == OUTPUT_AXIS_MOD &&
                           (o->rank == 1 || o->axes[0] == OUTPUT_AXIS_R)),
                  "%s: a modulation tally's axes", o->name);
        CHECK_MSG(!fx || (t->rank == 2 && t->axes[0] == OUTPUT_AXIS_FX_PART &&
                          t->axes[1] == OUTPUT_AXIS_FX && o->rank == 1 &&
                          o->axes[0] == OUTPUT_AXIS_FX && o->norm == OUTPUT_NORM_FX),
                  "%s: a spatial-frequency tally's axes", t->name);
        CHECK_MSG(!derivative ||
                      (t->rank >= 3 && t->axes[t->rank - 2] == OUTPUT_AXIS_JACOBIAN_LAYER &&
                       t->axes[t->rank - 1] == OUTPUT_AXIS_TERM && o->rank >= 2 &&
                       o->axes[o->rank - 2] == OUTPUT_AXIS_LAYER &&
                       o->axes[o->rank - 1] == OUTPUT_AXIS_PARAM),
                  "%s: a Jacobian's axes", o->name);
        CHECK_MSG(o->option == t->option, "%s: in its tally's group", o->name);
        CHECK_MSG(o->absorption == t->absorption, "%s: -A zeroes it as its tally, or not", o->name);
        CHECK_MSG((o->total != 0) == (o->tallied && !o->option),
                  "%s: a tally of every run, and only one, has a total", o->name);
        for (int d = 0; d < o->rank - (derivative ? 2 : 0); d++)
            CHECK_MSG(o->axes[d] == OUTPUT_AXIS_LAYER && !o->option ? holds_axis(t, OUTPUT_AXIS_Z)
                                                                    : holds_axis(t, o->axes[d]),
                      "%s: axis %d is not its tally's", o->name, d);
        if (o->tallied) {
            CHECK_MSG(o->tally > last_tally, "%s: tallies out of the table's order", o->name);
            last_tally = o->tally;
        }
        /* The .mco section: MCML's name ends its title, as mco_read finds
         * it; the Jacobians have none. */
        CHECK_MSG(!o->mco_title == derivative, "%s: an .mco title but for a Jacobian", o->name);
        if (!o->mco_title)
            continue;
        const char *line = strrchr(o->mco_title, '\n');
        line = line ? line + 1 : o->mco_title;
        CHECK_MSG(strncmp(line, o->name, strlen(o->name)) == 0 &&
                      (line[strlen(o->name)] == '\0' || line[strlen(o->name)] == ' '),
                  "%s: title line \"%s\"", o->name, line);
        CHECK_MSG(o->mco_per_line == 1 || o->mco_per_line == 5, "%s: %d a line", o->name,
                  o->mco_per_line);
    }
    CHECK(last_tally == OUTPUT_TALLY_A_XZ);
    /* The derivative tallies to the modulation's: rows of their own, after
     * the fiber's, in order, before the Cartesian grid's. */
    CHECK(OUTPUT_TALLY_RD_JR == OUTPUT_TALLY_RD_FIBER + 1 &&
          OUTPUT_TALLY_RD_XY == OUTPUT_TALLY_RD_JR + OUTPUT_HIDDEN_TALLIES);
    for (int k = OUTPUT_TALLY_RD_JR; k < OUTPUT_TALLY_RD_JR + OUTPUT_HIDDEN_TALLIES; k++)
        CHECK(output_tally(k) == &output_hidden_tallies[k - OUTPUT_TALLY_RD_JR] &&
              output_tally(k)->tally == k && output_tally(k)->tallied &&
              !output_by_name(output_tally(k)->name));
    CHECK(output_by_name("RAT") == NULL && output_by_name("rd_ra") == NULL);
}

static void test_sizes(void)
{
    const output_grid g = {.nr = 3, .nz = 5, .na = 2, .num_layers = 4};
    const output_array *a_l = output_by_name("A_l"), *a_rz = output_by_name("A_rz");
    CHECK(a_l && output_bins(a_l, &g) == 4 && output_stored(a_l, &g) == 6 &&
          output_first(a_l) == 1);
    CHECK(a_rz && output_bins(a_rz, &g) == 15 && output_stored(a_rz, &g) == 15 &&
          output_first(a_rz) == 0);
    CHECK(output_tally_bins(OUTPUT_TALLY_A_RZ, 3, 5, 2) == 15);
    CHECK(output_tally_bins(OUTPUT_TALLY_TT_RA, 3, 5, 2) == 6);
    CHECK(output_tally_grid_bins(OUTPUT_TALLY_RD_PATH, &g) == 12);
    const output_array *total = output_by_name("Rd_path_total");
    CHECK(total && output_bins(total, &g) == 4 && output_first(total) == 1);
    /* The optional axes: time bins and detectors. */
    const output_grid gt = {.nr = 3, .nz = 5, .na = 2, .num_layers = 4, .nt = 7, .detectors = 1};
    CHECK(output_tally_grid_bins(OUTPUT_TALLY_RD_RT, &gt) == 21);
    CHECK(output_tally_grid_bins(OUTPUT_TALLY_RD_FIBER, &gt) == 1);
    const output_array *rd_t = output_by_name("Rd_t");
    CHECK(rd_t && output_bins(rd_t, &gt) == 7 && output_first(rd_t) == 0);
}

/* The named fields and the numbered ones are the same pointers. */
static void test_fields(void)
{
    tally_set t;
    CHECK(tally_set_init(&t, 3, 5, 2));
    CHECK(t.a_rz == t.tally[OUTPUT_TALLY_A_RZ] && t.rd_ra == t.tally[OUTPUT_TALLY_RD_RA] &&
          t.tt_ra == t.tally[OUTPUT_TALLY_TT_RA]);
    CHECK(!t.rd_path && !t.tt_path && !tally_set_has(&t, OUTPUT_TALLY_RD_PATH));
    output_grid layers = output_option_grid(OUTPUT_OPTION_PATHS, 4);
    CHECK(tally_set_add_options(&t, &layers) && t.rd_path == t.tally[OUTPUT_TALLY_RD_PATH] &&
          t.tt_path == t.tally[OUTPUT_TALLY_TT_PATH] &&
          tally_set_bins(&t, OUTPUT_TALLY_TT_PATH) == 12);
    tally_set_free(&t);
    mcml_result res;
    CHECK(result_alloc(&res, 3, 5, 2, 4));
    CHECK(offsetof(mcml_result, a_l) == offsetof(mcml_result, array[0]) &&
          offsetof(mcml_result, a_xz) == offsetof(mcml_result, array[OUTPUT_ARRAYS - 1]));
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        CHECK((res.array[i] != NULL) == !output_table[i].option);
    CHECK(result_alloc_paths(&res) && result_has_paths(&res));
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        CHECK((res.array[i] != NULL) == (output_table[i].option <= OUTPUT_OPTION_PATHS));
    CHECK(result_alloc_time(&res, 7) && res.rd_rt && res.tt_t && res.nt == 7);
    CHECK(result_alloc_detectors(&res, 1) && res.rd_fiber && res.detectors == 1);
    CHECK(result_alloc_jacobian(&res) && res.rd_jacobian && res.tt_a_jacobian);
    CHECK(result_alloc_fx(&res, 3) && res.rd_fx && res.tt_fx && res.frequencies == 3);
    CHECK(result_alloc_mod(&res, 2) && res.rd_r_ac && res.rd_phase && res.modulations == 2);
    CHECK(result_alloc_xy(&res, 6) && res.rd_xy && res.tt_xy && res.a_xz && res.xy == 6);
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        CHECK(res.array[i] != NULL);
    result_free(&res);
}

/* The optional groups' tallies added from their axes' lengths (the table
 * names each group's axis), each group on its own and together. */
static void test_option_tallies(void)
{
    CHECK(output_option_axis(OUTPUT_OPTION_PATHS) == OUTPUT_AXIS_LAYER &&
          output_option_axis(OUTPUT_OPTION_TIME) == OUTPUT_AXIS_T &&
          output_option_axis(OUTPUT_OPTION_FIBER) == OUTPUT_AXIS_DETECTOR &&
          output_option_axis(OUTPUT_OPTION_JACOBIAN) == OUTPUT_AXIS_JACOBIAN_LAYER &&
          output_option_axis(OUTPUT_OPTION_FX) == OUTPUT_AXIS_FX &&
          output_option_axis(OUTPUT_OPTION_MOD) == OUTPUT_AXIS_MOD &&
          output_option_axis(OUTPUT_OPTION_XY) == OUTPUT_AXIS_XY);
    output_grid time = output_option_grid(OUTPUT_OPTION_TIME, 7);
    CHECK(time.nt == 7 && time.num_layers == 0 && time.detectors == 0 && time.nr == 0);
    tally_set t;
    CHECK(tally_set_init(&t, 3, 5, 2));
    CHECK(tally_set_add_options(&t, &time) && t.rd_rt && t.tt_rt && !t.rd_path && !t.rd_fiber);
    CHECK(tally_set_option_length(&t, OUTPUT_OPTION_TIME) == 7 &&
          tally_set_option_length(&t, OUTPUT_OPTION_PATHS) == 0 &&
          tally_set_bins(&t, OUTPUT_TALLY_RD_RT) == 21);
    tally_acc_t *kept = t.rd_rt; /* a group added again keeps its tallies */
    output_grid all = {.num_layers = 2, .nt = 7, .detectors = 1};
    CHECK(tally_set_add_options(&t, &all) && t.rd_rt == kept && t.rd_path && t.tt_path &&
          t.rd_fiber && tally_set_bins(&t, OUTPUT_TALLY_RD_FIBER) == 1 &&
          tally_set_option_length(&t, OUTPUT_OPTION_FIBER) == 1);
    tally_batch b;
    CHECK(tally_batch_init(&b, 3, 5, 2));
    CHECK(tally_batch_add_options(&b, &(output_grid){.num_layers = 2}) && b.rd_path && b.tt_path &&
          !b.rd_rt && !b.rd_fiber && b.num_layers == 2 && b.nt == 0);
    /* The derivatives: their own layers, apart from the path lengths'. */
    output_grid derivatives = output_option_grid(OUTPUT_OPTION_JACOBIAN, 3);
    CHECK(derivatives.jacobian_layers == 3 && derivatives.num_layers == 0);
    CHECK(tally_set_add_options(&t, &derivatives) && t.rd_jr && t.rd_ja && t.tt_jr && t.tt_ja &&
          t.num_layers == 2 && tally_set_option_length(&t, OUTPUT_OPTION_JACOBIAN) == 3 &&
          tally_set_bins(&t, OUTPUT_TALLY_RD_JR) == 3 * 3 * OUTPUT_TERMS &&
          tally_set_bins(&t, OUTPUT_TALLY_TT_JA) == 2 * 3 * OUTPUT_TERMS);
    /* The spatial frequencies: two parts a frequency. */
    output_grid frequencies = output_option_grid(OUTPUT_OPTION_FX, 4);
    CHECK(frequencies.frequencies == 4 && frequencies.nt == 0);
    CHECK(tally_set_add_options(&t, &frequencies) && t.rd_fx_parts && t.tt_fx_parts &&
          tally_set_option_length(&t, OUTPUT_OPTION_FX) == 4 &&
          tally_set_bins(&t, OUTPUT_TALLY_TT_FX) == OUTPUT_FX_PARTS * 4);
    /* The modulation frequencies: four parts a ring and frequency. */
    output_grid modulations = output_option_grid(OUTPUT_OPTION_MOD, 5);
    CHECK(modulations.modulations == 5 && modulations.frequencies == 0);
    CHECK(tally_set_add_options(&t, &modulations) && t.rd_mod_parts &&
          tally_set_option_length(&t, OUTPUT_OPTION_MOD) == 5 &&
          tally_set_bins(&t, OUTPUT_TALLY_RD_MOD) == 3 * 5 * OUTPUT_MOD_PARTS);
    /* The Cartesian grid: xy x xy cells on the surface, xy x nz below. */
    output_grid xy = output_option_grid(OUTPUT_OPTION_XY, 6);
    CHECK(xy.xy == 6 && xy.modulations == 0 && xy.nz == 0);
    CHECK(tally_set_add_options(&t, &xy) && t.rd_xy && t.tt_xy && t.a_xz &&
          tally_set_option_length(&t, OUTPUT_OPTION_XY) == 6 &&
          tally_set_bins(&t, OUTPUT_TALLY_TT_XY) == 36 &&
          tally_set_bins(&t, OUTPUT_TALLY_A_XZ) == 30);
    tally_set other;
    CHECK(tally_set_init(&other, 3, 5, 2));
    CHECK(tally_set_add_options_of(&other, &t) && tally_set_equal(&other, &t));
    tally_set_free(&other);
    tally_batch_free(&b);
    tally_set_free(&t);
}

int main(void)
{
    test_rows();
    test_sizes();
    test_fields();
    test_option_tallies();
    return check_summary("output_arrays");
}
