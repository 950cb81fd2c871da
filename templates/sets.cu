// ---- absorption sets: {{spec.num_sets}} spectra of mua from one history ---------------
// (docs/physics.md, "Absorption sets".)  The photon is simulated with the
// reference mua - each layer's smallest over the sets, in the layer table -
// so set k's weight is the reference weight times
//   exp(-sum_i (mua_k,i - mua_ref,i) L_i),
// L_i the photon's path so far in layer i, a factor <= 1.  This kernel
// scores each set's escapes (Rd_ra, Tt_ra) and trapped weight with it, in
// the set's own tallies (set k's at k times a run's arrays, as a batch's
// slots); it scores no absorption (-A): a set's A is what its photons did
// not carry out.  Roulette acts on the reference weight, unbiased for every
// set.
#define NUM_SETS {{spec.num_sets}}
#define SETS_BLOCK {{spec.block_size}}
#define SET_RA ((unsigned long long)NR * NA)  // a set's Rd_ra or Tt_ra
#define SET_COUNTS 3ull                       // a set's counts[]

// The block's dynamic shared memory (spec_dynamic_shared_bytes): the sets'
// extra mua, mua_k,i - mua_ref,i (1/cm), layer by layer, then each thread's
// path per layer, a thread's entries SETS_BLOCK apart (consecutive threads,
// consecutive banks).
extern __shared__ __align__(16) float sets_shared[];
#define SET_EXTRA(i, k) sets_shared[((i) - 1) * NUM_SETS + (k)]
#define SET_PATH(i) sets_shared[NUM_LAYERS * NUM_SETS + ((i) - 1) * SETS_BLOCK + threadIdx.x]

// The kernel's start: the table into shared memory (the barrier after the
// layers' setup orders it before any photon).
__device__ __forceinline__ void sets_setup(const float *set_extra)
{
    for (int t = threadIdx.x; t < NUM_LAYERS * NUM_SETS; t += blockDim.x)
        sets_shared[t] = set_extra[t];
}

// A new photon has no path yet but through the glass layers above its first
// layer, which it crossed straight down (as the CPU engine counts them).
__device__ __forceinline__ void sets_launch(int first_layer)
{
    for (int i = 1; i <= NUM_LAYERS; i++) {
        layer_t l = layer_at(i);
        SET_PATH(i) = i < first_layer ? __fsub_rn(l.z1, l.z0) : 0.0f;
    }
}

// A flight of s cm in the photon's layer.
__device__ __forceinline__ void sets_path(const photon_t &p, float s)
{
    SET_PATH(photon_layer(p)) = __fadd_rn(SET_PATH(photon_layer(p)), s);
}

// Set k's weight factor, exp(-sum_i extra_k,i L_i): a fixed order of
// operations, so that every variant gives every set the same units.
__device__ __forceinline__ float sets_factor(int k)
{
    float e = 0.0f;
    for (int i = 1; i <= NUM_LAYERS; i++)
        e = __fmaf_rn(SET_EXTRA(i, k), SET_PATH(i), e);
    return __expf(-e);
}

// An escape of reference weight w into bin of Rd_ra or Tt_ra (ra), for
// every set.
__device__ __forceinline__ void sets_escape(float w, unsigned long long *ra, size_t bin)
{
    for (int k = 0; k < NUM_SETS; k++)
        atomicAdd(&ra[k * SET_RA + bin], fixed_point_from_weight_f(__fmul_rn(w, sets_factor(k))));
}

// A photon stopped as trapped with reference weight w, for every set.
__device__ __forceinline__ void sets_trapped(float w, unsigned long long *counts)
{
    for (int k = 0; k < NUM_SETS; k++) {
        atomicAdd(&counts[k * SET_COUNTS + COUNT_TRAPPED_PHOTONS], 1ull);
        atomicAdd(&counts[k * SET_COUNTS + COUNT_TRAPPED_UNITS],
                  fixed_point_from_weight_f(__fmul_rn(w, sets_factor(k))));
    }
}
