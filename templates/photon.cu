// ---- one photon: MCML 1.2.2's hop, drop, spin in float32 --------------------
#define WEIGHT_THRESHOLD 1e-4f  // MCML's Wth
#define ROULETTE_CHANCE 0.1f    // MCML's CHANCE
#define COS_ZERO (1.0f - 1.0e-6f) // float: 1 - 1e-12 would round to 1
#define COS_90D 1.0e-6f
#define TWO_PI 6.28318530717958648f

struct photon_t {
    float x, y, z;
    float ux, uy, uz;
    float w;
    float sleft;    // dimensionless step left over at a boundary (MCML's sleft * mut)
    float residue;  // fraction of a tally unit not yet scored (fixed_point.h)
    int layer;
    bool alive;
    mwc_state rng;
% if spec.last_bin_cache and spec.score_absorption then
    int cached_bin;                  // A_rz bin of the deposits summed in cached_units (-1: none)
    unsigned long long cached_units;
% end
};

// start_weight = 1 - Rsp and first_layer (2 under a glass layer 1) are kernel
// arguments: they depend on the optical properties, which are data.
__device__ __forceinline__ void photon_launch(photon_t &p, unsigned long long index,
                                              unsigned long long seed, float start_weight,
                                              int first_layer, const unsigned int *multipliers)
{
    p.x = p.y = 0.0f;
    p.ux = p.uy = 0.0f;
    p.uz = 1.0f;
    p.w = start_weight;
    p.sleft = 0.0f;
    p.residue = (float)FIXED_POINT_START_RESIDUE;
    p.layer = first_layer;
    p.z = layer_at(first_layer).z0;
    p.alive = true;
% if spec.last_bin_cache and spec.score_absorption then
    p.cached_bin = -1;
    p.cached_units = 0ull;
% end
    mwc_seed(&p.rng, seed, index, multipliers);
}

__device__ __forceinline__ void hop(photon_t &p, float s)
{
    p.x += s * p.ux;
    p.y += s * p.uy;
    p.z += s * p.uz;
}

// Henyey-Greenstein deflection cosine; isotropic for g = 0.
__device__ __forceinline__ float spin_theta(float g, mwc_state *rng)
{
    float xi = mwc_uniform_f(rng);
    if (g == 0.0f)
        return 2.0f * xi - 1.0f;
    if (fabsf(g) == 1.0f)
        return g;
    float t = __fdividef(1.0f - g * g, 1.0f - g + 2.0f * g * xi);
    float cost = __fdividef(1.0f + g * g - t * t, 2.0f * g);
    return fminf(fmaxf(cost, -1.0f), 1.0f);
}

__device__ __forceinline__ void spin(photon_t &p, float g)
{
    float cost = spin_theta(g, &p.rng);
    float sint = sqrtf(1.0f - cost * cost);
    float sinp, cosp;
    __sincosf(TWO_PI * mwc_uniform_f(&p.rng), &sinp, &cosp);
    float ux = p.ux, uy = p.uy, uz = p.uz;
    if (fabsf(uz) > COS_ZERO) {  // along z: the general formula divides by 0
        p.ux = sint * cosp;
        p.uy = sint * sinp;
        p.uz = uz >= 0.0f ? cost : -cost;
    } else {
        float temp = sqrtf(1.0f - uz * uz);
        float k = __fdividef(sint, temp);
        p.ux = k * (ux * uz * cosp - uy * sinp) + ux * cost;
        p.uy = k * (uy * uz * cosp + ux * sinp) + uy * cost;
        p.uz = -sint * cosp * temp + uz * cost;
    }
}

// Survival of the lightest: lives on with probability CHANCE and weight /
// CHANCE, so weight is conserved on average.
__device__ __forceinline__ void roulette(photon_t &p)
{
    if (p.w == 0.0f || mwc_uniform_f(&p.rng) >= ROULETTE_CHANCE)
        p.alive = false;
    else
        p.w *= 1.0f / ROULETTE_CHANCE;
}
