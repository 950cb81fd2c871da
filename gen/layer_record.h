/* The kernel's layer record: layer_t of templates/layers.cu, field for field.
 *
 * One function derives it from a layer and its neighbours, so the table the
 * host uploads (constant or shared placement) and the literals baked into an
 * immediate kernel are the same floats: the placement knob cannot change a
 * result.  Everything a step would otherwise recompute is derived here once,
 * in double, and rounded to float once. */
#ifndef TMCML_LAYER_RECORD_H
#define TMCML_LAYER_RECORD_H

#include "spec.h"

/* Grouped by the path that reads them, four floats (one 16-byte load) each. */
typedef struct layer_record {
    /* every step: where the layer ends, and the step length */
    float z0, z1;     /* top and bottom boundary [cm] */
    float inv_mut;    /* 1 / (mua + mus) [cm]; 0 marks glass (no interaction) */
    float log2_scale; /* -ln 2 / mut: s = log2(xi) * log2_scale [cm] */
    /* an interaction */
    float mua_over_mut; /* fraction of the weight absorbed */
    float g;            /* Henyey-Greenstein anisotropy */
    float hg_h;         /* g (2 - 2 g^2), the spread term of spin_theta */
    float mut;          /* mua + mus [1/cm]: the step left at a boundary */
    /* a boundary: up (index 0, towards z0) and down (1, towards z1) */
    float cos_crit0, cos_crit1; /* total internal reflection at or below; 0: none */
    float eta0, eta1;           /* n / n of the layer beyond */
} layer_record;

#define LAYER_RECORD_FIELDS 12

/* Fills records[0 .. count-1] from layers[0 .. count-1] (the medium above,
 * the tissue layers, the medium below). */
void layer_records_fill(const spec_layer *layers, int count, layer_record *records);

/* The record's field names and values in declaration order (for the
 * immediate template, which reads spec.layers[i].record.NAME). */
extern const char *const layer_record_field_names[LAYER_RECORD_FIELDS];
void layer_record_values(const layer_record *r, float out[LAYER_RECORD_FIELDS]);

#endif
