// ---- layer table ------------------------------------------------------------
// Index 0 is the medium above, 1..{{spec.num_layers}} the tissue layers,
// {{spec.num_layers + 1}} the medium below.  Placement: {{spec.layer_placement}}.
struct layer_t {
    float n;
    float mua_over_mut;  // fraction of the weight absorbed at each interaction
    float mut;           // mua + mus [1/cm]
    float inv_mut;       // 1 / mut; 0 for glass
    float g;
    float z0, z1;        // top and bottom boundary [cm]
    float cos_crit0, cos_crit1;
    int glass;           // mua = mus = 0: crossed without interaction
};

#define NUM_LAYERS {{spec.num_layers}}
% if spec.layer_placement == "immediate" then

// Values baked in (one cubin per optical properties).
__device__ __forceinline__ layer_t layer_at(int i)
{
    layer_t l;
    switch (i) {
%   for i = 0, spec.num_layers + 1 do
%     local L = spec.layers[i]
%     local glass = (L.mua == 0 and L.mus == 0)
%     local mut = L.mua + L.mus
    case {{i}}:
        l.n = {{f(L.n)}}; l.mua_over_mut = {{f(mut > 0 and L.mua / mut or 0)}}; l.mut = {{f(mut)}}; l.inv_mut = {{f(mut > 0 and 1 / mut or 0)}}; l.g = {{f(L.g)}};
        l.z0 = {{f(L.z0)}}; l.z1 = {{f(L.z1)}}; l.cos_crit0 = {{f(L.cos_crit0)}}; l.cos_crit1 = {{f(L.cos_crit1)}}; l.glass = {{glass and 1 or 0}};
        break;
%   end
    default:
        l = layer_t();
    }
    return l;
}
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
