"""tmcml.run(..., time_bins=(dt, nt), detector=tmcml.FiberDetector(...)):
the time-resolved arrays (Rd_rt, Rd_t, Tt_rt, Tt_t) of the Result and
Rd_fiber, a float as Rd is (issue 47: scalar detectors as floats), None
without the keywords; sum(Rd_t) * dt == Rd; the
settings on the Result and through the .mco (load_mco); run_batch and
run_mci; bad values raise ValueError naming them; the GPU engine refused."""

import math

import numpy as np
import pytest

import tmcml
from conftest import EXAMPLE

FIBER = tmcml.FiberDetector(0.0, 0.1, 1.0)


def run(**kw):
    args = dict(EXAMPLE, photons=3000, engine="cpu", seed=5, progress=False)
    args.update(kw)
    return tmcml.run(**args)


def test_arrays():
    r = run(time_bins=(0.005, 30), detector=FIBER)
    assert r.time_bins == (0.005, 30) and r.detector == FIBER
    np.testing.assert_allclose(r.t, (np.arange(30) + 0.5) * 0.005)
    assert r.Rd_rt.shape == (r.nr, 30) and r.Rd_t.shape == (30,)
    assert r.Tt_rt.shape == (r.nr, 30) and r.Tt_t.shape == (30,)
    assert type(r.Rd_fiber) is float and r["Rd_fiber"] == r.Rd_fiber == r.to_dict()["Rd_fiber"]
    assert set(tmcml.TIME_ARRAYS + tmcml.DETECTOR_ARRAYS) <= set(r.keys())
    assert math.isclose(r.Rd_t.sum() * 0.005, r.Rd, rel_tol=1e-12)
    assert math.isclose(r.Tt_t.sum() * 0.005, r.Tt, rel_tol=1e-12)
    # The ring-resolved arrays are densities per area: their rings' weights
    # sum to Rd_t.
    area = 2 * math.pi * (np.arange(r.nr) + 0.5) * r.dr ** 2
    np.testing.assert_allclose(area @ r.Rd_rt, r.Rd_t, rtol=1e-9, atol=1e-15)
    # A detector at the axis with NA 1 in air collects the rings it covers
    # (0.1 cm: rings 0 to 9 of 0.01 cm), exactly in integers.
    t = r.tallies
    assert int(t["Rd_fiber"][0]) == int(t["Rd_ra"][:10].sum())
    assert math.isclose(r.Rd_fiber, t["Rd_fiber"][0] / 2.0 ** 24 / r.photons, rel_tol=1e-12)
    # Every other array is the plain run's.
    plain = run()
    assert plain.time_bins is None and plain.detector is None and plain.t is None
    assert plain.Rd_rt is None and plain.Rd_fiber is None and "Rd_t" not in plain
    for name in plain.keys():
        np.testing.assert_array_equal(plain[name], r[name], err_msg=name)


def test_mco_round_trip(tmp_path):
    r = run(time_bins=(0.01, 12), detector=tmcml.FiberDetector(0.2, 0.05, 0.4))
    r.save_mco(tmp_path / "t.mco")
    back = tmcml.load_mco(tmp_path / "t.mco")
    assert back.time_bins == (0.01, 12) and back.detector == tmcml.FiberDetector(0.2, 0.05, 0.4)
    for name in tmcml.TIME_ARRAYS + tmcml.DETECTOR_ARRAYS:
        np.testing.assert_allclose(getattr(back, name), getattr(r, name), rtol=1e-4, atol=1e-30)
    run().save_mco(tmp_path / "p.mco")
    assert tmcml.load_mco(tmp_path / "p.mco").Rd_t is None


def test_batch_and_mci(tmp_path):
    layers = [EXAMPLE["layers"]] * 2
    grid = dict(dz=EXAMPLE["dz"], dr=EXAMPLE["dr"], nz=EXAMPLE["nz"], nr=EXAMPLE["nr"],
                na=EXAMPLE["na"])
    b = tmcml.run_batch(layers=layers, photons=1000, engine="cpu", seed=5, progress=False,
                        time_bins=(0.01, 9), detector=FIBER, **grid)
    assert b.Rd_rt.shape == (2, b.nr, 9) and b.Rd_fiber.shape == (2,) and b["Rd_t"].shape == (2, 9)
    alone = run(photons=1000, time_bins=(0.01, 9), detector=FIBER)
    np.testing.assert_array_equal(b[0].Rd_rt, alone.Rd_rt)
    tmcml.save_mci(tmp_path / "a.mci", layers=EXAMPLE["layers"], photons=1000, **grid)
    (m,) = tmcml.run_mci(tmp_path / "a.mci", engine="cpu", seed=5, progress=False,
                         time_bins=(0.01, 9), detector=FIBER)
    np.testing.assert_array_equal(m.Rd_t, alone.Rd_t)


@pytest.mark.parametrize("kw, message", [
    (dict(time_bins=(0, 10)), "time_bins dt"),
    (dict(time_bins=(0.1, 0)), "time_bins nt"),
    (dict(time_bins=(0.1, 2.5)), "time_bins nt"),
    (dict(time_bins=0.1), "time_bins: expected (dt, nt)"),
    (dict(detector=(0, 1, 1)), "detector: expected a tmcml.FiberDetector"),
    # Widths too narrow to normalise (1e-320 wrote NaN and Inf into Rd_rt) and
    # bins whose range overflows: the library names them (issue 42).
    (dict(time_bins=(1e-320, 10)), "time bins: bin width 9.99989e-321 ns is below 1e-09 ns"),
    (dict(time_bins=(1e-300, 10)), "time bins: bin width 1e-300 ns is below"),
    (dict(time_bins=(1e307, 1000)), "time bins: 1000 bins of 1e.307 ns end beyond"),
    # Seconds where tmcml takes ns (MCX's habit; issue 47): every escape
    # would land in the last bin.
    (dict(time_bins=(1e-11, 50)), "time bins: bin width 1e-11 ns is below 1e-05 ns (10 fs): it "
     "looks like seconds; time bins are in ns"),
    (dict(detector=tmcml.FiberDetector(0, 1e-320, 0.5)), "radius 9.99989e-321 is too small"),
])
def test_bad_values(kw, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)")):
        run(**kw)


def test_bad_detector():
    with pytest.raises(ValueError, match="FiberDetector\\(radius\\)"):
        tmcml.FiberDetector(0, -1, 0.5)
    with pytest.raises(ValueError, match="FiberDetector\\(na\\)"):
        tmcml.FiberDetector(0, 1, float("nan"))
    # NA above the medium above's index: the library names it.
    with pytest.raises(tmcml.TmcmlArgumentError, match="numerical aperture 1.2 exceeds"):
        run(detector=tmcml.FiberDetector(0, 0.1, 1.2))


def test_gpu_batch_refused():
    # A run's own GPU kernel scores them, not a batch's.
    with pytest.raises(tmcml.TmcmlArgumentError, match="time bins and fiber detectors"):
        tmcml.run_batch(layers=[EXAMPLE["layers"]] * 2, photons=100, engine="gpu",
                        progress=False, time_bins=(0.01, 5))
