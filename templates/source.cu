// ---- the source: where a photon starts (docs/physics.md, "Sources") ---------
// Compiled in only for a run whose source is not MCML's pencil beam (the
// shape's source {{spec.source}}).  Its parameters are the run's data: the
// layer table's record 0, the medium above, which is never a photon's layer
// (runtime/io/run_view.c: z0 the radius or depth; for a fiber z1 = 1 - cos
// theta_max, g = n above / n1, cos_crit0 = n1 / n2 under a glass layer 1,
// cos_crit1 = n above / n of the first layer, mut the glass's thickness).
// The photon draws them first from its own stream, before any number of its
// steps, as the CPU engine does (runtime/engine/cpu_source.c), which has
// the same distributions in double.
% local kind = spec.source_name
% if kind == "gaussian" or kind == "flat" or kind == "fiber" then

// A point at radius r and a uniform azimuth.
__device__ __forceinline__ void source_place(photon_t &p, float r)
{
    float sa, ca;
    __sincosf(mwc_angle_f(&p.rng), &sa, &ca);
    p.x = __fmul_rn(r, ca);
    p.y = __fmul_rn(r, sa);
}
% end
% if kind == "fiber" then

// Unpolarised Fresnel reflectance at incidence cosine ci from a medium into
// one whose index is the first's / ratio; 1 under total internal reflection.
__device__ __forceinline__ float source_fresnel(float ratio, float ci)
{
    if (ratio == 1.0f)
        return 0.0f;
    float st2 = __fmul_rn(__fmul_rn(ratio, ratio), __fmaf_rn(-ci, ci, 1.0f));
    if (st2 >= 1.0f)
        return 1.0f;
    float ct = sqrtf(1.0f - st2);
    float rs = __fdividef(__fmaf_rn(ratio, ci, -ct), __fmaf_rn(ratio, ci, ct));
    float rp = __fdividef(__fmaf_rn(ratio, ct, -ci), __fmaf_rn(ratio, ct, ci));
    return 0.5f * __fmaf_rn(rs, rs, __fmul_rn(rp, rp));
}
% end

__device__ __forceinline__ void source_launch(photon_t &p, const layer_t &src)
{
% if kind == "gaussian" then
    // Gaussian: r^2 exponential of mean W^2 / 2 (irradiance exp(-2 r^2 / W^2))
    source_place(p, __fmul_rn(src.z0, sqrtf(-0.5f * __logf(mwc_uniform_open0_f(&p.rng)))));
% elseif kind == "flat" then
    // flat: r^2 uniform in [0, R^2)
    source_place(p, __fmul_rn(src.z0, sqrtf(mwc_uniform_f(&p.rng))));
% elseif kind == "point" then
    // isotropic point at depth z0 on the axis (its layer is first_layer),
    // weight 1: cos theta uniform in (-1, 1)
    p.z = src.z0;
    float uz = __fmaf_rn(-2.0f, mwc_uniform_open0_f(&p.rng), 1.0f);
    float st = sqrtf(fmaxf(0.0f, __fmaf_rn(-uz, uz, 1.0f)));
    float sa, ca;
    __sincosf(mwc_angle_f(&p.rng), &sa, &ca);
    p.ux = __fmul_rn(st, ca);
    p.uy = __fmul_rn(st, sa);
    p.uz = uz;
% elseif kind == "oblique" then
    // oblique beam: nothing drawn, every photon starts alike, from the
    // record (runtime/io/run_view.c, oblique_record; in double, rounded
    // once): z0 its x (a glass layer 1's shift), z1 and cos_crit1 the ux and
    // uz of the direction refracted into the first layer
    p.x = src.z0;
    p.ux = src.z1;
    p.uz = src.cos_crit1;
% elseif kind == "fiber" then
    // fiber: uniform over its face, cos theta0 uniform in [cos_max, 1],
    // weight 1 - R(theta0), refracted into the first layer
    source_place(p, __fmul_rn(src.z0, sqrtf(mwc_uniform_f(&p.rng))));
    float omc = __fmul_rn(mwc_uniform_f(&p.rng), src.z1);  // 1 - cos theta0
    float c0 = 1.0f - omc, s0 = sqrtf(__fmul_rn(omc, 2.0f - omc));
    float sa, ca;
    __sincosf(mwc_angle_f(&p.rng), &sa, &ca);
    float r = source_fresnel(src.g, c0);
    float sg = __fmul_rn(src.g, s0);  // sin theta in layer 1
    if (src.mut > 0.0f && r < 1.0f) {  // a glass layer 1: its two surfaces combined
        float cg = sqrtf(fmaxf(0.0f, __fmaf_rn(-sg, sg, 1.0f)));
        float r2 = source_fresnel(src.cos_crit0, cg);
        r = r + __fdividef((1.0f - r) * (1.0f - r) * r2, 1.0f - r * r2);
        float shift = cg > 0.0f ? __fdividef(__fmul_rn(src.mut, sg), cg) : 0.0f;
        p.x = __fmaf_rn(shift, ca, p.x);
        p.y = __fmaf_rn(shift, sa, p.y);
    }
    float st = __fmul_rn(src.cos_crit1, s0);  // sin theta in the first layer
    if (st >= 1.0f || r >= 1.0f) {
        p.w = 0.0f;  // reflected whole: ends at once, along +z
    } else {
        p.w = 1.0f - r;
        p.ux = __fmul_rn(st, ca);
        p.uy = __fmul_rn(st, sa);
        p.uz = sqrtf(__fmul_rn(1.0f - st, 1.0f + st));
    }
% end
}
