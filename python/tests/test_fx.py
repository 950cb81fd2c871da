"""tmcml.run(..., spatial_frequencies=[...]): R(fx) and T(fx) (Rd_fx, Tt_fx)
of the Result, one value a frequency, Rd_fx[0] Rd bit for bit at fx = 0,
result.fx and r["fx"] in 1/cm, None without the keyword; against the
Hankel transform of the run's own Rd_r within the binning's bound; the
standard errors; through the .mco (load_mco); run_batch (BatchResult
stacks them) and run_mci; bad values raise ValueError naming the keyword;
the GPU engine refused."""

import numpy as np
import pytest

import tmcml
from conftest import EXAMPLE, batch_alone_mci

FX = [0, 0.5, 1, 2.5]


def run(**kw):
    args = dict(EXAMPLE, photons=3000, engine="cpu", seed=5, progress=False)
    args.update(kw)
    return tmcml.run(**args)


def test_arrays():
    r = run(spatial_frequencies=FX)
    np.testing.assert_array_equal(r.fx, FX)
    assert r.fx.dtype == np.float64 and r["fx"] is r.fx
    assert r.Rd_fx.shape == (4,) and r.Tt_fx.shape == (4,)
    assert r.Rd_fx[0] == r.Rd and r.Tt_fx[0] == r.Tt  # J0(0) = 1: the same units
    assert np.all(np.diff(r.Rd_fx) < 0)
    assert set(tmcml.FX_ARRAYS) == {"Rd_fx", "Tt_fx"} and set(tmcml.FX_ARRAYS) <= set(r.keys())
    assert r.units["fx"] == "1/cm" and r.units["Rd_fx"] == "-"
    assert r.keys().index("fx") > r.keys().index("a")
    plain = run()
    assert plain.Rd_fx is None and plain.fx is None and "fx" not in plain
    # Every other array of the run is the plain run's bit for bit.
    for name in ("Rd_ra", "Tt_ra", "A_rz"):
        np.testing.assert_array_equal(getattr(r, name), getattr(plain, name), err_msg=name)
    assert r.tallies_digest != plain.tallies_digest  # the digest covers the new tallies


def test_hankel_of_the_rings():
    """The same escapes binned: R(fx) against the sum over rings of the
    ring's weight times J0 at its centre, within the bound of J0's change
    across a ring (2 pi fx dr / 2 times max|J1| = 0.5819) and, for MCML's
    last ring, J0's whole range (1.403)."""
    j0 = pytest.importorskip("scipy.special").j0
    r = run(photons=5000, nr=400, dr=0.0025, spatial_frequencies=FX)
    rings = 2 * np.pi * (np.arange(r.nr) + 0.5) * r.dr ** 2 * r.Rd_r  # each ring's weight
    for k, fx in enumerate(FX):
        w = 2 * np.pi * fx
        want = rings @ j0(w * r.r)
        # (and a fixed-point unit an escape, and the doubles' rounding)
        bound = rings[:-1].sum() * w * r.dr / 2 * 0.5819 + rings[-1] * 1.403 + 1e-6
        assert abs(r.Rd_fx[k] - want) <= bound, (fx, r.Rd_fx[k], want, bound)


def test_stderr():
    r = run(spatial_frequencies=FX, stderr=True)
    e = r.stderr("Rd_fx")
    assert e.shape == (4,) and np.all(e > 0) and "Rd_fx_stderr" in r.keys()
    assert abs(e[0] - r.stderr("Rd")) <= 1e-12 * r.stderr("Rd")  # the same groups' values


def test_mco_round_trip(tmp_path):
    r = run(spatial_frequencies=FX)
    r.save_mco(tmp_path / "f.mco")
    back = tmcml.load_mco(tmp_path / "f.mco")
    np.testing.assert_array_equal(back.fx, FX)
    for name in tmcml.FX_ARRAYS:  # %12.6E: 7 significant digits
        np.testing.assert_allclose(getattr(back, name), getattr(r, name), rtol=1e-6, atol=1e-30)
    run().save_mco(tmp_path / "p.mco")
    p = tmcml.load_mco(tmp_path / "p.mco")
    assert p.Rd_fx is None and p.fx is None


def test_batch_and_mci(tmp_path):
    b, alone, m = batch_alone_mci(tmp_path, spatial_frequencies=np.array(FX))
    assert b.Rd_fx.shape == (2, 4) and b["Tt_fx"].shape == (2, 4)
    np.testing.assert_array_equal(b.fx, FX)
    assert b["fx"] is b.fx and b.units["fx"] == "1/cm"
    np.testing.assert_array_equal(b[0].Rd_fx, alone.Rd_fx)
    np.testing.assert_array_equal(m.Tt_fx, alone.Tt_fx)


@pytest.mark.parametrize("value, message", [
    ([-0.5], "spatial_frequencies: frequency 1, -0.5 1/cm, is negative"),
    ([0, float("nan")], "spatial_frequencies: frequency 2, nan 1/cm, is not a finite number"),
    ([0, 2e4], "spatial_frequencies: frequency 2, 20000 1/cm, is above 10000 1/cm"),
    (list(range(1025)), "spatial_frequencies: 1025 frequencies: 1 to 1024 are possible"),
    ([], "spatial_frequencies: empty"),
    (0.5, "spatial_frequencies: expected a sequence of frequencies in 1/cm"),
    ("0,1", "spatial_frequencies: expected a sequence"),
    ([[0, 1]], "spatial_frequencies: expected a sequence"),
    (["a"], "spatial_frequencies: expected numbers in 1/cm"),
])
def test_bad_values(value, message):
    with pytest.raises(ValueError) as e:
        run(photons=10, spatial_frequencies=value)
    assert message in str(e.value)


def test_gpu_refused():
    # with derivatives: their GPU kernel (the sets') scores no frequencies
    with pytest.raises(tmcml.TmcmlArgumentError) as e:
        run(photons=10, engine="gpu", spatial_frequencies=FX, jacobian=True)
    assert "spatial frequencies" in str(e.value) and "CPU engine alone" in str(e.value)
