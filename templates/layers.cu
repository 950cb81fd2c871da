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

// Every placement gives layer_at(i), and layer_from(layers_base(), i), the
// step's read: the same record; only the shared table uses the base address.
% if spec.batch then

// A batch: the tables of its runs, one after the other, in the block's
// dynamic shared memory (the kernel copies them there at its start); each
// photon reads its run's through the table's address (photon_t.layer_table).
% elseif spec.layer_placement == "immediate" then

// Values baked in (one cubin per optical properties): a constant table
// initialised in the source, read like the uploaded one.
__constant__ layer_t tmcml_baked_layers[NUM_LAYERS + 2] = {
%   for i = 0, spec.num_layers + 1 do
%     local R = spec.layers[i].record
    { {{f(R.z0)}}, {{f(R.z1)}}, {{f(R.inv_mut)}}, {{f(R.log2_scale)}}, {{f(R.mua_over_mut)}}, {{f(R.g)}}, {{f(R.hg_h)}}, {{f(R.mut)}}, {{f(R.cos_crit0)}}, {{f(R.cos_crit1)}}, {{f(R.eta0)}}, {{f(R.eta1)}} },
%   end
};
__device__ __forceinline__ layer_t layer_at(int i) { return tmcml_baked_layers[i]; }
% else

// Filled by the host before each run (cuModuleGetGlobal "tmcml_layers"), so a
// loop of runs that varies optical properties reuses this cubin.
__constant__ layer_t tmcml_layers[NUM_LAYERS + 2];
%   if spec.layer_placement == "constant" then
__device__ __forceinline__ layer_t layer_at(int i) { return tmcml_layers[i]; }
%   end
% end
% if spec.layer_placement == "shared" and not spec.batch then
__shared__ layer_t s_layers[NUM_LAYERS + 2];
#define LAYERS_SETUP()                                              \
    do {                                                            \
        for (int i = threadIdx.x; i < NUM_LAYERS + 2; i += blockDim.x) \
            s_layers[i] = tmcml_layers[i];                          \
    } while (0)
__device__ __forceinline__ layer_t layer_at(int i) { return s_layers[i]; }
// The table's shared address, computed once per thread and hidden from the
// compiler, which rebuilt it (three instructions) at every step.
__device__ __forceinline__ unsigned int layers_base()
{
    unsigned int a = (unsigned int)__cvta_generic_to_shared(s_layers);
    asm volatile("" : "+r"(a));
    return a;
}
% end
% if spec.layer_placement == "shared" then
// Layer i read through that address: three 16-byte loads, in layer_t's field
// order.  volatile keeps them after the table is filled (LAYERS_SETUP and
// the barrier that follows it).
static_assert(sizeof(layer_t) == 48, "layer_from reads layer_t as three float4");
__device__ __forceinline__ layer_t layer_from(unsigned int base, int i)
{
    layer_t l;
    unsigned int a = base + (unsigned int)i * (unsigned int)sizeof(layer_t);
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(l.z0), "=f"(l.z1), "=f"(l.inv_mut), "=f"(l.log2_scale) : "r"(a));
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4+16];"
                 : "=f"(l.mua_over_mut), "=f"(l.g), "=f"(l.hg_h), "=f"(l.mut) : "r"(a));
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4+32];"
                 : "=f"(l.cos_crit0), "=f"(l.cos_crit1), "=f"(l.eta0), "=f"(l.eta1) : "r"(a));
    return l;
}
% else
// A constant table needs no setup and no base address: the step reads it
// directly (layer_at).
#define LAYERS_SETUP()
__device__ __forceinline__ unsigned int layers_base() { return 0u; }
__device__ __forceinline__ layer_t layer_from(unsigned int, int i) { return layer_at(i); }
% end
