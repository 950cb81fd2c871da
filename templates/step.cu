// ---- a step: hop, then drop and spin, or cross-or-not at a boundary ---------

// One step of a photon in a tissue layer: a new step length (or the rest of
// one cut at a boundary), then either hop to the boundary and cross or not,
// or hop, drop and spin.
__device__ __forceinline__ void step_in_tissue(photon_t &p, const layer_t &l, TALLY_ARGS)
{
    float s;
    if (p.sleft == 0.0f) {
        s = -__logf(mwc_uniform_open0_f(&p.rng)) * l.inv_mut;
    } else {
        s = p.sleft * l.inv_mut;
        p.sleft = 0.0f;
    }
    float gap = p.uz > 0.0f ? l.z1 - p.z : l.z0 - p.z;  // along z, same sign as uz
    bool hits = p.uz != 0.0f && (p.uz > 0.0f ? s * p.uz > gap : s * p.uz < gap);
    if (hits) {
        float db = __fdividef(gap, p.uz);
        p.sleft = (s - db) * l.mut;
        hop(p, db);
        cross_or_not(p, l, TALLY_PASS);
    } else {
        hop(p, s);
        // _rn intrinsics: never fused into an FMA, so the weight is rounded
        // the same way whether or not dw is also scored (-A keeps Rd and Tt
        // bit-identical).
        float dw = __fmul_rn(p.w, l.mua_over_mut);
        p.w = __fsub_rn(p.w, dw);
        score_absorption(p, dw, TALLY_PASS);
        spin(p, l);
    }
}

// Glass: no interaction, straight to the next boundary; a photon parallel to
// the boundaries would never leave it (MCML drops it without a trace).
__device__ __forceinline__ void step_in_glass(photon_t &p, const layer_t &l, TALLY_ARGS)
{
    if (p.uz == 0.0f) {
        stop_trapped(p);
        return;
    }
    hop(p, __fdividef(p.uz > 0.0f ? l.z1 - p.z : l.z0 - p.z, p.uz));
    cross_or_not(p, l, TALLY_PASS);
}

__device__ __forceinline__ void photon_step(photon_t &p, TALLY_ARGS)
{
    layer_t l = layer_at(p.layer);
    if (l.glass)
        step_in_glass(p, l, TALLY_PASS);
    else
        step_in_tissue(p, l, TALLY_PASS);
    if (p.alive && p.w < WEIGHT_THRESHOLD)
        roulette(p);
}
