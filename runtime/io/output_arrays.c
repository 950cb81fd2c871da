/* The table of output arrays and what is read from it (output_arrays.h). */
#include "output_arrays.h"

#include <string.h>

#include "result.h"
#include "tally.h"

#define TOTAL(field) offsetof(mcml_result, field)

/* ORDER OUTPUT (output_arrays.h): append new arrays at the end.  The .mco
 * titles and number formats are MCML 1.2.2's (WriteResult in mcmlio.c),
 * character for character. */
const output_array output_table[OUTPUT_ARRAYS] = {
    {.name = "A_l",
     .rank = 1,
     .axes = {OUTPUT_AXIS_LAYER},
     .unit = "-",
     .tally = OUTPUT_TALLY_A_RZ,
     .norm = OUTPUT_NORM_LAYER,
     .absorption = true,
     .mco_title = "A_l #Absorption as a function of layer. [-]",
     .mco_number = "%12.4G",
     .mco_per_line = 1,
     .json = OUTPUT_JSON_LIST},
    {.name = "A_z",
     .rank = 1,
     .axes = {OUTPUT_AXIS_Z},
     .unit = "1/cm",
     .tally = OUTPUT_TALLY_A_RZ,
     .norm = OUTPUT_NORM_Z,
     .absorption = true,
     .mco_title = "A_z #A[0], [1],..A[nz-1]. [1/cm]",
     .mco_number = "%12.4E",
     .mco_per_line = 1},
    {.name = "Rd_r",
     .rank = 1,
     .axes = {OUTPUT_AXIS_R},
     .unit = "1/cm2",
     .tally = OUTPUT_TALLY_RD_RA,
     .norm = OUTPUT_NORM_R,
     .mco_title = "Rd_r #Rd[0], [1],..Rd[nr-1]. [1/cm2]",
     .mco_number = "%12.4E",
     .mco_per_line = 1},
    {.name = "Rd_a",
     .rank = 1,
     .axes = {OUTPUT_AXIS_A},
     .unit = "1/sr",
     .tally = OUTPUT_TALLY_RD_RA,
     .norm = OUTPUT_NORM_A,
     .mco_title = "Rd_a #Rd[0], [1],..Rd[na-1]. [sr-1]",
     .mco_number = "%12.4E",
     .mco_per_line = 1},
    {.name = "Tt_r",
     .rank = 1,
     .axes = {OUTPUT_AXIS_R},
     .unit = "1/cm2",
     .tally = OUTPUT_TALLY_TT_RA,
     .norm = OUTPUT_NORM_R,
     .mco_title = "Tt_r #Tt[0], [1],..Tt[nr-1]. [1/cm2]",
     .mco_number = "%12.4E",
     .mco_per_line = 1},
    {.name = "Tt_a",
     .rank = 1,
     .axes = {OUTPUT_AXIS_A},
     .unit = "1/sr",
     .tally = OUTPUT_TALLY_TT_RA,
     .norm = OUTPUT_NORM_A,
     .mco_title = "Tt_a #Tt[0], [1],..Tt[na-1]. [sr-1]",
     .mco_number = "%12.4E",
     .mco_per_line = 1},
    {.name = "A_rz",
     .rank = 2,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_Z},
     .unit = "1/cm3",
     .tally = OUTPUT_TALLY_A_RZ,
     .tallied = true,
     .norm = OUTPUT_NORM_RZ,
     .total = TOTAL(a),
     .absorption = true,
     .mco_title = "# A[r][z]. [1/cm3]\n"
                  "# A[0][0], [0][1],..[0][nz-1]\n"
                  "# A[1][0], [1][1],..[1][nz-1]\n"
                  "# ...\n"
                  "# A[nr-1][0], [nr-1][1],..[nr-1][nz-1]\n"
                  "A_rz",
     .mco_number = "%12.4E",
     .mco_per_line = 5},
    {.name = "Rd_ra",
     .rank = 2,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_A},
     .unit = "1/(cm2 sr)",
     .tally = OUTPUT_TALLY_RD_RA,
     .tallied = true,
     .norm = OUTPUT_NORM_RA,
     .total = TOTAL(rd),
     .mco_title = "# Rd[r][angle]. [1/(cm2sr)].\n"
                  "# Rd[0][0], [0][1],..[0][na-1]\n"
                  "# Rd[1][0], [1][1],..[1][na-1]\n"
                  "# ...\n"
                  "# Rd[nr-1][0], [nr-1][1],..[nr-1][na-1]\n"
                  "Rd_ra",
     .mco_number = "%12.4E",
     .mco_per_line = 5},
    {.name = "Tt_ra",
     .rank = 2,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_A},
     .unit = "1/(cm2 sr)",
     .tally = OUTPUT_TALLY_TT_RA,
     .tallied = true,
     .norm = OUTPUT_NORM_RA,
     .total = TOTAL(tt),
     .mco_title = "# Tt[r][angle]. [1/(cm2sr)].\n"
                  "# Tt[0][0], [0][1],..[0][na-1]\n"
                  "# Tt[1][0], [1][1],..[1][na-1]\n"
                  "# ...\n"
                  "# Tt[nr-1][0], [nr-1][1],..[nr-1][na-1]\n"
                  "Tt_ra",
     .mco_number = "%12.4E",
     .mco_per_line = 5},
    /* The partial path lengths (docs/outputs.md, "Path lengths"): optional
     * rows, written after MCML's sections and only by runs that ask. */
    {.name = "Rd_path",
     .rank = 2,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_LAYER},
     .unit = "cm",
     .tally = OUTPUT_TALLY_RD_PATH,
     .tallied = true,
     .norm = OUTPUT_NORM_PATH,
     .option = OUTPUT_OPTION_PATHS,
     .path_of = OUTPUT_TALLY_RD_RA,
     .mco_title = "# Rd_path[r][layer]. Mean path [cm] in each layer of the weight\n"
                  "# leaving the top surface in ring r (not MCML's: an extra section).\n"
                  "# Rd_path[0][0], [0][1],..[0][nl-1]\n"
                  "# ...\n"
                  "# Rd_path[nr-1][0], [nr-1][1],..[nr-1][nl-1]\n"
                  "Rd_path",
     .mco_number = "%12.4E",
     .mco_per_line = 5},
    {.name = "Tt_path",
     .rank = 2,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_LAYER},
     .unit = "cm",
     .tally = OUTPUT_TALLY_TT_PATH,
     .tallied = true,
     .norm = OUTPUT_NORM_PATH,
     .option = OUTPUT_OPTION_PATHS,
     .path_of = OUTPUT_TALLY_TT_RA,
     .mco_title = "# Tt_path[r][layer]. Mean path [cm] in each layer of the weight\n"
                  "# leaving the bottom surface in ring r (not MCML's: an extra section).\n"
                  "# Tt_path[0][0], [0][1],..[0][nl-1]\n"
                  "# ...\n"
                  "# Tt_path[nr-1][0], [nr-1][1],..[nr-1][nl-1]\n"
                  "Tt_path",
     .mco_number = "%12.4E",
     .mco_per_line = 5},
    {.name = "Rd_path_total",
     .rank = 1,
     .axes = {OUTPUT_AXIS_LAYER},
     .unit = "cm",
     .tally = OUTPUT_TALLY_RD_PATH,
     .norm = OUTPUT_NORM_PATH_TOTAL,
     .option = OUTPUT_OPTION_PATHS,
     .path_of = OUTPUT_TALLY_RD_RA,
     .mco_title = "Rd_path_total #Mean path [cm] in layers 1..nl of all reflected weight.",
     .mco_number = "%12.4E",
     .mco_per_line = 1,
     .json = OUTPUT_JSON_LIST},
    {.name = "Tt_path_total",
     .rank = 1,
     .axes = {OUTPUT_AXIS_LAYER},
     .unit = "cm",
     .tally = OUTPUT_TALLY_TT_PATH,
     .norm = OUTPUT_NORM_PATH_TOTAL,
     .option = OUTPUT_OPTION_PATHS,
     .path_of = OUTPUT_TALLY_TT_RA,
     .mco_title = "Tt_path_total #Mean path [cm] in layers 1..nl of all transmitted weight.",
     .mco_number = "%12.4E",
     .mco_per_line = 1,
     .json = OUTPUT_JSON_LIST},
    /* Time-resolved escapes (docs/outputs.md, "Time-resolved"): optional
     * rows, binned as space is (the last time bin collects the later
     * escapes), so Rd_t summed times dt is Rd in integers. */
    {.name = "Rd_rt",
     .rank = 2,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_T},
     .unit = "1/(cm2 ns)",
     .tally = OUTPUT_TALLY_RD_RT,
     .tallied = true,
     .norm = OUTPUT_NORM_RT,
     .option = OUTPUT_OPTION_TIME,
     .mco_title = "# Rd[r][t]. [1/(cm2 ns)] Diffuse reflectance against time of flight\n"
                  "# (not MCML's: an extra section).\n"
                  "# Rd[0][0], [0][1],..[0][nt-1]\n"
                  "# ...\n"
                  "# Rd[nr-1][0], [nr-1][1],..[nr-1][nt-1]\n"
                  "Rd_rt",
     .mco_number = "%12.4E",
     .mco_per_line = 5},
    {.name = "Rd_t",
     .rank = 1,
     .axes = {OUTPUT_AXIS_T},
     .unit = "1/ns",
     .tally = OUTPUT_TALLY_RD_RT,
     .norm = OUTPUT_NORM_T,
     .option = OUTPUT_OPTION_TIME,
     .mco_title = "Rd_t #Rd[0], [1],..Rd[nt-1]. [1/ns]",
     .mco_number = "%12.4E",
     .mco_per_line = 1,
     .json = OUTPUT_JSON_LIST},
    {.name = "Tt_rt",
     .rank = 2,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_T},
     .unit = "1/(cm2 ns)",
     .tally = OUTPUT_TALLY_TT_RT,
     .tallied = true,
     .norm = OUTPUT_NORM_RT,
     .option = OUTPUT_OPTION_TIME,
     .mco_title = "# Tt[r][t]. [1/(cm2 ns)] Transmittance against time of flight\n"
                  "# (not MCML's: an extra section).\n"
                  "# Tt[0][0], [0][1],..[0][nt-1]\n"
                  "# ...\n"
                  "# Tt[nr-1][0], [nr-1][1],..[nr-1][nt-1]\n"
                  "Tt_rt",
     .mco_number = "%12.4E",
     .mco_per_line = 5},
    {.name = "Tt_t",
     .rank = 1,
     .axes = {OUTPUT_AXIS_T},
     .unit = "1/ns",
     .tally = OUTPUT_TALLY_TT_RT,
     .norm = OUTPUT_NORM_T,
     .option = OUTPUT_OPTION_TIME,
     .mco_title = "Tt_t #Tt[0], [1],..Tt[nt-1]. [1/ns]",
     .mco_number = "%12.4E",
     .mco_per_line = 1,
     .json = OUTPUT_JSON_LIST},
    /* The fiber detector (docs/physics.md, "Fiber detector"). */
    {.name = "Rd_fiber",
     .rank = 1,
     .axes = {OUTPUT_AXIS_DETECTOR},
     .unit = "-",
     .tally = OUTPUT_TALLY_RD_FIBER,
     .tallied = true,
     .norm = OUTPUT_NORM_COUNT,
     .option = OUTPUT_OPTION_FIBER,
     .mco_title = "Rd_fiber #Fraction of the photons the fiber detector collects. [-]",
     .mco_number = "%12.6E",
     .mco_per_line = 1,
     .json = OUTPUT_JSON_NUMBER},
    /* The Jacobians (docs/physics.md, "Derivatives"): optional rows of
     * the derivatives of the escapes with respect to each layer's mua, mus
     * and g, in the units of their escape array per 1/cm, per 1/cm and per
     * unit g (the unit says both); not in the .mco. */
    {.name = "Rd_jacobian",
     .rank = 2,
     .axes = {OUTPUT_AXIS_LAYER, OUTPUT_AXIS_PARAM},
     .unit = "cm (mua, mus); - (g)",
     .tally = OUTPUT_TALLY_RD_JR,
     .norm = OUTPUT_NORM_JACOBIAN_TOTAL,
     .option = OUTPUT_OPTION_JACOBIAN},
    {.name = "Rd_r_jacobian",
     .rank = 3,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_LAYER, OUTPUT_AXIS_PARAM},
     .unit = "1/cm (mua, mus); 1/cm2 (g)",
     .tally = OUTPUT_TALLY_RD_JR,
     .norm = OUTPUT_NORM_JACOBIAN_R,
     .option = OUTPUT_OPTION_JACOBIAN},
    {.name = "Rd_a_jacobian",
     .rank = 3,
     .axes = {OUTPUT_AXIS_A, OUTPUT_AXIS_LAYER, OUTPUT_AXIS_PARAM},
     .unit = "cm/sr (mua, mus); 1/sr (g)",
     .tally = OUTPUT_TALLY_RD_JA,
     .norm = OUTPUT_NORM_JACOBIAN_A,
     .option = OUTPUT_OPTION_JACOBIAN},
    {.name = "Tt_jacobian",
     .rank = 2,
     .axes = {OUTPUT_AXIS_LAYER, OUTPUT_AXIS_PARAM},
     .unit = "cm (mua, mus); - (g)",
     .tally = OUTPUT_TALLY_TT_JR,
     .norm = OUTPUT_NORM_JACOBIAN_TOTAL,
     .option = OUTPUT_OPTION_JACOBIAN},
    {.name = "Tt_r_jacobian",
     .rank = 3,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_LAYER, OUTPUT_AXIS_PARAM},
     .unit = "1/cm (mua, mus); 1/cm2 (g)",
     .tally = OUTPUT_TALLY_TT_JR,
     .norm = OUTPUT_NORM_JACOBIAN_R,
     .option = OUTPUT_OPTION_JACOBIAN},
    {.name = "Tt_a_jacobian",
     .rank = 3,
     .axes = {OUTPUT_AXIS_A, OUTPUT_AXIS_LAYER, OUTPUT_AXIS_PARAM},
     .unit = "cm/sr (mua, mus); 1/sr (g)",
     .tally = OUTPUT_TALLY_TT_JA,
     .norm = OUTPUT_NORM_JACOBIAN_A,
     .option = OUTPUT_OPTION_JACOBIAN},
    {.name = "Rd_rt_jacobian",
     .rank = 4,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_T, OUTPUT_AXIS_LAYER, OUTPUT_AXIS_PARAM},
     .unit = "1/(cm ns) (mua, mus); 1/(cm2 ns) (g)",
     .tally = OUTPUT_TALLY_RD_JT,
     .norm = OUTPUT_NORM_JACOBIAN_RT,
     .option = OUTPUT_OPTION_JACOBIAN},
    {.name = "Rd_t_jacobian",
     .rank = 3,
     .axes = {OUTPUT_AXIS_T, OUTPUT_AXIS_LAYER, OUTPUT_AXIS_PARAM},
     .unit = "cm/ns (mua, mus); 1/ns (g)",
     .tally = OUTPUT_TALLY_RD_JT,
     .norm = OUTPUT_NORM_JACOBIAN_T,
     .option = OUTPUT_OPTION_JACOBIAN},
    {.name = "Tt_rt_jacobian",
     .rank = 4,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_T, OUTPUT_AXIS_LAYER, OUTPUT_AXIS_PARAM},
     .unit = "1/(cm ns) (mua, mus); 1/(cm2 ns) (g)",
     .tally = OUTPUT_TALLY_TT_JT,
     .norm = OUTPUT_NORM_JACOBIAN_RT,
     .option = OUTPUT_OPTION_JACOBIAN},
    {.name = "Tt_t_jacobian",
     .rank = 3,
     .axes = {OUTPUT_AXIS_T, OUTPUT_AXIS_LAYER, OUTPUT_AXIS_PARAM},
     .unit = "cm/ns (mua, mus); 1/ns (g)",
     .tally = OUTPUT_TALLY_TT_JT,
     .norm = OUTPUT_NORM_JACOBIAN_T,
     .option = OUTPUT_OPTION_JACOBIAN},
    {.name = "Rd_fiber_jacobian",
     .rank = 3,
     .axes = {OUTPUT_AXIS_DETECTOR, OUTPUT_AXIS_LAYER, OUTPUT_AXIS_PARAM},
     .unit = "cm (mua, mus); - (g)",
     .tally = OUTPUT_TALLY_RD_JF,
     .norm = OUTPUT_NORM_JACOBIAN_COUNT,
     .option = OUTPUT_OPTION_JACOBIAN},
    /* The escapes' Hankel transforms at the spatial frequencies
     * (docs/physics.md, "Spatial frequencies"): R(fx), T(fx), a fraction
     * of the photons as Rd is (R(0) is Rd); the frequencies are the .mco's
     * header line's, the JSON's input.spatial_frequencies. */
    {.name = "Rd_fx",
     .rank = 1,
     .axes = {OUTPUT_AXIS_FX},
     .unit = "-",
     .tally = OUTPUT_TALLY_RD_FX,
     .norm = OUTPUT_NORM_FX,
     .option = OUTPUT_OPTION_FX,
     .mco_title = "Rd_fx #Rd(fx) at the spatial frequencies fx of the header. [-]",
     .mco_number = "%12.6E",
     .mco_per_line = 1,
     .json = OUTPUT_JSON_LIST},
    {.name = "Tt_fx",
     .rank = 1,
     .axes = {OUTPUT_AXIS_FX},
     .unit = "-",
     .tally = OUTPUT_TALLY_TT_FX,
     .norm = OUTPUT_NORM_FX,
     .option = OUTPUT_OPTION_FX,
     .mco_title = "Tt_fx #Tt(fx) at the spatial frequencies fx of the header. [-]",
     .mco_number = "%12.6E",
     .mco_per_line = 1,
     .json = OUTPUT_JSON_LIST},
    /* The reflectance in the frequency domain (docs/physics.md, "Frequency
     * domain"): amplitude and phase of sum w exp(-i omega t) per ring, as
     * Rd_r per area (at 0 Hz the amplitude would be Rd_r itself), and over
     * every ring, per photon as Rd; the frequencies are the .mco's header
     * line's, the JSON's input.modulation_frequencies. */
    {.name = "Rd_r_ac",
     .rank = 2,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_MOD},
     .unit = "1/cm2",
     .tally = OUTPUT_TALLY_RD_MOD,
     .norm = OUTPUT_NORM_MOD_AC_R,
     .option = OUTPUT_OPTION_MOD,
     .mco_title = "# Rd_ac[r][f]. [1/cm2] Amplitude of the diffuse reflectance at the\n"
                  "# modulation frequencies f of the header (not MCML's: an extra section).\n"
                  "# Rd_ac[0][0], [0][1],..[0][nf-1]\n"
                  "# ...\n"
                  "# Rd_ac[nr-1][0], [nr-1][1],..[nr-1][nf-1]\n"
                  "Rd_r_ac",
     .mco_number = "%12.4E",
     .mco_per_line = 5},
    {.name = "Rd_r_phase",
     .rank = 2,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_MOD},
     .unit = "rad",
     .tally = OUTPUT_TALLY_RD_MOD,
     .norm = OUTPUT_NORM_MOD_PHASE_R,
     .option = OUTPUT_OPTION_MOD,
     .mco_title = "# Rd_phase[r][f]. [rad] Phase lag of the diffuse reflectance at the\n"
                  "# modulation frequencies f of the header, in (-pi, pi] (not MCML's).\n"
                  "# Rd_phase[0][0], [0][1],..[0][nf-1]\n"
                  "# ...\n"
                  "# Rd_phase[nr-1][0], [nr-1][1],..[nr-1][nf-1]\n"
                  "Rd_r_phase",
     .mco_number = "%12.4E",
     .mco_per_line = 5},
    {.name = "Rd_ac",
     .rank = 1,
     .axes = {OUTPUT_AXIS_MOD},
     .unit = "-",
     .tally = OUTPUT_TALLY_RD_MOD,
     .norm = OUTPUT_NORM_MOD_AC,
     .option = OUTPUT_OPTION_MOD,
     .mco_title = "Rd_ac #Amplitude of Rd at the modulation frequencies f of the header. [-]",
     .mco_number = "%12.6E",
     .mco_per_line = 1,
     .json = OUTPUT_JSON_LIST},
    {.name = "Rd_phase",
     .rank = 1,
     .axes = {OUTPUT_AXIS_MOD},
     .unit = "rad",
     .tally = OUTPUT_TALLY_RD_MOD,
     .norm = OUTPUT_NORM_MOD_PHASE,
     .option = OUTPUT_OPTION_MOD,
     .mco_title = "Rd_phase #Phase lag of Rd at the modulation frequencies f of the header. [rad]",
     .mco_number = "%12.6E",
     .mco_per_line = 1,
     .json = OUTPUT_JSON_LIST},
    /* The Cartesian grid (docs/outputs.md, "Cartesian grid"): nx x nx
     * square cells of side dx centred on the entry point, x the slower
     * axis; what escapes or is absorbed beyond it is not in it (unlike
     * MCML's last ring). */
    {.name = "Rd_xy",
     .rank = 2,
     .axes = {OUTPUT_AXIS_XY, OUTPUT_AXIS_XY},
     .unit = "1/cm2",
     .tally = OUTPUT_TALLY_RD_XY,
     .tallied = true,
     .norm = OUTPUT_NORM_XY,
     .option = OUTPUT_OPTION_XY,
     .mco_title = "# Rd[x][y]. [1/cm2] Diffuse reflectance on the Cartesian grid of the header,\n"
                  "# cells of x, y in [-nx dx / 2, nx dx / 2) (not MCML's: an extra section).\n"
                  "# Rd[0][0], [0][1],..[0][nx-1]\n"
                  "# ...\n"
                  "# Rd[nx-1][0], [nx-1][1],..[nx-1][nx-1]\n"
                  "Rd_xy",
     .mco_number = "%12.4E",
     .mco_per_line = 5},
    {.name = "Tt_xy",
     .rank = 2,
     .axes = {OUTPUT_AXIS_XY, OUTPUT_AXIS_XY},
     .unit = "1/cm2",
     .tally = OUTPUT_TALLY_TT_XY,
     .tallied = true,
     .norm = OUTPUT_NORM_XY,
     .option = OUTPUT_OPTION_XY,
     .mco_title = "# Tt[x][y]. [1/cm2] Total transmittance on the Cartesian grid of the header\n"
                  "# (not MCML's).\n"
                  "# Tt[0][0], [0][1],..[0][nx-1]\n"
                  "# ...\n"
                  "# Tt[nx-1][0], [nx-1][1],..[nx-1][nx-1]\n"
                  "Tt_xy",
     .mco_number = "%12.4E",
     .mco_per_line = 5},
    {.name = "A_xz",
     .rank = 2,
     .axes = {OUTPUT_AXIS_XY, OUTPUT_AXIS_Z},
     .unit = "1/cm2",
     .tally = OUTPUT_TALLY_A_XZ,
     .tallied = true,
     .norm = OUTPUT_NORM_XZ,
     .absorption = true,
     .option = OUTPUT_OPTION_XY,
     .mco_title = "# A[x][z]. [1/cm2] Absorption in the x-z plane, integrated over y, on the\n"
                  "# Cartesian grid's x cells and the run's z bins (not MCML's).\n"
                  "# A[0][0], [0][1],..[0][nz-1]\n"
                  "# ...\n"
                  "# A[nx-1][0], [nx-1][1],..[nx-1][nz-1]\n"
                  "A_xz",
     .mco_number = "%12.4E",
     .mco_per_line = 5},
};

/* The derivative tallies' rows (output_arrays.h): per escape ring or angle,
 * layer and term; the sums over escapes are w S_i, w c_i and the parts of
 * w G_i (output_jacobian_term). */
#define JACOBIAN_TALLY(tally_name, first_axis, k)                                                  \
    {                                                                                              \
        .name = tally_name, .rank = 3,                                                             \
        .axes = {first_axis, OUTPUT_AXIS_JACOBIAN_LAYER, OUTPUT_AXIS_TERM}, .unit = "-",           \
        .tally = k, .tallied = true, .option = OUTPUT_OPTION_JACOBIAN                              \
    }
/* Per ring and time bin: the time-resolved escapes' (with time bins too). */
#define JACOBIAN_TIME_TALLY(tally_name, k)                                                         \
    {                                                                                              \
        .name = tally_name, .rank = 4,                                                             \
        .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_T, OUTPUT_AXIS_JACOBIAN_LAYER, OUTPUT_AXIS_TERM},      \
        .unit = "-", .tally = k, .tallied = true, .option = OUTPUT_OPTION_JACOBIAN                 \
    }
const output_array output_hidden_tallies[OUTPUT_HIDDEN_TALLIES] = {
    JACOBIAN_TALLY("Rd_r_terms", OUTPUT_AXIS_R, OUTPUT_TALLY_RD_JR),
    JACOBIAN_TALLY("Rd_a_terms", OUTPUT_AXIS_A, OUTPUT_TALLY_RD_JA),
    JACOBIAN_TALLY("Tt_r_terms", OUTPUT_AXIS_R, OUTPUT_TALLY_TT_JR),
    JACOBIAN_TALLY("Tt_a_terms", OUTPUT_AXIS_A, OUTPUT_TALLY_TT_JA),
    JACOBIAN_TIME_TALLY("Rd_rt_terms", OUTPUT_TALLY_RD_JT),
    JACOBIAN_TIME_TALLY("Tt_rt_terms", OUTPUT_TALLY_TT_JT),
    JACOBIAN_TALLY("Rd_fiber_terms", OUTPUT_AXIS_DETECTOR, OUTPUT_TALLY_RD_JF),
    {.name = "set_weights",
     .rank = 1,
     .axes = {OUTPUT_AXIS_SET_WEIGHTS},
     .unit = "-",
     .tally = OUTPUT_TALLY_SET_WEIGHTS,
     .tallied = true,
     .option = OUTPUT_OPTION_OPTICS},
    /* The parts first, so that the frequencies are the second axis, as the
     * other groups' (output_option_axis). */
    {.name = "Rd_fx_parts",
     .rank = 2,
     .axes = {OUTPUT_AXIS_FX_PART, OUTPUT_AXIS_FX},
     .unit = "-",
     .tally = OUTPUT_TALLY_RD_FX,
     .tallied = true,
     .option = OUTPUT_OPTION_FX},
    {.name = "Tt_fx_parts",
     .rank = 2,
     .axes = {OUTPUT_AXIS_FX_PART, OUTPUT_AXIS_FX},
     .unit = "-",
     .tally = OUTPUT_TALLY_TT_FX,
     .tallied = true,
     .option = OUTPUT_OPTION_FX},
    /* The parts last, so that the frequencies are the second axis, as the
     * other groups' (output_option_axis), and a ring's scores of one
     * escape are close together. */
    {.name = "Rd_mod_parts",
     .rank = 3,
     .axes = {OUTPUT_AXIS_R, OUTPUT_AXIS_MOD, OUTPUT_AXIS_MOD_PART},
     .unit = "-",
     .tally = OUTPUT_TALLY_RD_MOD,
     .tallied = true,
     .option = OUTPUT_OPTION_MOD},
};

/* The fields by name and by number are one and the same (the unions of
 * OUTPUT_TALLY_FIELDS and OUTPUT_RESULT_FIELDS): checked at the last of
 * each, since the names are consecutive pointers of one type. */
_Static_assert(offsetof(tally_set, a_xz) == offsetof(tally_set, tally[OUTPUT_TALLIES_ALL - 1]),
               "ORDER OUTPUT: tally_set's named tallies");
_Static_assert(offsetof(tally_batch, a_xz) == offsetof(tally_batch, tally[OUTPUT_TALLIES_ALL - 1]),
               "ORDER OUTPUT: tally_batch's named tallies");
_Static_assert(offsetof(tally_set, a_rz) == offsetof(tally_set, tally[OUTPUT_TALLY_A_RZ]),
               "ORDER OUTPUT: tally_set's named tallies");
_Static_assert(offsetof(mcml_result, a_l) == offsetof(mcml_result, array[0]) &&
                   offsetof(mcml_result, a_xz) == offsetof(mcml_result, array[OUTPUT_ARRAYS - 1]),
               "ORDER OUTPUT: mcml_result's named arrays");

uint64_t output_axis_length(output_axis axis, const output_grid *g)
{
    switch (axis) {
    case OUTPUT_AXIS_LAYER: return (uint64_t)g->num_layers;
    case OUTPUT_AXIS_R: return (uint64_t)g->nr;
    case OUTPUT_AXIS_Z: return (uint64_t)g->nz;
    case OUTPUT_AXIS_A: return (uint64_t)g->na;
    case OUTPUT_AXIS_T: return (uint64_t)g->nt;
    case OUTPUT_AXIS_DETECTOR: return (uint64_t)g->detectors;
    case OUTPUT_AXIS_JACOBIAN_LAYER: return (uint64_t)g->jacobian_layers;
    case OUTPUT_AXIS_TERM: return OUTPUT_TERMS;
    case OUTPUT_AXIS_PARAM: return OUTPUT_PARAMS;
    case OUTPUT_AXIS_SET_WEIGHTS: return (uint64_t)g->set_weights;
    case OUTPUT_AXIS_FX: return (uint64_t)g->frequencies;
    case OUTPUT_AXIS_FX_PART: return OUTPUT_FX_PARTS;
    case OUTPUT_AXIS_MOD: return (uint64_t)g->modulations;
    case OUTPUT_AXIS_MOD_PART: return OUTPUT_MOD_PARTS;
    case OUTPUT_AXIS_XY: return (uint64_t)g->xy;
    }
    return 0;
}

output_axis output_option_axis(output_option group)
{
    const output_array *o = NULL;
    for (int k = OUTPUT_TALLIES; k < OUTPUT_TALLIES_ALL && !o; k++)
        if (output_tally(k)->option == group)
            o = output_tally(k);
    return o ? o->axes[o->rank == 1 ? 0 : 1] : OUTPUT_AXIS_R;
}

output_grid output_option_grid(output_option group, int length)
{
    output_grid g = {0};
    switch (output_option_axis(group)) {
    case OUTPUT_AXIS_LAYER: g.num_layers = length; break;
    case OUTPUT_AXIS_T: g.nt = length; break;
    case OUTPUT_AXIS_DETECTOR: g.detectors = length; break;
    case OUTPUT_AXIS_JACOBIAN_LAYER: g.jacobian_layers = length; break;
    case OUTPUT_AXIS_SET_WEIGHTS: g.set_weights = length; break;
    case OUTPUT_AXIS_FX: g.frequencies = length; break;
    case OUTPUT_AXIS_MOD: g.modulations = length; break;
    case OUTPUT_AXIS_XY: g.xy = length; break;
    default: break;
    }
    return g;
}

uint64_t output_bins(const output_array *o, const output_grid *g)
{
    uint64_t n = 1;
    for (int d = 0; d < o->rank; d++)
        n *= output_axis_length(o->axes[d], g);
    return n;
}

bool output_has_axes(const output_array *o, const output_grid *g)
{
    for (int d = 0; d < o->rank; d++)
        if (output_axis_length(o->axes[d], g) == 0)
            return false;
    return true;
}

int output_first(const output_array *o)
{
    return o->rank == 1 && o->axes[0] == OUTPUT_AXIS_LAYER ? 1 : 0;
}

uint64_t output_stored(const output_array *o, const output_grid *g)
{
    return output_bins(o, g) + 2 * (uint64_t)output_first(o);
}

const output_array *output_tally(int k)
{
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        if (output_table[i].tallied && output_table[i].tally == k)
            return &output_table[i];
    if (k >= OUTPUT_TALLY_RD_JR && k < OUTPUT_TALLY_RD_JR + OUTPUT_HIDDEN_TALLIES)
        return &output_hidden_tallies[k - OUTPUT_TALLY_RD_JR];
    return NULL;
}

uint64_t output_tally_bins(int k, int nr, int nz, int na)
{
    const output_grid g = {.nr = nr, .nz = nz, .na = na};
    return output_bins(output_tally(k), &g);
}

uint64_t output_tally_grid_bins(int k, const output_grid *g)
{
    return output_bins(output_tally(k), g);
}

const output_array *output_by_name(const char *name)
{
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        if (strcmp(output_table[i].name, name) == 0)
            return &output_table[i];
    return NULL;
}
