// ---- a step: hop, then drop and spin, or cross-or-not at a boundary ---------

// The end of a flight of length s, in z; the photon hits the boundary it is
// heading for when that end lies outside its layer.  (MCML compares s with
// the distance to the boundary; this compare needs no division, and a photon
// moving parallel to the boundaries never hits one.)
__device__ __forceinline__ bool leaves_layer(float z_end, const layer_t &l)
{
    return z_end < l.z0 || z_end > l.z1;
}

// The boundary ahead and the distance along the direction to it.  The photon
// is then put exactly on it, so it stays within its layer's [z0, z1]
// whatever the rounding of the flight (the CPU engine does the same).
__device__ __forceinline__ float boundary_ahead(const photon_t &p, const layer_t &l, float *distance)
{
    float zb = p.uz > 0.0f ? l.z1 : l.z0;
    *distance = __fdividef(zb - p.z, p.uz);
    return zb;
}

// One step of a photon in a tissue layer: a new step length (or the rest of
// one cut at a boundary), then either hop to the boundary and cross or not,
// or hop, drop and spin.
__device__ __forceinline__ void step_in_tissue(photon_t &p, const layer_t &l, TALLY_ARGS)
{
    float s;
    if (p.sleft == 0.0f) {
        s = __log2f(mwc_uniform_open0_f(&p.rng)) * l.log2_scale;  // -ln(xi) / mut
    } else {
        s = p.sleft * l.inv_mut;
        p.sleft = 0.0f;
    }
    float z_end = __fmaf_rn(s, p.uz, p.z);
    // The flight's next draw decides a crossing or gives the deflection's
    // cos theta: the first draw of either case, so it is drawn once, before
    // the branch, and the divergent paths do not each carry a copy.
    float xi = mwc_uniform_f(&p.rng);
    if (leaves_layer(z_end, l)) {
        float db;
        float zb = boundary_ahead(p, l, &db);
        // The rest of the step, dimensionless; never negative, where the
        // rounding of db would make it so (the next step then draws anew).
        p.sleft = fmaxf(__fmul_rn(s - db, l.mut), 0.0f);
        hop_to(p, db, zb);
% if spec.num_sets > 0 then
        sets_path(p, db);
% end
% if spec.time_bins or spec.mod > 0 then
        timed_path(p, db);
% end
        cross_or_not(p, l, xi, TALLY_PASS);
    } else {
        hop_to(p, s, z_end);
% if spec.num_sets > 0 then
        sets_path(p, s);
% end
% if spec.time_bins or spec.mod > 0 then
        timed_path(p, s);
% end
        // _rn intrinsics: never fused into an FMA, so the weight is rounded
        // the same way whether or not dw is also scored (-A keeps Rd and Tt
        // bit-identical).
        float dw = __fmul_rn(p.w, l.mua_over_mut);
% if spec.sets_absorb then
        sets_deposit(p, p.w, a_rz);  // every set's share of the interaction
% end
        p.w = __fsub_rn(p.w, dw);
        deposit_t d = score_absorption(p, dw, TALLY_PASS);
% if spec.sets_jacobian or spec.sets_optics > 0 then
        sets_interaction(p, l, spin_theta(l, xi));  // its count, score, deflection (sets.cu)
% end
        spin(p, l, xi);
        settle_deposit(p, d, TALLY_PASS);
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
    float db;
    float zb = boundary_ahead(p, l, &db);
    hop_to(p, db, zb);
% if spec.num_sets > 0 then
    sets_path(p, db);
% end
% if spec.time_bins or spec.mod > 0 then
    timed_path(p, db);
% end
    cross_or_not(p, l, mwc_uniform_f(&p.rng), TALLY_PASS);
}

__device__ __forceinline__ void photon_step(photon_t &p, TALLY_ARGS)
{
    layer_t l = layer_from(p.layer_table, photon_layer(p));
    if (l.inv_mut == 0.0f)  // glass (layer_record.h)
        step_in_glass(p, l, TALLY_PASS);
    else
        step_in_tissue(p, l, TALLY_PASS);
}

// Between two steps, in MCML's order: roulette for a photon alive below the
// weight threshold (a weight of exactly 0 is an ended photon, as MCML's
// Roulette ends it without a draw), then the trapped-photon guard.
__device__ __forceinline__ void end_of_step(photon_t &p, unsigned int steps, unsigned int max_steps)
{
    if (photon_alive(p) && p.w < WEIGHT_THRESHOLD)
        roulette(p);
    if (steps >= max_steps && photon_alive(p))
        stop_trapped(p);
}
