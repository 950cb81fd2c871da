#include "footprint.h"

#include <string.h>

#include "result.h"
#include "tally.h"
#include "tm_limits.h"

/* The size of one element of an array field of a struct, from its
 * declaration (sizeof does not evaluate its operand). */
#define ELEMENT_BYTES(type, field) ((uint64_t)sizeof(*((type *)0)->field))

/* Every number of an .mco array takes 12 characters (%12.4E and %12.4G in
 * mco.c pad to 12, and no double needs more: "-1.2345E+308") and one blank
 * or newline after it. */
#define MCO_NUMBER_BYTES 13

/* One layer's line of InParm (five %G numbers of at most 13 characters,
 * tabs, "# layer N") and its A_l line. */
#define MCO_LAYER_BYTES (5 * 14 + 24 + MCO_NUMBER_BYTES)

/* cJSON writes a byte of a name or path as at most 6 bytes ("\u001b"; an
 * invalid UTF-8 byte becomes the 3 bytes of U+FFFD). */
#define JSON_ESCAPE_FACTOR 6

/* The JSON text is printed from a cJSON tree of a 64-byte node per value,
 * some times the value's text: the tree and the text together stay below
 * this many times the text. */
#define JSON_MEMORY_FACTOR 4

/* The GPU engine's counters of a run beside its arrays (gpu.c: steps,
 * trapped photons and weight, the next photon index, 64-bit each). */
#define GPU_COUNTER_BYTES 64

static uint64_t bins(int a, int b) { return (uint64_t)a * (uint64_t)b; }

/* A 2-D array of mco.c: numbers five a line, then a newline. */
static uint64_t mco_2d_bytes(uint64_t n) { return n * MCO_NUMBER_BYTES + n / 5 + 1; }

uint64_t footprint_mco_bound(const mci_run *run)
{
    uint64_t layers = (uint64_t)run->num_layers;
    uint64_t one_d = (uint64_t)run->nz + 2 * (uint64_t)run->nr + 2 * (uint64_t)run->na;
    return MCO_TEXT_BYTES_BOUND + strlen(run->out_name) + layers * MCO_LAYER_BYTES +
           one_d * MCO_NUMBER_BYTES + mco_2d_bytes(bins(run->nr, run->nz)) +
           2 * mco_2d_bytes(bins(run->nr, run->na));
}

static uint64_t json_bound(const mci_run *run, const char *input_path)
{
    uint64_t names = strlen(run->out_name) + (input_path ? strlen(input_path) : 0);
    return JSON_TEXT_BYTES_BOUND + JSON_ESCAPE_FACTOR * names +
           (uint64_t)run->num_layers * JSON_LAYER_BYTES_BOUND;
}

void footprint_of_run(const mci_run *run, const char *input_path, run_footprint *fp)
{
    uint64_t rz = bins(run->nr, run->nz), ra = bins(run->nr, run->na);
    uint64_t nl = (uint64_t)run->num_layers + 2; /* with the media above and below */
    memset(fp, 0, sizeof *fp);
    fp->batch = rz * ELEMENT_BYTES(tally_batch, a_rz) + ra * ELEMENT_BYTES(tally_batch, rd_ra) +
                ra * ELEMENT_BYTES(tally_batch, tt_ra);
    fp->tallies = rz * ELEMENT_BYTES(tally_set, a_rz) + ra * ELEMENT_BYTES(tally_set, rd_ra) +
                  ra * ELEMENT_BYTES(tally_set, tt_ra);
    /* The arrays of result_alloc, and result_absorption's per-layer sums. */
    fp->result =
        nl * ELEMENT_BYTES(mcml_result, a_l) + (uint64_t)run->nz * ELEMENT_BYTES(mcml_result, a_z) +
        (uint64_t)run->nr * (ELEMENT_BYTES(mcml_result, rd_r) + ELEMENT_BYTES(mcml_result, tt_r)) +
        (uint64_t)run->na * (ELEMENT_BYTES(mcml_result, rd_a) + ELEMENT_BYTES(mcml_result, tt_a)) +
        rz * ELEMENT_BYTES(mcml_result, a_rz) + ra * ELEMENT_BYTES(mcml_result, rd_ra) +
        ra * ELEMENT_BYTES(mcml_result, tt_ra) + nl * ELEMENT_BYTES(tally_set, a_rz);
    /* The GPU engine downloads its device tallies into a tally_batch byte
     * for byte, so they have its entries; plus its counters. */
    fp->device = fp->batch + GPU_COUNTER_BYTES;
    fp->mco_file = footprint_mco_bound(run);
    fp->json_file = json_bound(run, input_path);
    fp->json_text = JSON_MEMORY_FACTOR * fp->json_file;
}

static uint64_t engine_batches(const run_footprint *fp, int threads)
{
    return (uint64_t)(threads > 0 ? threads : 1) * fp->batch;
}

uint64_t footprint_host_tallies(const run_footprint *fp, int threads)
{
    return fp->tallies + engine_batches(fp, threads);
}

uint64_t footprint_host_peak(const run_footprint *fp, int threads)
{
    uint64_t during = engine_batches(fp, threads), after = fp->result + fp->json_text;
    return fp->tallies + (during > after ? during : after);
}
