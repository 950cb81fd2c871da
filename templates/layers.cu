// ---- layer table ------------------------------------------------------------
// Index 0 is the medium above, 1..{{spec.num_layers}} the tissue layers,
// {{spec.num_layers + 1}} the medium below.  Placement: {{spec.layer_placement}}.
// The record is gen/layer_record.h's, field for field: the host derives every
// value once (in double, rounded to float once), so a step recomputes none
// and the placement cannot change a result.  Four floats per path, aligned,
// so that a step's fields come in one 16-byte load.
struct __align__(16) layer_t {
    // every step
    float z0, z1;        // top and bottom boundary [cm]
    float inv_mut;       // 1 / mut [cm]; 0: glass, crossed without interaction
    float log2_scale;    // -ln 2 / mut: a new step is log2(xi) * log2_scale
    // an interaction
    float mua_over_mut;  // fraction of the weight absorbed
    float g;             // Henyey-Greenstein anisotropy
    float hg_h;          // g (2 - 2 g^2) (spin_theta)
    float mut;           // mua + mus [1/cm]
    // a boundary: index 0 the top (moving up), 1 the bottom
    float cos_crit0, cos_crit1;  // total internal reflection at or below
    float eta0, eta1;            // n of this layer / n of the one beyond
};

#define NUM_LAYERS {{spec.num_layers}}
% if spec.layer_placement == "immediate" then

// Values baked in (one cubin per optical properties): a constant table
// initialised in the source, read like the uploaded one.
__constant__ layer_t tmcml_baked_layers[NUM_LAYERS + 2] = {
%   for i = 0, spec.num_layers + 1 do
%     local R = spec.layers[i].record
    { {{f(R.z0)}}, {{f(R.z1)}}, {{f(R.inv_mut)}}, {{f(R.log2_scale)}}, {{f(R.mua_over_mut)}}, {{f(R.g)}}, {{f(R.hg_h)}}, {{f(R.mut)}}, {{f(R.cos_crit0)}}, {{f(R.cos_crit1)}}, {{f(R.eta0)}}, {{f(R.eta1)}} },
%   end
};
__device__ __forceinline__ layer_t layer_at(int i) { return tmcml_baked_layers[i]; }
#define LAYERS_SETUP()
% else

// Filled by the host before each run (cuModuleGetGlobal "tmcml_layers"), so a
// loop of runs that varies optical properties reuses this cubin.
__constant__ layer_t tmcml_layers[NUM_LAYERS + 2];
%   if spec.layer_placement == "shared" then
__shared__ layer_t s_layers[NUM_LAYERS + 2];
#define LAYERS_SETUP()                                              \
    do {                                                            \
        for (int i = threadIdx.x; i < NUM_LAYERS + 2; i += blockDim.x) \
            s_layers[i] = tmcml_layers[i];                          \
    } while (0)
__device__ __forceinline__ layer_t layer_at(int i) { return s_layers[i]; }
%   else
#define LAYERS_SETUP()
__device__ __forceinline__ layer_t layer_at(int i) { return tmcml_layers[i]; }
%   end
% end
