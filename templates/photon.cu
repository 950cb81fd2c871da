// ---- one photon: MCML 1.2.2's hop, drop, spin in float32 --------------------
#define WEIGHT_THRESHOLD 1e-4f  // MCML's Wth
#define ROULETTE_CHANCE 0.1f    // MCML's CHANCE
#define COS_ZERO (1.0f - 1.0e-6f) // float: 1 - 1e-12 would round to 1

// The weight also says whether the photon lives: w > 0 alive, w == 0 ended
// (escaped, or lost at roulette), w < 0 stopped as trapped (stop_trapped).
// One float compare then tests what a separate flag would.
struct photon_t {
    float x, y, z;
    float ux, uy, uz;
    float w;
    float sleft;    // dimensionless step left over at a boundary (MCML's sleft * mut)
    float residue;  // fraction of a tally unit not yet scored (fixed_point.h)
    int layer;
    unsigned int layer_table;  // layers_base(): where the step reads its layer
    mwc_state rng;
% if spec.time_bins or spec.mod > 0 then
    float flight;  // optical path so far, sum of s n (cm): c times the time of flight
% end
% if spec.last_bin_cache and spec.score_absorption then
    int cached_bin;                  // A_rz bin of the deposits summed in cached_units (-1: none)
    unsigned int cached_units;       // at most 2^32 - 1: score_absorption flushes before a wrap
% end
};

__device__ __forceinline__ bool photon_alive(const photon_t &p) { return p.w > 0.0f; }

// The photon's layer.  With one layer, a photon still in the kernel is in it
// (one that leaves has ended), so the index is a constant: the step reads the
// layer's fields at fixed addresses, and the compiler drops the crossing into
// another layer.
__device__ __forceinline__ int photon_layer(const photon_t &p)
{
    return NUM_LAYERS == 1 ? 1 : p.layer;
}

% if spec.source_name ~= "pencil" then
% include("source.cu")

% end
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
% if spec.batch then
    p.z = layer_from(p.layer_table, first_layer).z0;  // the run's table (batch.cu)
% else
    p.z = layer_at(first_layer).z0;
% end
% if spec.last_bin_cache and spec.score_absorption then
    p.cached_bin = -1;
    p.cached_units = 0u;
% end
    mwc_seed(&p.rng, seed, index, multipliers);
% if spec.source_name ~= "pencil" and spec.batch then
    source_launch(p, layer_from(p.layer_table, 0));  // the run's source, drawn first
% elseif spec.source_name ~= "pencil" then
    source_launch(p, layer_at(0));  // the run's source, drawn first
% end
}

// A straight flight of length s; z is given, because the caller has it
// already (the end of the step, or the boundary it stops at exactly).
__device__ __forceinline__ void hop_to(photon_t &p, float s, float z)
{
    p.x = __fmaf_rn(s, p.ux, p.x);
    p.y = __fmaf_rn(s, p.uy, p.y);
    p.z = z;
}

// Henyey-Greenstein deflection cosine, isotropic at g = 0 with no special
// case.  MCML's (1 + g^2 - t^2) / 2g, t = (1 - g^2) / (1 - g + 2g xi), loses
// every digit to cancellation at small |g| (g = 1e-30 gave cos theta = +-1 in
// float); rearranged with s = 2 xi - 1 (cpu_hg_cos_theta in
// runtime/engine/cpu_photon.h derives it):
//   cos theta = (s + g) q + h xi (1 - xi) q^2,   q = 1 / (1 + g s),
// h = 2g (1 - g^2) = g (2 - 2g^2), from the layer record.  s and xi (1 - xi)
// are each rounded once (no cancellation).  |g| = 1 is a fixed deflection
// (the formula is 0/0 at xi = 0).  xi is the step's uniform (step.cu).
__device__ __forceinline__ float spin_theta(const layer_t &l, float xi)
{
    float s = __fmaf_rn(2.0f, xi, -1.0f);
    float q = __fdividef(1.0f, __fmaf_rn(l.g, s, 1.0f));
    float spread = __fmul_rn(__fmul_rn(l.hg_h, __fmaf_rn(-xi, xi, xi)), __fmul_rn(q, q));
    float cost = __fmaf_rn(__fadd_rn(s, l.g), q, spread);
    cost = fminf(fmaxf(cost, -1.0f), 1.0f);
    return fabsf(l.g) == 1.0f ? l.g : cost;
}

__device__ __forceinline__ void spin(photon_t &p, const layer_t &l, float xi)
{
    float cost = spin_theta(l, xi);
    float sint = sqrtf(__fmaf_rn(-cost, cost, 1.0f));
    float sinp, cosp;
    __sincosf(mwc_angle_f(&p.rng), &sinp, &cosp);
    float ux = p.ux, uy = p.uy, uz = p.uz;
    if (fabsf(uz) > COS_ZERO) {  // along z: the general formula divides by 0
        p.ux = sint * cosp;
        p.uy = sint * sinp;
        p.uz = uz >= 0.0f ? cost : -cost;
    } else {
        // MCML's rotation with k = sin(theta) / sqrt(1 - uz^2) from one
        // reciprocal square root, which also gives sqrt(1 - uz^2) = perp2 r:
        // no division, one MUFU instead of three.  FMAs written out, so every
        // variant rounds alike (docs/design.md, "Bit-identity").
        float perp2 = __fmaf_rn(-uz, uz, 1.0f);
        float r = rsqrtf(perp2);
        float k = __fmul_rn(sint, r);
        float uz_cosp = __fmul_rn(uz, cosp);
        p.ux = __fmaf_rn(ux, cost, __fmul_rn(k, __fmaf_rn(ux, uz_cosp, -__fmul_rn(uy, sinp))));
        p.uy = __fmaf_rn(uy, cost, __fmul_rn(k, __fmaf_rn(uy, uz_cosp, __fmul_rn(ux, sinp))));
        p.uz = __fmaf_rn(uz, cost, -__fmul_rn(__fmul_rn(sint, cosp), __fmul_rn(perp2, r)));
    }
}

// Survival of the lightest (alive, w < Wth): lives on with probability
// CHANCE and weight / CHANCE, so weight is conserved on average.
__device__ __forceinline__ void roulette(photon_t &p)
{
    p.w = mwc_uniform_f(&p.rng) < ROULETTE_CHANCE ? p.w * (1.0f / ROULETTE_CHANCE) : 0.0f;
}
