"""tmcml.fit of the other kinds of data (docs/fit.md, "The data"): mua and
mus' of a semi-infinite medium from fiber detectors and from time-resolved
reflectance, against independent runs of known optics (another seed) with
2 % noise: the truth within the fit's standard errors (4 of them: a normal
deviate beyond with 6e-5).  Both take the CPU engine (its derivatives)."""

import numpy as np

import tmcml
from tmcml.fit_data import Fibers, TimeBins

TRUTH = [[1.4, 0.5, 50.0, 0.8, 100.0]]  # mua 0.5 /cm, mus' 10 /cm
START = [[1.4, 0.3, 30.0, 0.8, 100.0]]
FREE = [("mua", 0), ("musp", 0)]
NOISE = 0.02


def _reference(measurement, photons=10**6):
    """The measurement of the truth by an independent run (seed 99) with
    2 % noise, and its sigma (the noise and that run's own error)."""
    runs = [tmcml.run(layers=TRUTH, photons=photons, seed=99, engine="cpu", absorption=False,
                      progress=False, stderr=True, jacobian=True, **k)
            for k in measurement.runs()]
    clean, _, error = measurement.of_results(runs, True)
    sigma = np.sqrt((NOISE * clean) ** 2 + error ** 2)
    return clean * (1 + NOISE * np.random.default_rng(7).normal(size=clean.shape)), sigma


def test_fibers():
    """Three fibers of radius 1 mm, NA 0.5, at 3, 6 and 9 mm: Rd_fiber of each."""
    fibers = [tmcml.FiberDetector(s, 0.1, 0.5) for s in (0.3, 0.6, 0.9)]
    data, sigma = _reference(Fibers(fibers), 5 * 10**5)
    f = tmcml.fit(data, layers=START, free=FREE, fibers=fibers, sigma=sigma,
                  photons=10**5, engine="cpu")
    assert f.success and f.kind == "Rd_fiber", f.message
    assert (np.abs(f.values - [0.5, 10.0]) < 4 * f.stderr).all(), f
    assert f.r.tolist() == [0.3, 0.6, 0.9] and f.channels[0] == "fiber at 0.3 cm"


def test_time_resolved():
    """Rd_t of the whole surface in 10 bins of 0.1 ns; the time-resolved
    derivative by mus is noisy (its score grows with the scatterings), so
    the model needs more photons than for Rd(r): at 2e5 a run this fit
    said it stopped short of the minimum (mus' 1.8 standard errors off)."""
    bins = TimeBins(np.arange(10) * 0.1 + 0.05)
    data, sigma = _reference(bins)
    f = tmcml.fit(data, t=bins.t, layers=START, free=FREE, sigma=sigma, photons=5 * 10**5,
                  engine="cpu")
    assert f.success and f.kind == "Rd_t", f.message
    assert (np.abs(f.values - [0.5, 10.0]) < 4 * f.stderr).all(), f

