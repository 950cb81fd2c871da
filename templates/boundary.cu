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

// At the top boundary of the photon's layer, moving up.
__device__ __forceinline__ void cross_up_or_not(photon_t &p, const layer_t &l, TALLY_ARGS)
{
    float ni = l.n, nt = layer_at(p.layer - 1).n;
    float uz = p.uz, uz1 = 0.0f;
    float r = -uz <= l.cos_crit0 ? 1.0f : fresnel(ni, nt, -uz, &uz1);
    if (mwc_uniform_f(&p.rng) > r) {
        if (p.layer == 1) {
            score_escape(p, rd_ra, uz1);
        } else {
            p.layer--;
            p.ux *= __fdividef(ni, nt);
            p.uy *= __fdividef(ni, nt);
            p.uz = -uz1;
        }
    } else {
        p.uz = -uz;
    }
}

// At the bottom boundary of the photon's layer, moving down.
__device__ __forceinline__ void cross_down_or_not(photon_t &p, const layer_t &l, TALLY_ARGS)
{
    float ni = l.n, nt = layer_at(p.layer + 1).n;
    float uz = p.uz, uz1 = 0.0f;
    float r = uz <= l.cos_crit1 ? 1.0f : fresnel(ni, nt, uz, &uz1);
    if (mwc_uniform_f(&p.rng) > r) {
        if (p.layer == NUM_LAYERS) {
            score_escape(p, tt_ra, uz1);
        } else {
            p.layer++;
            p.ux *= __fdividef(ni, nt);
            p.uy *= __fdividef(ni, nt);
            p.uz = uz1;
        }
    } else {
        p.uz = -uz;
    }
}

__device__ __forceinline__ void cross_or_not(photon_t &p, const layer_t &l, TALLY_ARGS)
{
    if (p.uz < 0.0f)
        cross_up_or_not(p, l, TALLY_PASS);
    else
        cross_down_or_not(p, l, TALLY_PASS);
}
