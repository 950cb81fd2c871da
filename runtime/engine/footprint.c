#include "footprint.h"

#include <string.h>

#include "npz.h"
#include "result.h"
#include "run_options.h"
#include "tally.h"
#include "tm_limits.h"

/* Every number of an .mco array takes 12 characters (%12.4E and %12.4G in
 * mco.c pad to 12, and no double needs more: "-1.2345E+308") and one blank
 * or newline after it. */
#define MCO_NUMBER_BYTES 13

/* One layer's line of InParm (five %G numbers of at most 13 characters,
 * tabs, "# layer N"); its A_l line is an array's (mco_array_bytes). */
#define MCO_LAYER_BYTES (5 * 14 + 24)

/* A spatial frequency in the .mco's header line (run_options_describe): a
 * blank and at most 24 characters ("-2.2250738585072014e-308"); in the
 * JSON summary the same three times (input.spatial_frequencies, Rd_fx,
 * Tt_fx) with cJSON's separators and indentation.  A modulation frequency
 * the same, three times too (input.modulation_frequencies, Rd_ac,
 * Rd_phase). */
#define MCO_FX_BYTES       25
#define JSON_FX_BYTES      (3 * 32)
/* The frequency domain's four section titles and its header line's words
 * (about 820 bytes: output_arrays.c), beyond MCO_TEXT_BYTES_BOUND's; the
 * Cartesian grid's three titles and its header line (about 950 bytes). */
#define MCO_MOD_TEXT_BYTES 1024
#define MCO_XY_TEXT_BYTES  1280

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

static output_grid grid_of(const mci_run *run) { return run_options_grid(run); }

/* A section of mco.c: its numbers, a line each or five a line then a
 * newline (its title is in MCO_TEXT_BYTES_BOUND). */
static uint64_t mco_array_bytes(const output_array *o, uint64_t n)
{
    return o->mco_per_line == 1 ? n * MCO_NUMBER_BYTES : n * MCO_NUMBER_BYTES + n / 5 + 1;
}

uint64_t footprint_mco_bound(const mci_run *run)
{
    output_grid g = grid_of(run);
    uint64_t bytes =
        MCO_TEXT_BYTES_BOUND + strlen(run->out_name) + (uint64_t)run->num_layers * MCO_LAYER_BYTES +
        (uint64_t)(run->fx_count + run->mod_count) * MCO_FX_BYTES +
        (run->mod_count > 0 ? MCO_MOD_TEXT_BYTES : 0) + (run->xy_nx > 0 ? MCO_XY_TEXT_BYTES : 0);
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        if (run_options_wants(run, &output_table[i]))
            bytes += mco_array_bytes(&output_table[i], output_bins(&output_table[i], &g));
    return bytes;
}

static uint64_t json_bound(const mci_run *run, const char *input_path)
{
    uint64_t names = strlen(run->out_name) + (input_path ? strlen(input_path) : 0);
    return JSON_TEXT_BYTES_BOUND + JSON_ESCAPE_FACTOR * names +
           (uint64_t)run->num_layers * JSON_LAYER_BYTES_BOUND +
           (uint64_t)(run->fx_count + run->mod_count) * JSON_FX_BYTES;
}

void footprint_of_run(const mci_run *run, const char *input_path, run_footprint *fp)
{
    output_grid g = grid_of(run);
    uint64_t nl = (uint64_t)run->num_layers + 2; /* with the media above and below */
    /* Entry sizes from the declarations (sizeof does not evaluate these). */
    const tally_batch *b = NULL;
    const tally_set *t = NULL;
    const mcml_result *res = NULL;
    memset(fp, 0, sizeof *fp);
    /* The optional tallies only in a run that asks (a thread's one set of them). */
    for (int k = 0; k < OUTPUT_TALLIES_ALL; k++) {
        if (!run_options_wants(run, output_tally(k)))
            continue;
        uint64_t bins = output_tally_grid_bins(k, &g);
        fp->batch += bins * sizeof *b->tally[k];
        fp->tallies += bins * sizeof *t->tally[k];
    }
    /* The arrays of result_alloc, and result.c's per-layer sums. */
    for (int i = 0; i < OUTPUT_ARRAYS; i++)
        if (run_options_wants(run, &output_table[i]))
            fp->result += output_stored(&output_table[i], &g) * sizeof *res->array[i];
    fp->result += nl * sizeof *t->tally[0];
    /* The GPU engine downloads its device tallies into a tally_batch byte
     * for byte, so they have its entries; plus its counters. */
    fp->device = fp->batch + GPU_COUNTER_BYTES;
    fp->mco_file = footprint_mco_bound(run);
    fp->json_file = json_bound(run, input_path);
    fp->npz_file = npz_size_bound(run);
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
