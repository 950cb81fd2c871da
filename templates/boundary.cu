// ---- boundaries: unpolarised Fresnel, all-or-none (MCML's default) ----------

// Reflectance at incidence cosine ci > 0 into a medium of relative index
// 1 / eta (eta = n_incident / n_transmitted, from the layer record); *ct gets
// the transmission cosine.  The same reflectance as MCML's RFresnel, from
// the amplitude form (rs^2 + rp^2) / 2 with
//   rs = (eta ci - ct) / (eta ci + ct),  rp = (eta ct - ci) / (eta ct + ci),
//   ct^2 = 1 - eta^2 (1 - ci^2) = (eta ci)^2 + (1 - eta^2),
// which needs one square root and one reciprocal where MCML's sine form
// needs two and a division, and has no 0/0 at normal incidence (MCML's
// special case there is this formula's limit).  Total internal reflection
// (ci <= cos_crit) is decided by the caller; equal indices reflect nothing
// and keep the direction exactly, as in MCML.
__device__ __forceinline__ float fresnel(float eta, float ci, float *ct)
{
    float a = __fmul_rn(eta, ci);
    float c2 = sqrtf(fmaxf(__fmaf_rn(a, a, __fmaf_rn(-eta, eta, 1.0f)), 0.0f));
    float b = __fmul_rn(eta, c2);
    float s_num = __fsub_rn(a, c2), s_den = __fadd_rn(a, c2);
    float p_num = __fsub_rn(b, ci), p_den = __fadd_rn(b, ci);
    // (s_num/s_den)^2 + (p_num/p_den)^2 over one common denominator
    float u = __fmul_rn(s_num, p_den), v = __fmul_rn(p_num, s_den);
    float den = __fmul_rn(s_den, p_den);
    float r = __fmul_rn(__fmaf_rn(u, u, __fmul_rn(v, v)),
                        __fdividef(0.5f, __fmul_rn(den, den)));
    bool same = eta == 1.0f;
    *ct = same ? ci : c2;
    return same ? 0.0f : r;
}

// At the top (uz < 0) or bottom (uz > 0) boundary of the photon's layer: one
// code path for both directions, chosen by data (the critical cosine, the
// index ratio, the next layer, the tally an escape goes to), so a warp whose
// lanes cross in both directions issues it once.  MCML's CrossUpOrNot /
// CrossDnOrNot; xi, the uniform that decides, is drawn by the caller.
__device__ __forceinline__ void cross_or_not(photon_t &p, const layer_t &l, float xi, TALLY_ARGS)
{
    bool up = p.uz < 0.0f;
    int next = up ? photon_layer(p) - 1 : photon_layer(p) + 1;
    float ci = fabsf(p.uz), ct = 0.0f;
    float eta = up ? l.eta0 : l.eta1;
    float r = ci <= (up ? l.cos_crit0 : l.cos_crit1) ? 1.0f : fresnel(eta, ci, &ct);
    if (xi > r) {
        if (next == 0 || next == NUM_LAYERS + 1) {
            score_escape(p, up ? rd_ra : tt_ra, ct);
        } else {
            p.layer = next;
            p.ux = __fmul_rn(p.ux, eta);
            p.uy = __fmul_rn(p.uy, eta);
            p.uz = up ? -ct : ct;
        }
    } else {
        p.uz = -p.uz;
    }
}
