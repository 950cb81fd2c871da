/* The kernel's layer record, derived once per run (layer_record.h). */
#include "layer_record.h"

#include <math.h>

/* n_i / n_j, 1 where the media are outside the tissue (never crossed from). */
static float index_ratio(const spec_layer *from, const spec_layer *to)
{
    return to->n > 0.0 ? (float)(from->n / to->n) : 1.0f;
}

static void fill_one(const spec_layer *l, const spec_layer *above, const spec_layer *below,
                     layer_record *r)
{
    double mut = l->mua + l->mus;
    bool glass = !(mut > 0.0); /* mua = mus = 0: crossed without interaction */
    r->z0 = (float)l->z0;
    r->z1 = (float)l->z1;
    r->inv_mut = glass ? 0.0f : (float)(1.0 / mut);
    r->log2_scale = glass ? 0.0f : (float)(-log(2.0) / mut);
    r->mua_over_mut = glass ? 0.0f : (float)(l->mua / mut);
    r->g = (float)l->g;
    r->hg_h = (float)(l->g * (2.0 - 2.0 * l->g * l->g));
    r->mut = (float)mut;
    r->cos_crit0 = (float)l->cos_crit0;
    r->cos_crit1 = (float)l->cos_crit1;
    r->eta0 = above ? index_ratio(l, above) : 1.0f;
    r->eta1 = below ? index_ratio(l, below) : 1.0f;
}

void layer_records_fill(const spec_layer *layers, int count, layer_record *records)
{
    for (int i = 0; i < count; i++)
        fill_one(&layers[i], i > 0 ? &layers[i - 1] : NULL, i + 1 < count ? &layers[i + 1] : NULL,
                 &records[i]);
}

const char *const layer_record_field_names[LAYER_RECORD_FIELDS] = {
    "z0",   "z1",  "inv_mut",   "log2_scale", "mua_over_mut", "g",
    "hg_h", "mut", "cos_crit0", "cos_crit1",  "eta0",         "eta1"};

void layer_record_values(const layer_record *r, float out[LAYER_RECORD_FIELDS])
{
    const float v[LAYER_RECORD_FIELDS] = {r->z0,           r->z1,        r->inv_mut, r->log2_scale,
                                          r->mua_over_mut, r->g,         r->hg_h,    r->mut,
                                          r->cos_crit0,    r->cos_crit1, r->eta0,    r->eta1};
    for (int i = 0; i < LAYER_RECORD_FIELDS; i++)
        out[i] = v[i];
}
