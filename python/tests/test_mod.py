"""tmcml.run(..., modulation=[...]): the reflectance in the frequency domain
(Rd_r_ac, Rd_r_phase [nr, F], Rd_ac, Rd_phase [F]) of the Result,
result.modulation and r["modulation"] in Hz, None without the keyword;
against the Fourier transform of the run's own time bins within the
binning's bound; the standard errors; through the .mco (load_mco);
run_batch (BatchResult stacks them) and run_mci; bad values raise
ValueError naming the keyword; the GPU engine refused with jacobian=True (a
run's own GPU kernel scores them alone)."""

import numpy as np
import pytest

import tmcml
from conftest import EXAMPLE, batch_alone_mci

HZ = [1e8, 3e8, 1e9]


def run(**kw):
    args = dict(EXAMPLE, photons=3000, engine="cpu", seed=5, progress=False)
    args.update(kw)
    return tmcml.run(**args)


def test_arrays():
    r = run(modulation=HZ)
    np.testing.assert_array_equal(r.modulation, HZ)
    assert r.modulation.dtype == np.float64 and r["modulation"] is r.modulation
    assert r.Rd_r_ac.shape == (r.nr, 3) and r.Rd_r_phase.shape == (r.nr, 3)
    assert r.Rd_ac.shape == (3,) and r.Rd_phase.shape == (3,)
    # |sum w exp(-i omega t)| <= sum w, falling with the frequency; a lag
    assert np.all(r.Rd_ac <= r.Rd) and np.all(np.diff(r.Rd_ac) < 0)
    assert np.all(r.Rd_phase > 0) and np.all(np.diff(r.Rd_phase) > 0)
    assert set(tmcml.MOD_ARRAYS) == {"Rd_r_ac", "Rd_r_phase", "Rd_ac", "Rd_phase"}
    assert set(tmcml.MOD_ARRAYS) <= set(r.keys())
    assert r.units["modulation"] == "Hz" and r.units["Rd_r_phase"] == "rad"
    assert r.units["Rd_r_ac"] == "1/cm2" and r.units["Rd_ac"] == "-"
    plain = run()
    assert plain.Rd_r_ac is None and plain.modulation is None and "modulation" not in plain
    for name in ("Rd_ra", "Tt_ra", "A_rz"):
        np.testing.assert_array_equal(getattr(r, name), getattr(plain, name), err_msg=name)
    assert r.tallies_digest != plain.tallies_digest  # the digest covers the new tallies


def test_fourier_of_the_time_bins():
    """The same escapes binned in time: each ring's sum w exp(-i omega t)
    against the sum over its bins of their weight times exp(-i omega t) at
    the bin's centre, within omega dt / 2 of the ring's weight (an escape
    is at most dt / 2 from its bin's centre; the last bin, which collects
    the later ones, twice its weight) and the rounding of three scores an
    escape."""
    dt, nt = 0.002, 1000
    r = run(photons=5000, time_bins=(dt, nt), modulation=HZ)
    area = 2 * np.pi * (np.arange(r.nr) + 0.5) * r.dr ** 2
    bins = r.Rd_rt * area[:, None] * dt  # each ring's weight a bin, per photon
    t = (np.arange(nt) + 0.5) * dt
    for k, f in enumerate(HZ):
        w = 2 * np.pi * f * 1e-9
        want = bins @ np.exp(-1j * w * t)
        got = r.Rd_r_ac[:, k] * area * np.exp(-1j * r.Rd_r_phase[:, k])
        bound = bins[:, :-1].sum(axis=1) * w * dt / 2 + 2 * bins[:, -1] + 1.5 * 2.0 ** -24 + 1e-12
        assert np.all(np.abs(got - want) <= bound), (f, np.max(np.abs(got - want) / bound))
        total = bins.sum(axis=0) @ np.exp(-1j * w * t)
        assert abs(r.Rd_ac[k] * np.exp(-1j * r.Rd_phase[k]) - total) <= bound.sum()


def test_stderr():
    r = run(modulation=HZ, stderr=True)
    for name in tmcml.MOD_ARRAYS:
        e = r.stderr(name)
        assert e.shape == getattr(r, name).shape and name + "_stderr" in r.keys()
        assert np.all(np.isfinite(e)) and np.all(e >= 0)
    assert np.all(r.stderr("Rd_ac") > 0) and np.all(r.stderr("Rd_phase") > 0)


def test_mco_round_trip(tmp_path):
    r = run(modulation=HZ)
    r.save_mco(tmp_path / "m.mco")
    back = tmcml.load_mco(tmp_path / "m.mco")
    np.testing.assert_array_equal(back.modulation, HZ)
    for name in tmcml.MOD_ARRAYS:  # %12.4E (5 significant digits), the totals 7
        np.testing.assert_allclose(getattr(back, name), getattr(r, name), rtol=5e-5, atol=1e-30)
    run().save_mco(tmp_path / "p.mco")
    p = tmcml.load_mco(tmp_path / "p.mco")
    assert p.Rd_ac is None and p.modulation is None


def test_batch_and_mci(tmp_path):
    b, alone, m = batch_alone_mci(tmp_path, modulation=np.array(HZ))
    assert b.Rd_r_ac.shape == (2, EXAMPLE["nr"], 3) and b["Rd_phase"].shape == (2, 3)
    np.testing.assert_array_equal(b.modulation, HZ)
    assert b["modulation"] is b.modulation and b.units["modulation"] == "Hz"
    np.testing.assert_array_equal(b[0].Rd_r_phase, alone.Rd_r_phase)
    np.testing.assert_array_equal(m.Rd_r_ac, alone.Rd_r_ac)


@pytest.mark.parametrize("value, message", [
    ([-1e8], "modulation: frequency 1, -1e+08 Hz, is negative"),
    ([1e8, float("nan")], "modulation: frequency 2, nan Hz, is not a finite number"),
    ([100], "modulation: frequency 1, 100 Hz, is below 1 kHz: looks like the wrong unit"),
    ([0], "modulation: frequency 1, 0 Hz, is no modulation"),
    ([1e8, 2e10], "modulation: frequency 2, 2e+10 Hz, is above 10 GHz"),
    ([1e8] * 257, "modulation: 257 modulation frequencies: 1 to 256 are possible"),
    ([], "modulation: empty"),
    (1e8, "modulation: expected a sequence of frequencies in Hz"),
    ("100MHz", "modulation: expected a sequence"),
    (["a"], "modulation: expected numbers in Hz"),
])
def test_bad_values(value, message):
    with pytest.raises(ValueError) as e:
        run(photons=10, modulation=value)
    assert message in str(e.value)


def test_gpu_refused_with_derivatives():
    with pytest.raises(tmcml.TmcmlArgumentError) as e:
        run(photons=10, engine="gpu", jacobian=True, modulation=HZ)
    assert "modulation frequencies" in str(e.value) and "CPU engine alone" in str(e.value)
