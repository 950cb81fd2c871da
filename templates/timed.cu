// ---- time of flight and the fiber detector (docs/outputs.md, "Time-resolved";
// docs/physics.md, "Fiber detector") --------------------------------------------
% if spec.time_bins then
// A photon carries its optical path, sum of s n over its flights (cm); its
// escape goes into time bin floor(path / (c dt)), the last of nt collecting
// every later one, with the escape's own tally units.
% end
% if spec.mod > 0 then
// An escape through the top scores, at each of the {{spec.mod}} modulation
// frequencies f, w cos(phi) and w sin(phi), phi = 2 pi f t its phase after
// its time of flight t = path / c, into its ring's row (docs/physics.md,
// "Frequency domain").
% end
% if spec.fibers > 0 then
// An escape through the top scores, for each of the {{spec.fibers}} fiber detectors
// whose acceptance cone it lies in, its weight times the fraction of its
// circle inside that fiber's face, into the detector's own entry.
% elseif spec.fiber then
// An escape through the top inside the fiber's acceptance cone scores its
// weight times the fraction of its circle inside the fiber's face.
% end
// The kernel's data (its arguments), copied to shared memory once a block.
struct timed_t {
    unsigned long long *rd_rt, *tt_rt;  // nr x nt each
    unsigned long long *rd_fiber;       // one entry
% if spec.mod > 0 then
    unsigned long long *rd_mod;         // nr x modulations x 4 parts (mod_setup)
% end
    float inv_c_dt;                     // 1 / (c dt) [1/cm]
    int nt;
    float fiber_sep, fiber_radius;      // cm
    float fiber_cos_accept;             // the least exit cosine the fiber takes
% if spec.fibers > 0 then
    float fibers[{{spec.fibers}}][3];  // each detector's sep, radius (cm), least exit cosine
% end
    float n[NUM_LAYERS + 2];            // each layer's refractive index
% if spec.mod > 0 then
    float mod_k[{{spec.mod}}];  // 2 pi f / c at each modulation frequency [rad/cm]
% end
};
__shared__ timed_t timed;

__device__ __forceinline__ void timed_setup(unsigned long long *rd_rt, unsigned long long *tt_rt,
                                            unsigned long long *rd_fiber, const float *time_n,
                                            float inv_c_dt, int nt, float fiber_sep,
                                            float fiber_radius, float fiber_cos_accept)
{
    if (threadIdx.x == 0) {
        timed.rd_rt = rd_rt;
        timed.tt_rt = tt_rt;
        timed.rd_fiber = rd_fiber;
        timed.inv_c_dt = inv_c_dt;
        timed.nt = nt;
        timed.fiber_sep = fiber_sep;
        timed.fiber_radius = fiber_radius;
        timed.fiber_cos_accept = fiber_cos_accept;
    }
    for (int i = threadIdx.x; i < NUM_LAYERS + 2; i += blockDim.x)
        timed.n[i] = time_n[i];
% if spec.fibers > 0 then
    // the detectors' geometry follows the layers' n in time_n
    for (int i = threadIdx.x; i < 3 * {{spec.fibers}}; i += blockDim.x)
        timed.fibers[i / 3][i % 3] = time_n[NUM_LAYERS + 2 + i];
% end
% if spec.mod > 0 then
    // the modulations' 2 pi f / c follow them (upload_time)
    for (int i = threadIdx.x; i < {{spec.mod}}; i += blockDim.x)
        timed.mod_k[i] = time_n[NUM_LAYERS + 2 + {{3 * spec.fibers}} + i];
% end
}
% if spec.time_bins or spec.mod > 0 then

// A flight of s cm in the photon's layer.
__device__ __forceinline__ void timed_path(photon_t &p, float s)
{
    p.flight = __fmaf_rn(s, timed.n[photon_layer(p)], p.flight);
}
% end
% if spec.fiber then

// The fraction of the circle of radius r about the axis inside the face
// (detector_fiber_fraction's, in float).
% if spec.fibers > 0 then
__device__ __forceinline__ float fiber_fraction(float r, float sep, float radius)
{
% else
__device__ __forceinline__ float fiber_fraction(float r)
{
    float sep = timed.fiber_sep, radius = timed.fiber_radius;
% end
    if (r + sep <= radius)
        return 1.0f;
    if (r >= sep + radius || r <= sep - radius)
        return 0.0f;
    float c = __fdividef(__fmaf_rn(r, r, __fmaf_rn(sep, sep, -radius * radius)),
                         2.0f * r * sep);
    return acosf(fminf(fmaxf(c, -1.0f), 1.0f)) * 0.318309886f;  // / pi
}
% end
% if spec.num_sets > 0 then

// The sets' kernel keeps an escape's time bin and detectors' shares for its
// warp to score (templates/sets.cu, sets_escape_timed).
%   if spec.time_bins then
// The time bin of the photon's flight, the last collecting every later one.
__device__ __forceinline__ int timed_bin(const photon_t &p)
{
    return min(__float2int_rz(p.flight * timed.inv_c_dt), timed.nt - 1);
}
%   end
%   if spec.fiber then
// Detector d's share of an escape through the top at radius r and exit
// cosine exit_cos: 0 outside its acceptance cone, else the fraction of the
// escape's circle inside its face.
__device__ __forceinline__ float timed_share(int d, float r, float exit_cos)
{
%     if spec.fibers > 0 then
    const float *f = timed.fibers[d];
    return exit_cos >= f[2] ? fiber_fraction(r, f[0], f[1]) : 0.0f;
%     else
    (void)d;
    return exit_cos >= timed.fiber_cos_accept ? fiber_fraction(r) : 0.0f;
%     end
}
%   end
% end

// The escape of a photon at radius r in ring ir, exit cosine exit_cos
// (outside), units its weight's tally units.
__device__ __forceinline__ void timed_escape(const photon_t &p, float r, int ir, float exit_cos,
                                             unsigned long long units)
{
% if spec.time_bins then
    int it = min(__float2int_rz(p.flight * timed.inv_c_dt), timed.nt - 1);
    atomicAdd(&(p.uz < 0.0f ? timed.rd_rt : timed.tt_rt)[(size_t)ir * timed.nt + it], units);
% else
    (void)ir; (void)units;
% end
% if spec.fibers > 0 then
    if (p.uz < 0.0f) {
        for (int k = 0; k < {{spec.fibers}}; k++) {  // each detector as if alone
            const float *d = timed.fibers[k];
            if (exit_cos >= d[2]) {
                float f = fiber_fraction(r, d[0], d[1]);
                if (f > 0.0f)
                    atomicAdd(timed.rd_fiber + k, fixed_point_from_weight_f(p.w * f));
            }
        }
    }
% elseif spec.fiber then
    if (p.uz < 0.0f && exit_cos >= timed.fiber_cos_accept) {
        float f = fiber_fraction(r);
        if (f > 0.0f)
            atomicAdd(timed.rd_fiber, fixed_point_from_weight_f(p.w * f));
    }
% else
    (void)r; (void)exit_cos;
% end
}
% if spec.mod > 0 then

// The kernel's frequency-domain tally (a run's own kernel's; the others'
// modulations take the CPU engine: gen/spec.c).
__device__ __forceinline__ void mod_setup(unsigned long long *rd_mod)
{
    if (threadIdx.x == 0)
        timed.rd_mod = rd_mod;
}

// v into its sign's part: parts[0] the positive, parts[1] the negative, in
// the units of v's magnitude (the host takes their difference on the
// integers, as the CPU engine's score_signed).
__device__ __forceinline__ void mod_signed(unsigned long long *parts, float v)
{
    unsigned long long units = fixed_point_from_weight_f(fabsf(v));
    if (units != 0ull)
        atomicAdd(&parts[v < 0.0f ? 1 : 0], units);
}

// An escape through the top in ring ir: at each frequency w cos(phi) and
// w sin(phi), phi = k_f x its optical path (sin > 0 a lag), into the ring's
// row of four parts a frequency (cos +, cos -, sin +, sin -:
// output_mod_part's order).  Its lane alone: a modulation instrument's
// handful of frequencies, two sines and atomics each.  sincosf, not the
// fast __sincosf, whose error grows with the phase (tens of radians at
// GHz after a few cm).
__device__ __forceinline__ void mod_escape(const photon_t &p, int ir)
{
    if (p.uz >= 0.0f)
        return;
    unsigned long long *row = timed.rd_mod + (size_t)ir * {{spec.mod}} * 4;
    for (int f = 0; f < {{spec.mod}}; f++) {
        float s, c;
        sincosf(__fmul_rn(p.flight, timed.mod_k[f]), &s, &c);
        mod_signed(&row[f * 4], __fmul_rn(p.w, c));
        mod_signed(&row[f * 4 + 2], __fmul_rn(p.w, s));
    }
}
% end
