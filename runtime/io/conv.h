/* Broad beams by convolution of the pencil response, as MCML's companion
 * CONV does: a laterally uniform layered medium answers an axially
 * symmetric beam of irradiance S with R(x) = integral of S(x - y) G(|y|) d2y,
 * G the pencil-beam response.  docs/physics.md ("Broad beams by
 * convolution") derives the kernels, the quadrature and its error bound.
 *
 * Every array of the table with an r axis (output_arrays.h: Rd_r, Tt_r,
 * A_rz, Rd_ra, Tt_ra) is convolved ring by ring; the others (A_l, A_z,
 * Rd_a, Tt_a) and the totals are the beam's as they are the pencil's, since
 * a beam of unit power only moves weight sideways. */
#ifndef TMCML_CONV_H
#define TMCML_CONV_H

#include <stdbool.h>
#include <stddef.h>

#include "error.h"
#include "mci.h"
#include "result.h"

typedef enum conv_beam_kind {
    CONV_BEAM_GAUSSIAN = 1, /* S = 2/(pi W^2) exp(-2 r^2 / W^2): radius W at 1/e^2 */
    CONV_BEAM_FLAT = 2      /* S = 1/(pi R^2) for r < R: a top hat */
} conv_beam_kind;

/* A beam of unit power; radius 0 is the pencil itself. */
typedef struct conv_beam {
    conv_beam_kind kind;
    double radius; /* cm: W of the Gaussian, R of the flat beam */
} conv_beam;

/* "gaussian:W" or "flat:R" (cm; W, R finite and >= 0).  On failure *err
 * names the text and what is wrong with it. */
bool conv_beam_parse(const char *text, conv_beam *beam, tm_error *err);

/* The beam's kind and radius checked: a known kind, a finite radius >= 0. */
bool conv_beam_check(const conv_beam *beam, tm_error *err);

/* "Gaussian beam of 1/e2 radius 0.1 cm" / "flat beam of radius 0.1 cm". */
void conv_beam_describe(const conv_beam *beam, char *buf, size_t size);

/* The first words of a convolved result's comment (conv_comment), by which
 * a convolved result or .mco is known, this tmcml's and older ones. */
#define CONV_COMMENT_WORD "tmcml conv: "

/* The source a result convolved with beam describes: the beam (its .mco's
 * "# Source:" line, the library's tmcml_problem_source, Python's
 * Result.source), or the pencil for radius 0, which is the pencil itself. */
source_desc conv_beam_source(const conv_beam *beam);

/* Whether a result of run whose comment is comment (may be NULL) may be
 * convolved: a pencil-beam response, never convolved before (convolving
 * twice would spread the weight twice under a header naming one beam).
 * False with *err ("WHAT: ...") otherwise. */
bool conv_check_input(const mci_run *run, const char *comment, const char *what, tm_error *err);

/* The .mco comment line of a convolved result: the beam, then the pencil
 * result's comment (pencil, may be ""), whose "tallies fnv1a64:" becomes
 * "pencil tallies fnv1a64=" so that no reader takes the file for the pencil
 * run's own (mco_read_digest, --resume). */
void conv_comment(const conv_beam *beam, const char *pencil, char *buf, size_t size);

/* out (allocated here, same grid as in) is in convolved with beam on a ring
 * grid of width dr (cm).  in's last ring is MCML's overflow ring (all weight
 * at r >= (nr - 1) dr) and is not spread: its weight stays in out's last
 * ring, which also collects what the beam carries beyond the grid, so that
 * the weight of every ring array's columns, and so every total, is kept to
 * rounding. */
bool conv_result(const mcml_result *in, double dr, const conv_beam *beam, mcml_result *out,
                 tm_error *err);

/* The same with the quadrature's Gauss-Legendre nodes a piece (2 to 64;
 * conv_result takes 16): the tests' measure of the quadrature error. */
bool conv_result_nodes(const mcml_result *in, double dr, const conv_beam *beam, int nodes,
                       mcml_result *out, tm_error *err);

#endif
