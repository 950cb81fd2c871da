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
// extra mua, mua_k,i - mua_ref,i (1/cm), layer by layer; then rows of one
// word per thread (a thread's words SETS_BLOCK apart: consecutive threads,
// consecutive banks): its path in each layer, then its escape waiting to be
// scored (SET_WAITING: the escape bin times 2, plus 1 for Tt; -1 for none)
// and that escape's reference weight.
extern __shared__ __align__(16) float sets_shared[];
#define SET_EXTRA(i, k) sets_shared[((i) - 1) * NUM_SETS + (k)]
#define SET_ROW(row, t) sets_shared[NUM_LAYERS * NUM_SETS + (row) * SETS_BLOCK + (t)]
#define SET_PATH_OF(t, i) SET_ROW((i) - 1, t)
#define SET_PATH(i) SET_PATH_OF(threadIdx.x, i)
#define SET_WAITING_CODE(t) SET_ROW(NUM_LAYERS, t)  // the code's bits
#define SET_WAITING_WEIGHT(t) SET_ROW(NUM_LAYERS + 1, t)

__device__ __forceinline__ int set_waiting(unsigned int t) { return __float_as_int(SET_WAITING_CODE(t)); }

__device__ __forceinline__ void set_wait(unsigned int t, int code) { SET_WAITING_CODE(t) = __int_as_float(code); }

// A lane whose photon escaped waits (takes no new photon) until its warp
// scores the escape for every set together, at most this many loop
// iterations later (a power of 2).  One lane scoring its K sets alone, with
// the others idle, made 64 sets of skin cost as much as 2.5 runs.
#define SETS_SCORE_PERIOD 16u

// The kernel's start: the table into shared memory, and no escape waiting
// (the barrier after the layers' setup orders both before any photon).
__device__ __forceinline__ void sets_setup(const float *set_extra)
{
    for (int t = threadIdx.x; t < NUM_LAYERS * NUM_SETS; t += blockDim.x)
        sets_shared[t] = set_extra[t];
    set_wait(threadIdx.x, -1);
}

// A new photon has no path yet but through the glass layers above its first
// layer, which it crossed straight down (as the CPU engine counts them).
% if spec.source == 3 then
// A point source starts inside its layer: no glass crossed.
__device__ __forceinline__ void sets_launch(int first_layer)
{
    for (int i = 1; i <= NUM_LAYERS; i++)
        SET_PATH(i) = 0.0f;
}
% elseif spec.source == 4 then
// A fiber's photon crossed a glass layer 1 at its angle there: d / cos theta,
// sin theta = sin theta_first n_first / n_glass (record 0: source.cu).
__device__ __forceinline__ void sets_launch(int first_layer, const photon_t &p)
{
    layer_t src = layer_at(0);
    float k = __fdividef(src.g, src.cos_crit1);
    float cg = sqrtf(fmaxf(0.0f, __fmaf_rn(-__fmul_rn(k, k), __fmaf_rn(-p.uz, p.uz, 1.0f), 1.0f)));
    for (int i = 1; i <= NUM_LAYERS; i++) {
        layer_t l = layer_at(i);
        SET_PATH(i) = i < first_layer ? __fdividef(__fsub_rn(l.z1, l.z0), cg) : 0.0f;
    }
}
% else
__device__ __forceinline__ void sets_launch(int first_layer)
{
    for (int i = 1; i <= NUM_LAYERS; i++) {
        layer_t l = layer_at(i);
        SET_PATH(i) = i < first_layer ? __fsub_rn(l.z1, l.z0) : 0.0f;
    }
}
% end

// A flight of s cm in the photon's layer.
__device__ __forceinline__ void sets_path(const photon_t &p, float s)
{
    SET_PATH(photon_layer(p)) = __fadd_rn(SET_PATH(photon_layer(p)), s);
}

// Set k's weight factor for thread t's photon, exp(-sum_i extra_k,i L_i):
// one order of operations, whichever lane computes it.
__device__ __forceinline__ float sets_factor(unsigned int t, int k)
{
    float e = 0.0f;
    for (int i = 1; i <= NUM_LAYERS; i++)
        e = __fmaf_rn(SET_EXTRA(i, k), SET_PATH_OF(t, i), e);
    return __expf(-e);
}

// An escape of reference weight w into `bin` of Rd_ra (tt false) or Tt_ra:
// left for the warp to score (sets_score_waiting).
__device__ __forceinline__ void sets_escape(float w, size_t bin, bool tt)
{
    set_wait(threadIdx.x, (int)bin * 2 + (tt ? 1 : 0));
    SET_WAITING_WEIGHT(threadIdx.x) = w;
}

// Whether this thread's escape still waits to be scored.
__device__ __forceinline__ bool sets_waiting() { return set_waiting(threadIdx.x) >= 0; }

// The waiting escapes of the lanes here together, each scored for every
// set by all of them: lane r of n takes sets r, r + n, ...  Every escape's
// units are the same whoever adds them.
__device__ __forceinline__ void sets_score_waiting(unsigned long long *rd_ra,
                                                   unsigned long long *tt_ra)
{
    unsigned int group = __activemask();
    unsigned int lane = threadIdx.x & 31u, warp_first = threadIdx.x & ~31u;
    __syncwarp(group);  // each waiting lane's path and escape, written before, seen by all
    unsigned int waiting = __ballot_sync(group, sets_waiting());
    if (waiting == 0u)
        return;
    int n = __popc(group), rank = __popc(group & ((1u << lane) - 1u));
    for (unsigned int left = waiting; left != 0u; left &= left - 1u) {
        unsigned int t = warp_first + (unsigned int)(__ffs(left) - 1);
        int code = set_waiting(t);
        float w = SET_WAITING_WEIGHT(t);
        unsigned long long *ra = (code & 1) ? tt_ra : rd_ra;
        size_t bin = (size_t)(code >> 1);
        for (int k = rank; k < NUM_SETS; k += n)
            atomicAdd(&ra[k * SET_RA + bin], fixed_point_from_weight_f(__fmul_rn(w, sets_factor(t, k))));
    }
    __syncwarp(group);  // every waiting path read before its lane goes on
    if (waiting & (1u << lane))
        set_wait(threadIdx.x, -1);
}

// A photon stopped as trapped with reference weight w, for every set (rare:
// its lane alone).
__device__ __forceinline__ void sets_trapped(float w, unsigned long long *counts)
{
    for (int k = 0; k < NUM_SETS; k++) {
        atomicAdd(&counts[k * SET_COUNTS + COUNT_TRAPPED_PHOTONS], 1ull);
        atomicAdd(&counts[k * SET_COUNTS + COUNT_TRAPPED_UNITS],
                  fixed_point_from_weight_f(__fmul_rn(w, sets_factor(threadIdx.x, k))));
    }
}
