// ---- absorption sets: {{spec.num_sets}} spectra of mua from one history ---------------
// (docs/physics.md, "Absorption sets".)  The photon is simulated with the
// reference mua - each layer's smallest over the sets, in the layer table -
// so set k's weight is the reference weight times
//   exp(-sum_i (mua_k,i - mua_ref,i) L_i),
// L_i the photon's path so far in layer i, a factor <= 1.  This kernel
// scores each set's escapes (Rd_ra, Tt_ra) and trapped weight with it, with
// spec.sets_paths their path lengths (Rd_path, Tt_path), and with
// spec.sets_absorb their absorption: at an interaction in layer i, set k
// deposits W_k mua_k,i / mut_ref,i into its A_rz (without it, -A, a set's A
// is what its photons did not carry out).  The reference's own weight is not
// scored.  Roulette acts on the reference weight, unbiased for every set.
//
// The sets' escape tallies are set-minor: bin b of set k at
// b * NUM_SETS + k, so that the lanes scoring consecutive sets of one
// escape add to consecutive words (a warp's atomics to a few sectors, not
// to 32 arrays; set-major, 64 sets' path lengths cost 2.7x the kernel of
// one set on an H100).  The host puts each set's array back together
// (gpu.c).  counts[] are set-major: set k's at k * SET_COUNTS.
#define NUM_SETS {{spec.num_sets}}
#define SETS_BLOCK {{spec.block_size}}
#define SET_COUNTS 3ull  // a set's counts[]

// The block's dynamic shared memory (spec_dynamic_shared_bytes): the sets'
// extra mua, mua_k,i - mua_ref,i (1/cm), layer by layer, and with
// sets_absorb each set's mua_k,i / mut_ref,i; then rows of one word per
// thread (a thread's words SETS_BLOCK apart: consecutive threads,
// consecutive banks): its path in each layer, then its escape waiting to be
// scored (SET_WAITING: the escape bin times 2, plus 1 for Tt; -1 for none)
// and that escape's reference weight, and with sets_absorb each set's
// deposit residue (fixed_point.h).
extern __shared__ __align__(16) float sets_shared[];
% -- the tables a layer by a set: the extra mut, then with sets_absorb the
% -- absorbed fraction, with optics sets the logarithm of an interaction's
% -- ratio and with g changed -2 g_k and 1 + g_k^2
% local optics = spec.sets_optics
% local tables = 1 + (spec.sets_absorb and 1 or 0) + (optics > 0 and 1 or 0)
% local counts = spec.sets_jacobian or optics > 0  -- rows of each layer's interactions
% -- with g changed, the pairs at an even word (gen/spec.c, spec_sets_g_pairs_at), then a flag a layer
% local g_flags = optics > 1 and spec.sets_g_pairs_at + 2 * spec.num_layers * spec.num_sets
% if optics > 1 then
#define SETS_TABLE ({{g_flags}} + NUM_LAYERS)
% else
#define SETS_TABLE (NUM_LAYERS * NUM_SETS * {{tables}})
% end
#define SET_EXTRA(i, k) sets_shared[((i) - 1) * NUM_SETS + (k)]
#define SET_ROW(row, t) sets_shared[SETS_TABLE + (row) * SETS_BLOCK + (t)]
#define SET_PATH_OF(t, i) SET_ROW((i) - 1, t)
#define SET_PATH(i) SET_PATH_OF(threadIdx.x, i)
#define SET_WAITING_CODE(t) SET_ROW(NUM_LAYERS, t)  // the code's bits
#define SET_WAITING_WEIGHT(t) SET_ROW(NUM_LAYERS + 1, t)
% if spec.sets_absorb then
#define SET_ABSORBED(i, k) sets_shared[NUM_LAYERS * NUM_SETS + ((i) - 1) * NUM_SETS + (k)]
#define SET_RESIDUE(t, k) SET_ROW(NUM_LAYERS + 2 + (k), t)
% end
% if optics > 0 then
// Optics sets (docs/physics.md, "Optics sets"): SET_EXTRA is the extra
// mut, mut_k,i - mut_ref,i; each interaction in layer i multiplies a set's
// weight by mus_k,i / mus_ref,i and, where a set changes g, each deflection
// by p(mu; g_k,i) / p(mu; g_ref,i).  SET_LOG_MUS is the logarithm of what
// every interaction there multiplies, ln(mus_k / mus_ref), with g changed
// plus ln((1 - g_k^2) / (1 - g_ref^2)), the densities' constant ratio; what
// depends on the deflection is (b_ref / b_k)^1.5, b = 1 + g^2 - 2g mu, of
// which sets_deflect keeps the base-2 logarithm (SET_G_PAIR: -2 g_k and
// 1 + g_k^2, which give b_k in one FMA, read in one 8-byte load).
#define SET_TABLE_AT(table, i, k) sets_shared[(table) * NUM_LAYERS * NUM_SETS + ((i) - 1) * NUM_SETS + (k)]
#define SET_LOG_MUS(i, k) SET_TABLE_AT({{spec.sets_absorb and 2 or 1}}, i, k)
%   if optics > 1 then
#define SET_G_PAIR(i, k) \
    reinterpret_cast<const float2 *>(sets_shared + {{spec.sets_g_pairs_at}})[((i) - 1) * NUM_SETS + (k)]
// After the pairs, a word a layer: 1 where some set changes its g, else 0.
#define SET_G_CHANGED(i) sets_shared[{{g_flags}} + (i) - 1]
%   end
% end
% if counts then
// Per thread after those rows: a row a layer of the photon's interactions
// c_i there (an unsigned count in the word); for the derivatives
// (docs/physics.md, "Derivatives") a row a layer of its Henyey-Greenstein
// score G_i there; for sets that change g a row a set of the logarithm of
// its deflections' ratio of densities (sets_interaction).
#define SET_COUNT_ROWS (NUM_LAYERS + 2{{spec.sets_absorb and " + NUM_SETS" or ""}})
#define SET_COUNT_OF(t, i) SET_ROW(SET_COUNT_ROWS + (i) - 1, t)
% end
% if spec.sets_jacobian then
#define SET_SCORE_OF(t, i) SET_ROW(SET_COUNT_ROWS + NUM_LAYERS + (i) - 1, t)
% end
% if optics > 1 then
#define SET_DEFLECTION(t, k) SET_ROW(SET_COUNT_ROWS + NUM_LAYERS{{spec.sets_jacobian and " * 2" or ""}} + (k), t)
% end
% local timed = spec.time_bins or spec.fiber
% if timed then
%   -- after every row above
%   local timed_row = spec.num_layers + 2 + (spec.sets_absorb and spec.num_sets or 0) +
%       (counts and spec.num_layers or 0) + (spec.sets_jacobian and spec.num_layers or 0) +
%       (optics > 1 and spec.num_sets or 0)
// With time bins or fiber detectors (timed.cu), the waiting escape's time
// bin (an int in the word) and each detector's share of it (0 for none).
%   if spec.time_bins then
#define SET_WAITING_TIME(t) SET_ROW({{timed_row}}, t)
%   end
%   if spec.fiber then
#define SET_DETECTORS {{spec.fibers > 0 and spec.fibers or 1}}
#define SET_WAITING_SHARE(t, d) SET_ROW({{timed_row + (spec.time_bins and 1 or 0)}} + (d), t)
%   end
% end

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
    for (int t = threadIdx.x; t < SETS_TABLE; t += blockDim.x)
        sets_shared[t] = set_extra[t];
    set_wait(threadIdx.x, -1);
}

// A new photon has no path yet but through the glass layers above its first
// layer, which it crossed straight down (as the CPU engine counts them).
% if spec.source_name == "point" then
// A point source starts inside its layer: no glass crossed.
__device__ __forceinline__ void sets_launch(int first_layer)
{
    for (int i = 1; i <= NUM_LAYERS; i++)
        SET_PATH(i) = 0.0f;
}
% elseif spec.source_name == "fiber" then
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
% if counts then

// A new photon has had no interaction: its counts (scores, ratios) are 0.
__device__ __forceinline__ void sets_launch_counts()
{
    for (int i = 1; i <= NUM_LAYERS; i++) {
        SET_COUNT_OF(threadIdx.x, i) = __uint_as_float(0u);
%   if spec.sets_jacobian then
        SET_SCORE_OF(threadIdx.x, i) = 0.0f;
%   end
    }
%   if optics > 1 then
    for (int k = 0; k < NUM_SETS; k++)
        SET_DEFLECTION(threadIdx.x, k) = 0.0f;
%   end
}

// 1 + g^2 - 2g mu, the Henyey-Greenstein density's base, >= (1 - |g|)^2 > 0.
__device__ __forceinline__ float hg_base(float g, float mu)
{
    return __fmaf_rn(__fmul_rn(-2.0f, g), mu, __fmaf_rn(g, g, 1.0f));
}
%   if optics > 1 then

// The deflection by cos theta = mu in layer i, of the reference's g, for
// the sets of another g there: each set's log2 b_k - log2 b_ref of the
// Henyey-Greenstein density p(mu; g) = (1 - g^2) / (2 b^1.5), b = 1 + g^2
// - 2g mu (its constant factor is the interaction's, SET_LOG_MUS).  The
// host's -2 g_k and 1 + g_k^2 round as hg_base's, so a set of the
// reference's g adds exactly 0.  Only layers where a set changes g, whose
// reference |g| < 1 (optics_sets_check), so b_ref > 0.  A set's work here
// is one load of its pair, one FMA, one logarithm and its sum
// (bench/results_gpu.md: each set also building its b, testing its g and
// scaling its term made 16 sets of skin's dermis 2.7 times one set).
__device__ __forceinline__ void sets_deflect(int i, float g, float mu)
{
    if (SET_G_CHANGED(i) == 0.0f)
        return;  // no set's ratio but 1 here: no logarithm
    float own = __log2f(hg_base(g, mu));
    for (int k = 0; k < NUM_SETS; k++) {
        float2 pair = SET_G_PAIR(i, k);
        float theirs = __log2f(__fmaf_rn(pair.x, mu, pair.y));
        SET_DEFLECTION(threadIdx.x, k) = __fadd_rn(SET_DEFLECTION(threadIdx.x, k), __fsub_rn(theirs, own));
    }
}
%   end

// An interaction in the photon's layer l, deflecting by cos theta = mu
// (the spin's, spin_theta): one more interaction there; for the
// derivatives the deflection's Henyey-Greenstein score
//   d ln p(mu; g) / dg = -2g / (1 - g^2) + 3 (mu - g) / (1 + g^2 - 2g mu)
// (none at |g| = 1, a fixed deflection: its derivative is NaN,
// runtime/io/jacobian.c); for sets that change g their ratios (sets_deflect).
__device__ __forceinline__ void sets_interaction(const photon_t &p, const layer_t &l, float mu)
{
    int i = photon_layer(p);
    SET_COUNT_OF(threadIdx.x, i) = __uint_as_float(__float_as_uint(SET_COUNT_OF(threadIdx.x, i)) + 1u);
    float g = l.g;
%   if spec.sets_jacobian then
    if (fabsf(g) < 1.0f) {
        float spread = __fdividef(__fmul_rn(-2.0f, g), __fmaf_rn(-g, g, 1.0f));
        float pull = __fdividef(__fmul_rn(3.0f, __fsub_rn(mu, g)), hg_base(g, mu));
        SET_SCORE_OF(threadIdx.x, i) = __fadd_rn(SET_SCORE_OF(threadIdx.x, i), __fadd_rn(spread, pull));
    }
%   end
%   if optics > 1 then
    sets_deflect(i, g, mu);
%   end
}
% end
% if spec.sets_absorb then

// A new photon's deposit residues, one a set, as a run's photon's.
__device__ __forceinline__ void sets_launch_residues()
{
    for (int k = 0; k < NUM_SETS; k++)
        SET_RESIDUE(threadIdx.x, k) = (float)FIXED_POINT_START_RESIDUE;
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
% if optics > 0 then
    // optics sets: times (mus_k / mus_ref)^c_i a layer (with g changed, the
    // densities' constant ratio too)
    for (int i = 1; i <= NUM_LAYERS; i++)
        e = __fmaf_rn(-SET_LOG_MUS(i, k), (float)__float_as_uint(SET_COUNT_OF(t, i)), e);
% end
% if optics > 1 then
    // and their deflections' (b_ref / b_k)^1.5: 1.5 ln 2 times the sum of
    // log2 b_k - log2 b_ref
    e = __fmaf_rn(1.03972077f, SET_DEFLECTION(t, k), e);
% end
    return __expf(-e);
}

% if spec.sets_absorb then
// Photon t's interaction, of reference weight w before it, in layer i, for
// set k: w f_k mua_k,i / mut_ref,i into its A_rz's row (set-minor, as the
// escapes), its units carried with the photon's own residue of set k, as a
// run's deposit is (fixed_point_deposit_f), in the order of its
// interactions, so its units are the same in every variant.
__device__ __forceinline__ void sets_deposit_one(unsigned int t, int k, float w, int i,
                                                 unsigned long long *row)
{
    float dw = __fmul_rn(__fmul_rn(w, sets_factor(t, k)), SET_ABSORBED(i, k));
    float residue = SET_RESIDUE(t, k);
    unsigned int q = fixed_point_deposit_f(dw, &residue);
    SET_RESIDUE(t, k) = residue;
    if (q != 0u)
        atomicAdd(&row[k], (unsigned long long)q);
}

// An interaction, for every set, by the photon's lane alone: K exponentials
// and atomics an interaction, the cost of per-set absorption
// (docs/physics.md).  The lanes interacting together, each taking some
// sets of every photon in turn, made 64 sets 1.4x faster but one set 8x
// slower, and passed each photon's residues from lane to lane between
// calls of different lane masks, which racecheck reported: each photon's
// residues stay its own lane's.
__device__ __forceinline__ void sets_deposit(const photon_t &p, float w, unsigned long long *a_rz)
{
    int ir, iz;
    absorption_bin(p, &ir, &iz);
    unsigned long long *row = a_rz + ((size_t)ir * NZ + (size_t)iz) * NUM_SETS;
    for (int k = 0; k < NUM_SETS; k++)
        sets_deposit_one(threadIdx.x, k, w, photon_layer(p), row);
}

% end
// An escape of reference weight w into `bin` of Rd_ra (tt false) or Tt_ra:
// left for the warp to score (sets_score_waiting).
__device__ __forceinline__ void sets_escape(float w, size_t bin, bool tt)
{
    set_wait(threadIdx.x, (int)bin * 2 + (tt ? 1 : 0));
    SET_WAITING_WEIGHT(threadIdx.x) = w;
}

% if timed then
// The waiting escape's time bin and, through the top, each fiber
// detector's share of it (timed.cu), kept for the warp as its bin is.
__device__ __forceinline__ void sets_escape_timed(const photon_t &p, float r, float exit_cos)
{
%   if spec.time_bins then
    SET_WAITING_TIME(threadIdx.x) = __int_as_float(timed_bin(p));
%   end
%   if spec.fiber then
    for (int d = 0; d < SET_DETECTORS; d++)
        SET_WAITING_SHARE(threadIdx.x, d) = p.uz < 0.0f ? timed_share(d, r, exit_cos) : 0.0f;
%   else
    (void)r; (void)exit_cos;
%   end
}

// Thread t's waiting escape, of reference weight w, into the sets' time
// bins (row: its ring x nt + its bin) and fiber detectors (timed.cu's
// tallies, set-minor as every tally of the sets): lane r of n takes sets,
// or (set, detector) pairs, r, r + n, ...  A set's escape adds the units
// of its Rd_ra or Tt_ra entry to its time bin, so that each time tally
// sums to its escape tally, as a run's kernel's does.
__device__ __forceinline__ void sets_score_timed(unsigned int t, float w, bool tt, size_t row,
                                                 int n, int rank)
{
%   if spec.time_bins then
    unsigned long long *rt = (tt ? timed.tt_rt : timed.rd_rt) + row * NUM_SETS;
    for (int k = rank; k < NUM_SETS; k += n)
        atomicAdd(&rt[k], fixed_point_from_weight_f(__fmul_rn(w, sets_factor(t, k))));
%   else
    (void)row;
%   end
%   if spec.fiber then
    for (int item = rank; !tt && item < NUM_SETS * SET_DETECTORS; item += n) {
        int k = item % NUM_SETS, d = item / NUM_SETS;
        float share = SET_WAITING_SHARE(t, d);
        if (share > 0.0f)
            atomicAdd(&timed.rd_fiber[d * NUM_SETS + k],
                      fixed_point_from_weight_f(__fmul_rn(__fmul_rn(w, sets_factor(t, k)), share)));
    }
%   end
}

% end
// Whether this thread's escape still waits to be scored.
__device__ __forceinline__ bool sets_waiting() { return set_waiting(threadIdx.x) >= 0; }

% if spec.sets_paths or spec.sets_jacobian or optics > 0 then
// A weight times a path (cm) in path units, 2^24 a weight x cm, capped at
// 2^39 units (NaN too: fminf takes the cap) as tally_path_units caps the
// CPU engine's (runtime/io/tally.h; docs/fixed-point.md, "Path tallies"),
// so that a launch of at most 2^24 photons cannot overflow 64 bits.
__device__ __forceinline__ unsigned long long sets_path_units(float w_cm)
{
    return __float2ull_rn(fminf(w_cm * 16777216.0f, 549755813888.0f));
}

% end
% if spec.sets_paths then
// Set k's escape, of weight wk, of thread t's photon in ring ir: its path in
// each layer times wk, into the ring's row of Rd_path or Tt_path (ring ir,
// layer i, set k at (ir * NUM_LAYERS + i - 1) * NUM_SETS + k), in path
// units (sets_path_units).  A layer the photon never entered adds nothing,
// so it is not added.
__device__ __forceinline__ void sets_score_paths(unsigned long long *path, unsigned int t, int k,
                                                 float wk, size_t ir)
{
    unsigned long long *row = path + ir * NUM_LAYERS * NUM_SETS + k;
    for (int i = 1; i <= NUM_LAYERS; i++) {
        unsigned long long units = sets_path_units(__fmul_rn(wk, SET_PATH_OF(t, i)));
        if (units != 0ull)
            atomicAdd(&row[(i - 1) * NUM_SETS], units);
    }
}

% end
% if optics > 0 then
// Thread t's escape, of reference weight w, into each optics set's weight
// sums (docs/physics.md, "Optics sets": its effective sample size): w_k^2,
// w and w^2, in path units (sets_path_units), entry j of set k at
// j * NUM_SETS + k (runtime/io/output_arrays.h, OUTPUT_SET_WEIGHT_SQUARES
// .. OUTPUT_REF_WEIGHT_SQUARES).
__device__ __forceinline__ void sets_score_weights(unsigned long long *set_w, unsigned int t, float w,
                                                   int n, int rank)
{
    unsigned long long ref = sets_path_units(w), ref2 = sets_path_units(__fmul_rn(w, w));
    for (int k = rank; k < NUM_SETS; k += n) {
        float wk = __fmul_rn(w, sets_factor(t, k));
        atomicAdd(&set_w[k], sets_path_units(__fmul_rn(wk, wk)));
        atomicAdd(&set_w[NUM_SETS + k], ref);
        atomicAdd(&set_w[2 * NUM_SETS + k], ref2);
    }
}

% end
% if spec.sets_jacobian then
// Thread t's escape, of reference weight w, in ring ir and angle ia, into
// the derivatives' terms of Rd (jr, ja: its rows by ring and by angle) or
// of Tt: for each set k and layer i, w_k times the photon's path S_i there,
// its interactions c_i, and the positive or the negative part of its score
// G_i, in path units (sets_path_units), as the CPU engine scores them
// (runtime/engine/cpu_photon.c, jacobian_row).  Term j of layer i of set k
// in a row at ((i - 1) * JACOBIAN_TERMS + j) * NUM_SETS + k: set-minor, as
// every tally of the sets.  The lanes here share the escape's
// NUM_SETS x NUM_LAYERS x 3 quantities, two atomics each (its ring's row
// and its angle's): for one set of skin's 7 layers, 21 lanes at once.
%   if timed then
// With time bins, jt is the row of the escape's time bin (ring x nt + bin)
// in Rd_rt's or Tt_rt's terms; with fiber detectors, jf Rd_fiber's terms
// (NULL for an escape through the bottom), detector d's row with w_k times
// its share.
%   end
#define JACOBIAN_TERMS 4  // path, count, score+, score- (runtime/io/output_arrays.h)
#define JACOBIAN_ROW (NUM_LAYERS * JACOBIAN_TERMS * NUM_SETS)
__device__ __forceinline__ void sets_score_jacobian(unsigned int t, float w, size_t ir, size_t ia,
                                                    unsigned long long *jr, unsigned long long *ja,
%   if spec.time_bins then
                                                    unsigned long long *jt,
%   end
%   if spec.fiber then
                                                    unsigned long long *jf,
%   end
                                                    int n, int rank)
{
    for (int item = rank; item < NUM_SETS * NUM_LAYERS * 3; item += n) {
        int k = item % NUM_SETS;
        int i = 1 + (item / NUM_SETS) % NUM_LAYERS;
        int q = item / (NUM_SETS * NUM_LAYERS);  // 0 path, 1 count, 2 score
        float v = q == 0   ? SET_PATH_OF(t, i)
                  : q == 1 ? (float)__float_as_uint(SET_COUNT_OF(t, i))
                           : SET_SCORE_OF(t, i);
        int term = q < 2 ? q : v > 0.0f ? 2 : 3;
        float wk = __fmul_rn(w, sets_factor(t, k));
        unsigned long long units = sets_path_units(__fmul_rn(wk, fabsf(v)));
        if (units == 0ull)
            continue;
        size_t at = ((size_t)(i - 1) * JACOBIAN_TERMS + (size_t)term) * NUM_SETS + (size_t)k;
        atomicAdd(&jr[ir * JACOBIAN_ROW + at], units);
        atomicAdd(&ja[ia * JACOBIAN_ROW + at], units);
%   if spec.time_bins then
        atomicAdd(&jt[at], units);
%   end
%   if spec.fiber then
        for (int d = 0; jf && d < SET_DETECTORS; d++) {
            float share = SET_WAITING_SHARE(t, d);
            if (share > 0.0f)
                atomicAdd(&jf[d * JACOBIAN_ROW + at], sets_path_units(__fmul_rn(__fmul_rn(wk, share), fabsf(v))));
        }
%   end
    }
}

% end
// The waiting escapes of the lanes here together, each scored for every
// set by all of them: lane r of n takes sets r, r + n, ...  Every escape's
// units are the same whoever adds them.
% -- its tallies besides Rd_ra and Tt_ra: kernel.cu's call passes the same
% local waiting = {"rd_ra", "tt_ra"}
% local function take(...) for _, name in ipairs({...}) do waiting[#waiting + 1] = name end end
% if spec.sets_paths then take("rd_path", "tt_path") end
% if spec.sets_jacobian then take("rd_jr", "rd_ja", "tt_jr", "tt_ja") end
% if optics > 0 then take("set_w") end
% if spec.sets_jacobian and spec.time_bins then take("rd_jt", "tt_jt") end
% if spec.sets_jacobian and spec.fiber then take("rd_jf") end
% local gap = ",\n                                                   unsigned long long *"
__device__ __forceinline__ void sets_score_waiting(unsigned long long *{{table.concat(waiting, gap)}})
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
        size_t bin = (size_t)(code >> 1);
        unsigned long long *ra = ((code & 1) ? tt_ra : rd_ra) + bin * NUM_SETS;
% if spec.sets_paths then
        unsigned long long *path = (code & 1) ? tt_path : rd_path;
        for (int k = rank; k < NUM_SETS; k += n) {
            float wk = __fmul_rn(w, sets_factor(t, k));
            atomicAdd(&ra[k], fixed_point_from_weight_f(wk));
            sets_score_paths(path, t, k, wk, bin / NA);
        }
% else
        for (int k = rank; k < NUM_SETS; k += n)
            atomicAdd(&ra[k], fixed_point_from_weight_f(__fmul_rn(w, sets_factor(t, k))));
% end
% if optics > 0 then
        sets_score_weights(set_w, t, w, n, rank);
% end
% if timed then
%   if spec.time_bins then
        size_t row = (bin / NA) * (size_t)timed.nt + (size_t)__float_as_int(SET_WAITING_TIME(t));
%   else
        size_t row = 0;
%   end
        sets_score_timed(t, w, (code & 1) != 0, row, n, rank);
% end
% if spec.sets_jacobian then
        bool tt = (code & 1) != 0;
%   local timed_rows = (spec.time_bins and "(tt ? tt_jt : rd_jt) + row * JACOBIAN_ROW, " or "") ..
%       (spec.fiber and "tt ? NULL : rd_jf, " or "")
        sets_score_jacobian(t, w, bin / NA, bin % NA, tt ? tt_jr : rd_jr, tt ? tt_ja : rd_ja, {{timed_rows}}n, rank);
% end
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
