// ---- the Cartesian grid (docs/outputs.md, "Cartesian grid") -----------------
// Compiled in only for a run that asks (the shape's xy, {{spec.xy}} cells along
// x and along y, centred on the entry point x = y = 0).  An escape adds its own
// tally units to its square cell as well as to its r-angle bin, and a deposit
// its own units to its x-z cell (every y) as well as to its r-z bin, so each
// grid sums to no more than its cylindrical tally; what lands beyond the grid
// is not scored in it (the CPU engine's xy_cell, runtime/engine/cpu_photon.c,
// in double).
#define XY_NX {{spec.xy}}

// The kernel's grid data (its arguments), copied to shared memory once a
// block.
struct xy_t {
    unsigned long long *rd, *tt;  // XY_NX x XY_NX each, [ix][iy]
    unsigned long long *a_xz;     // XY_NX x NZ, [ix][iz]
    float inv_dx;                 // 1 / the cell's side [1/cm]
};
__shared__ xy_t xy;

__device__ __forceinline__ void xy_setup(unsigned long long *rd_xy, unsigned long long *tt_xy,
                                         unsigned long long *a_xz, float inv_dx)
{
    if (threadIdx.x == 0) {
        xy.rd = rd_xy;
        xy.tt = tt_xy;
        xy.a_xz = a_xz;
        xy.inv_dx = inv_dx;
    }
}

// The cell of coordinate v (x or y): floor(v / dx + XY_NX / 2), or -1 beyond
// the grid (NaN too).
__device__ __forceinline__ int xy_cell(float v)
{
    float c = __fmaf_rn(v, xy.inv_dx, 0.5f * XY_NX);
    return c >= 0.0f && c < (float)XY_NX ? (int)c : -1;
}

// An escape of the photon, with units its r-angle bin's units.
__device__ __forceinline__ void xy_escape(const photon_t &p, unsigned long long units)
{
    int ix = xy_cell(p.x), iy = xy_cell(p.y);
    if (ix >= 0 && iy >= 0)
        atomicAdd(&(p.uz < 0.0f ? xy.rd : xy.tt)[ix * XY_NX + iy], units);
}
% if spec.score_absorption then

// A deposit of q units at the photon's position, in depth bin iz.
__device__ __forceinline__ void xy_deposit(const photon_t &p, int iz, unsigned int q)
{
    int ix = xy_cell(p.x);
    if (ix >= 0 && q != 0u)
        atomicAdd(&xy.a_xz[ix * NZ + iz], (unsigned long long)q);
}
% end
