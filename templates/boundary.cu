// ---- boundaries: unpolarised Fresnel, all-or-none (MCML's default) ----------

// Reflectance from medium n1 to n2 at incidence cosine ca1 > 0; *ca2 gets the
// transmission cosine.  MCML's RFresnel.
__device__ __forceinline__ float fresnel(float n1, float n2, float ca1, float *ca2)
{
    if (n1 == n2) {
        *ca2 = ca1;
        return 0.0f;
    }
    if (ca1 > COS_ZERO) {
        *ca2 = ca1;
        float r = __fdividef(n2 - n1, n2 + n1);
        return r * r;
    }
    if (ca1 < COS_90D) {
        *ca2 = 0.0f;
        return 1.0f;
    }
    float sa1 = sqrtf(1.0f - ca1 * ca1);
    float sa2 = __fdividef(n1 * sa1, n2);
    if (sa2 >= 1.0f) {
        *ca2 = 0.0f;
        return 1.0f;
    }
    float c2 = sqrtf(1.0f - sa2 * sa2);
    *ca2 = c2;
    float cap = ca1 * c2 - sa1 * sa2;  // cos(a1 + a2)
    float cam = ca1 * c2 + sa1 * sa2;  // cos(a1 - a2)
    float sap = sa1 * c2 + ca1 * sa2;  // sin(a1 + a2)
    float sam = sa1 * c2 - ca1 * sa2;  // sin(a1 - a2)
    return __fdividef(0.5f * sam * sam * (cam * cam + cap * cap), sap * sap * cam * cam);
}

// At the top (uz < 0) or bottom (uz > 0) boundary of the photon's layer: one
// code path for both directions, chosen by data (the critical cosine, the
// next layer, the tally an escape goes to), so a warp whose lanes cross in
// both directions issues it once.  MCML's CrossUpOrNot / CrossDnOrNot.
__device__ __forceinline__ void cross_or_not(photon_t &p, const layer_t &l, TALLY_ARGS)
{
    bool up = p.uz < 0.0f;
    int next = up ? p.layer - 1 : p.layer + 1;
    float ni = l.n, nt = layer_at(next).n;
    float uz = p.uz, ca = fabsf(uz), uz1 = 0.0f;
    float r = ca <= (up ? l.cos_crit0 : l.cos_crit1) ? 1.0f : fresnel(ni, nt, ca, &uz1);
    if (mwc_uniform_f(&p.rng) > r) {
        if (next == 0 || next == NUM_LAYERS + 1) {
            score_escape(p, up ? rd_ra : tt_ra, uz1);
        } else {
            p.layer = next;
            p.ux *= __fdividef(ni, nt);
            p.uy *= __fdividef(ni, nt);
            p.uz = up ? -uz1 : uz1;
        }
    } else {
        p.uz = -uz;
    }
}
