"""tmcml.run(..., detector=[tmcml.FiberDetector(...), ...]): several fiber
detectors from one run's photons (issue 47).  Rd_fiber is then an array of
a value a detector (a float for one, as before), its standard errors (D,)
and its derivatives (D, L, 3), each detector's bit for bit its run alone of
the same seed; result.detector the list; the .mco round trip keeps them;
run_batch stacks them; bad lists raise ValueError naming the item, the
library the detector (its number) and the value; the fit scores its fibers
in one run (16 a run)."""

import numpy as np
import pytest

import tmcml
from conftest import EXAMPLE
from tmcml.fit_data import Fibers

FIBERS = [tmcml.FiberDetector(0.0, 0.05, 1.0), tmcml.FiberDetector(0.1, 0.04, 0.5),
          tmcml.FiberDetector(0.05, 0.05, 1.0)]


def run(**kw):
    args = dict(EXAMPLE, photons=3000, engine="cpu", seed=5, progress=False)
    args.update(kw)
    return tmcml.run(**args)


def test_each_as_alone():
    r = run(detector=FIBERS, jacobian=True, stderr=True)
    L = len(r.layers)
    assert r.detector == FIBERS
    assert r.Rd_fiber.shape == (3,) and (r.Rd_fiber > 0).all()
    np.testing.assert_array_equal(r["Rd_fiber"], r.Rd_fiber)
    np.testing.assert_array_equal(r.to_dict()["Rd_fiber"], r.Rd_fiber)
    assert r.stderr("Rd_fiber").shape == (3,) and r.jacobian("Rd_fiber").shape == (3, L, 3)
    assert r.tallies["Rd_fiber"].shape == (3,)
    for d, fiber in enumerate(FIBERS):
        alone = run(detector=fiber, jacobian=True, stderr=True)
        assert alone.detector == fiber and type(alone.Rd_fiber) is float
        assert r.Rd_fiber[d] == alone.Rd_fiber
        assert r.stderr("Rd_fiber")[d] == alone.stderr("Rd_fiber")
        np.testing.assert_array_equal(r.jacobian("Rd_fiber")[d], alone.jacobian("Rd_fiber"))
        np.testing.assert_array_equal(r.Rd_r, alone.Rd_r)


def test_one_in_a_list_is_one():
    """A list of one detector is one detector: a float, as detector=F gives."""
    r = run(detector=FIBERS[:1])
    assert type(r.Rd_fiber) is float and r.detector == FIBERS[0]
    assert r.Rd_fiber == run(detector=FIBERS[0]).Rd_fiber


def test_mco_round_trip(tmp_path):
    r = run(detector=FIBERS)
    r.save_mco(tmp_path / "f.mco")
    back = tmcml.load_mco(tmp_path / "f.mco")
    assert back.detector == FIBERS and back.Rd_fiber.shape == (3,)
    np.testing.assert_allclose(back.Rd_fiber, r.Rd_fiber, rtol=1e-6)


def test_batch():
    grid = dict(dz=EXAMPLE["dz"], dr=EXAMPLE["dr"], nz=EXAMPLE["nz"], nr=EXAMPLE["nr"],
                na=EXAMPLE["na"])
    b = tmcml.run_batch(layers=[EXAMPLE["layers"]] * 2, photons=1000, engine="cpu", seed=5,
                        progress=False, detector=FIBERS, **grid)
    assert b.Rd_fiber.shape == (2, 3)
    np.testing.assert_array_equal(b[0].Rd_fiber, run(photons=1000, detector=FIBERS).Rd_fiber)


@pytest.mark.parametrize("detector, error, message", [
    ([FIBERS[0], 3], ValueError, "detector: expected a tmcml.FiberDetector, a list of them or None "
     r"\(got .*: detector\[1\] is 3\)"),
    ([], ValueError, r"detector: expected a tmcml.FiberDetector, a list of them or None \(got \[\]\)"),
    (FIBERS + [tmcml.FiberDetector(0, 0.1, 1.2)], tmcml.TmcmlArgumentError,
     "fiber detector 4: numerical aperture 1.2 exceeds"),
    ([FIBERS[0]] * 17, tmcml.TmcmlArgumentError, "fiber detector 17: at most 16 detectors"),
])
def test_bad_lists(detector, error, message):
    with pytest.raises(error, match=message):
        run(detector=detector)


def test_fit_runs():
    """The fit's fibers: one run for up to 16, each its run alone's values."""
    fibers = [tmcml.FiberDetector(0.05 * k, 0.02, 0.5) for k in range(1, 18)]
    runs = Fibers(fibers).runs()
    assert [len(k["detector"]) for k in runs] == [16, 1]
    m = Fibers(fibers[:3])
    (keywords,) = m.runs()
    kw = dict(layers=[[1.4, 0.5, 50.0, 0.8, 100.0]], photons=2000, seed=3, engine="cpu",
              absorption=False, progress=False, jacobian=True, stderr=True)
    values, jacobian, stderr = m.of_results([tmcml.run(**kw, **keywords)], True)
    assert values.shape == (3,) and jacobian.shape == (3, 1, 3) and stderr.shape == (3,)
    one = dict(keywords, detector=fibers[1])
    alone = m.of_results([tmcml.run(**kw, **one)] * 3, True)
    assert values[1] == alone[0][1] and stderr[1] == alone[2][1]
    np.testing.assert_array_equal(jacobian[1], alone[1][1])
