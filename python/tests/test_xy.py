"""tmcml.run(..., xy=(dx, nx)) and source=tmcml.ObliqueBeam(angle): the
Cartesian grid (Rd_xy, Tt_xy [nx, nx], A_xz [nx, nz]) of the Result,
result.xy and result.x (the cells' centres), None without the keyword; its
sums no more than Rd, Tt and A; the pencil beam's every other array
unchanged; ObliqueBeam(0) the pencil beam bit for bit, and at 45 degrees
the reflectance centred to +x, Rsp Fresnel's; the standard errors; through
the .mco (load_mco); run_batch (BatchResult stacks them) and run_mci; bad
values raise ValueError or TmcmlArgumentError naming the keyword; the
oblique beam without the grid, or with an output that assumes a beam along
the axis, refused; the GPU engine refused."""

import numpy as np
import pytest

import tmcml
from conftest import EXAMPLE, batch_alone_mci

XY = (0.02, 30)


def run(**kw):
    args = dict(EXAMPLE, photons=3000, engine="cpu", seed=5, progress=False)
    args.update(kw)
    return tmcml.run(**args)


def fresnel(n1, n2, theta):
    """Unpolarised Fresnel reflectance from n1 into n2 at incidence theta."""
    ci, st = np.cos(theta), n1 / n2 * np.sin(theta)
    ct = np.sqrt(1 - st * st)
    rs = (n1 * ci - n2 * ct) / (n1 * ci + n2 * ct)
    rp = (n2 * ci - n1 * ct) / (n2 * ci + n1 * ct)
    return (rs * rs + rp * rp) / 2


def test_arrays():
    r = run(xy=XY)
    dx, nx = XY
    assert r.xy == XY and r["x"] is r.x and r.units["x"] == "cm"
    np.testing.assert_allclose(r.x, (np.arange(nx) + 0.5 - nx / 2) * dx)
    assert r.Rd_xy.shape == (nx, nx) and r.Tt_xy.shape == (nx, nx) and r.A_xz.shape == (nx, r.nz)
    assert set(tmcml.XY_ARRAYS) == {"Rd_xy", "Tt_xy", "A_xz"} and set(tmcml.XY_ARRAYS) <= set(r)
    assert r.units["Rd_xy"] == r.units["A_xz"] == "1/cm2"
    # the grid holds no more than every escape and deposit
    assert 0 < r.Rd_xy.sum() * dx * dx <= r.Rd * (1 + 1e-12)
    assert 0 < r.Tt_xy.sum() * dx * dx <= r.Tt * (1 + 1e-12)
    assert 0 < r.A_xz.sum() * dx * r.dz <= r.A * (1 + 1e-12)
    # integer tallies, as every array's
    assert set(tmcml.XY_ARRAYS) <= set(r.tallies)
    plain = run()
    assert plain.Rd_xy is None and plain.xy is None and plain.x is None and "x" not in plain
    for name in ("Rd_ra", "Tt_ra", "A_rz"):
        np.testing.assert_array_equal(getattr(r, name), getattr(plain, name), err_msg=name)
    assert r.tallies_digest != plain.tallies_digest  # the digest covers the new tallies


def test_oblique_beam():
    angle = 45
    r = run(source=tmcml.ObliqueBeam(angle), xy=XY)
    assert isinstance(r.source, tmcml.ObliqueBeam) and r.source.angle == angle
    n = EXAMPLE["layers"][0][0]
    assert r.Rsp == pytest.approx(fresnel(1.0, n, np.radians(angle)), rel=1e-12)
    centre = (r.Rd_xy.sum(axis=1) @ r.x) / r.Rd_xy.sum()
    assert centre > 0  # the light goes on to +x
    zero = run(source=tmcml.ObliqueBeam(0), xy=XY)
    pencil = run(xy=XY)
    assert zero.tallies_digest == pencil.tallies_digest and zero.Rsp == pencil.Rsp
    np.testing.assert_array_equal(zero.Rd_xy, pencil.Rd_xy)


def test_stderr():
    r = run(xy=XY, stderr=True)
    for name in tmcml.XY_ARRAYS:
        e = r.stderr(name)
        assert e.shape == getattr(r, name).shape and name + "_stderr" in r.keys()
        assert np.all(np.isfinite(e)) and np.all(e >= 0) and e.max() > 0


def test_mco_round_trip(tmp_path):
    r = run(source=tmcml.ObliqueBeam(30), xy=XY)
    r.save_mco(tmp_path / "o.mco")
    back = tmcml.load_mco(tmp_path / "o.mco")
    assert back.xy == XY and isinstance(back.source, tmcml.ObliqueBeam)
    for name in tmcml.XY_ARRAYS:  # %12.4E: 5 significant digits
        np.testing.assert_allclose(getattr(back, name), getattr(r, name), rtol=5e-5, atol=1e-30)
    run().save_mco(tmp_path / "p.mco")
    p = tmcml.load_mco(tmp_path / "p.mco")
    assert p.Rd_xy is None and p.xy is None


def test_batch_and_mci(tmp_path):
    b, alone, m = batch_alone_mci(tmp_path, xy=XY)
    assert b.Rd_xy.shape == (2,) + (XY[1],) * 2 and b["A_xz"].shape == (2, XY[1], EXAMPLE["nz"])
    np.testing.assert_array_equal(b.x, alone.x)
    assert b["x"] is b.x and b.xy == XY
    np.testing.assert_array_equal(b[0].Rd_xy, alone.Rd_xy)
    np.testing.assert_array_equal(m.A_xz, alone.A_xz)


@pytest.mark.parametrize("value, error, message", [
    ((-0.01, 10), tmcml.TmcmlArgumentError, "xy: the cell side -0.01 cm is not a finite number"),
    ((float("nan"), 10), tmcml.TmcmlArgumentError, "xy: the cell side nan cm"),
    ((0.01, 0), ValueError, "xy: the cell count nx: expected 1 to 4096 (got 0)"),
    ((0.01, 4097), ValueError, "xy: the cell count nx: expected 1 to 4096"),
    ((0.01, 2.5), ValueError, "xy: the cell count nx"),
    ((0.01,), ValueError, "xy: expected (dx, nx)"),
    (0.01, ValueError, "xy: expected (dx, nx)"),
    (("a", 10), ValueError, "xy: the cell side dx must be a number of cm"),
])
def test_bad_values(value, error, message):
    with pytest.raises(error) as e:
        run(photons=10, xy=value)
    assert message in str(e.value)


@pytest.mark.parametrize("angle, message", [
    (90, "ObliqueBeam(angle): expected an angle of incidence below 90 degrees"),
    (-1, "ObliqueBeam(angle): expected a finite number >= 0"),
    (float("nan"), "ObliqueBeam(angle): expected a finite number >= 0"),
    ("45", "ObliqueBeam(angle): expected a number"),
])
def test_bad_angles(angle, message):
    with pytest.raises(ValueError) as e:
        tmcml.ObliqueBeam(angle)
    assert message in str(e.value)


@pytest.mark.parametrize("keywords, message", [
    ({}, "its one spatial output is the Cartesian grid"),
    ({"xy": XY, "time_bins": (0.01, 5)}, "time bins (tmcml_problem_set_time_bins): assumes a beam "
                                         "along the axis"),
    ({"xy": XY, "detector": tmcml.FiberDetector(0.1, 0.05, 0.5)}, "fiber detectors"),
    ({"xy": XY, "spatial_frequencies": [0, 1]}, "spatial frequencies"),
    ({"xy": XY, "modulation": [1e8]}, "modulation frequencies"),
    ({"xy": XY, "jacobian": True}, "the derivatives (tmcml_problem_set_jacobian): assumes"),
    ({"xy": XY, "mua_sets": [[1, 1, 2]]}, "absorption or optics sets"),
])
def test_oblique_refusals(keywords, message):
    with pytest.raises(tmcml.TmcmlArgumentError) as e:
        run(photons=10, source=tmcml.ObliqueBeam(20), **keywords)
    assert message in str(e.value)


def test_gpu_refused_with_derivatives():
    # A run's own GPU kernel scores the grid; with derivatives the CPU alone.
    with pytest.raises(tmcml.TmcmlArgumentError) as e:
        run(photons=10, engine="gpu", xy=XY, jacobian=True)
    assert "Cartesian grid" in str(e.value) and "CPU engine alone" in str(e.value)
