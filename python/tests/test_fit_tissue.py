"""tmcml.fit (docs/fit.md): mua and mus' of a semi-infinite medium from
Rd(r) over 0.05-1 cm, against an independent run of known optics (another
seed) with 2 % noise (fibers and time bins: test_fit_kinds.py): the
truth within the fit's standard errors, and those errors honest (their size
against the spread of fits to 20 noise draws, each with its own model
seed); a parameter the data cannot determine, one held at a bound and data
no parameters match, said so; every bad argument named."""

import math

import numpy as np
import pytest

import tmcml
from tmcml.fit_data import Rings

TRUTH = [[1.4, 0.5, 50.0, 0.8, 100.0]]  # mua 0.5 /cm, mus' 10 /cm
START = [[1.4, 0.3, 30.0, 0.8, 100.0]]
FREE = [("mua", 0), ("musp", 0)]
R = np.arange(1, 21) * 0.05  # rings of 0.05 cm from 0.025 to 1.025 cm
NOISE = 0.02


@pytest.fixture(scope="module")
def measured():
    """The noiseless rings of an independent run of the truth (seed 99),
    and their standard errors (part of sigma: the data carry them)."""
    rings = Rings(R)
    ref = tmcml.run(layers=TRUTH, photons=10**6, seed=99, engine="cpu", absorption=False,
                    progress=False, stderr=True, **rings.grid())
    clean = rings.weights @ ref.Rd_r
    ref_se = np.sqrt(rings.weights ** 2 @ ref.stderr("Rd_r") ** 2)
    return clean, np.sqrt((NOISE * clean) ** 2 + ref_se ** 2)


def noisy(clean, draw):
    return clean * (1 + NOISE * np.random.default_rng(100 + draw).normal(size=clean.size))


def test_recovers_the_truth_within_its_errors(measured):
    clean, sigma = measured
    f = tmcml.fit(noisy(clean, 0), R, START, FREE, sigma=sigma, photons=2 * 10**5,
                  engine="cpu")
    assert f.success, f.message
    truth = np.array([0.5, 10.0])
    # 4 standard errors: a normal deviate beyond it with 6e-5.
    assert (np.abs(f.values - truth) < 4 * f.stderr).all(), f
    assert (f.stderr / truth < 0.02).all(), f  # the 2 %: the errors allow it
    assert f.names == ["mua[0]", "musp[0]"]
    assert f.layers.shape == (1, 5) and f.layers[0][2] == pytest.approx(f.values[1] / 0.2)
    assert f.residuals.shape == R.shape and f.dof == len(R) - 2
    assert 0 < f.chi2_dof < 3, f
    assert f.cov.shape == (2, 2) and np.allclose(np.sqrt(np.diag(f.cov)), f.stderr)
    assert 2 <= f.runs <= 40


def test_errors_match_the_spread_of_fits(measured):
    """20 noise draws, each fit with its own seed at few photons (the Monte
    Carlo error then counts as much as the data's): the standard
    deviation of the fitted values against the mean reported error.  The
    sample deviation of 20 has a relative error of 1/sqrt(38) = 0.16;
    3 of them is the tolerance."""
    clean, sigma = measured
    fits = [tmcml.fit(noisy(clean, d), R, START, FREE, sigma=sigma, photons=3 * 10**4,
                      engine="cpu", seed=1000 + d) for d in range(20)]
    values = np.array([f.values for f in fits])
    reported = np.array([f.stderr for f in fits]).mean(axis=0)
    ratio = values.std(axis=0, ddof=1) / reported
    assert (np.abs(ratio - 1) < 3 / math.sqrt(2 * 19)).all(), ratio
    chi2 = np.mean([f.chi2_dof for f in fits])
    assert abs(chi2 - 1) < 3 * math.sqrt(2 / (20 * 18)), chi2


def test_an_undetermined_parameter_is_said(measured):
    """A layer 10 cm down: nothing reaches it, its mua moves nothing."""
    clean, sigma = measured
    layers = [[1.4, 0.5, 50.0, 0.8, 10.0], [1.4, 0.5, 50.0, 0.8, 100.0]]
    with pytest.warns(tmcml.FitWarning, match="not identifiable.*mua\\[1\\]"):
        f = tmcml.fit(noisy(clean, 0), R, layers, [("mua", 0), ("mua", 1)], sigma=sigma,
                      photons=2 * 10**4, engine="cpu", max_runs=3)
    assert not f.success and math.isinf(f.condition)


def test_a_bound_is_said(measured):
    clean, sigma = measured
    with pytest.warns(tmcml.FitWarning, match="at a bound: mua\\[0\\]"):
        f = tmcml.fit(noisy(clean, 0), R, START, FREE, sigma=sigma, photons=2 * 10**4,
                      engine="cpu", bounds={("mua", 0): (0.1, 0.35)})
    assert not f.success and f.at_bound == ["mua[0]"]
    assert f.values[0] == pytest.approx(0.35, rel=1e-3)


def test_layers_share_a_parameter(measured):
    """The medium as two layers of the same optics, mua and mus' shared:
    the homogeneous truth again, with one value each."""
    clean, sigma = measured
    split = [[1.4, 0.3, 30.0, 0.8, 0.1], [1.4, 0.3, 30.0, 0.8, 100.0]]
    f = tmcml.fit(noisy(clean, 0), R, split, [("mua", (0, 1)), ("musp", (0, 1))],
                  sigma=sigma, photons=3 * 10**5, engine="cpu", bounds={"mua[0,1]": (0, 5)})
    assert f.success, f.message
    assert f.names == ["mua[0,1]", "musp[0,1]"]
    assert (np.abs(f.values - [0.5, 10.0]) < 4 * f.stderr).all(), f
    assert f.layers[0][1] == f.layers[1][1] == f.values[0]


def test_repeated_measurements_give_sigma(measured):
    clean, _ = measured
    repeats = np.array([noisy(clean, d) for d in range(5)])
    f = tmcml.fit(repeats, R, START, FREE, photons=2 * 10**4, engine="cpu")
    assert np.allclose(f.data, repeats.mean(axis=0))
    assert np.allclose(f.sigma, repeats.std(axis=0, ddof=1) / math.sqrt(5))


@pytest.mark.parametrize("change, message", [
    (dict(data=[1.0] * 19), "data: expected shape \\(20,\\)"),
    (dict(data=[1.0] * 19 + [math.nan]), "data\\[19\\]: not a finite number"),
    (dict(data=[1.0] * 19 + [-1.0]), "data\\[19\\]: negative reflectance"),
    (dict(sigma=0.0), "sigma\\[0\\]: must be positive"),
    (dict(sigma=[1.0, 2.0]), "sigma: expected one value or shape"),
    (dict(r=np.arange(0, 20) * 0.05), "r: expected distinct values > 0"),
    (dict(r=[0.05, 0.1, 0.15], ring_width=0.0314159), "give dr="),
    (dict(r=[0.05, 0.1, 0.15], ring_width=0.07), "ring_width: 0.07 cm is more than"),
    (dict(free=[("mub", 0)]), "'mub' is not a parameter of this model"),
    (dict(free=[("mua", 1)]), "a layer is an index from 0 to 0"),
    (dict(free=[("mua", (0, 0))]), "expected distinct layers"),
    (dict(free=[("mua", 0), ("mua", (0,))]), "mua of layer 0 is given twice"),
    (dict(layers=[[1.4, 0.3, 30.0, 0.8, 0.1], [1.4, 0.4, 30.0, 0.8, 100.0]],
          free=[("mua", (0, 1))]), "mua\\[0,1\\]: the layers 0, 1 share it but start from"),
    (dict(free=[]), "free: no free parameters"),
    (dict(r=[0.1], data=[1.0]), "1 values for 2 free parameters"),
    (dict(fibers=[0.3], r=None), "fibers: expected a non-empty list of tmcml.FiberDetector"),
    (dict(r=None), "r: the rings' radii \\[cm\\] are needed"),
    (dict(t=[0.1, 0.2], wavelengths=[500, 600]), "t: time-resolved spectra are not fitted"),
    (dict(free=[("mus", 0), ("musp", 0)]), "mus and musp of layer 0: one or the other"),
    (dict(bounds={("mua", 0): (1.0, 2.0)}), "bounds of mua\\[0\\]: the start 0.3 is outside"),
    (dict(bounds={("g", 0): (0, 1)}), "bounds: g\\[0\\] not a free parameter"),
    (dict(layers=[[1.4, 0.3, 0.0, 0.8, 100.0]]), "layer 0 does not scatter"),
])
def test_bad_arguments_are_named(change, message):
    args = dict(data=[1.0] * 20, r=R, layers=START, free=FREE, sigma=0.01)
    args.update(change)
    if change.get("r") is not None and "data" not in change:
        args["data"] = [1.0] * len(args["r"])
    with pytest.raises(ValueError, match=message):
        tmcml.fit(photons=1000, engine="cpu", **args)


def test_a_poor_match_is_said(measured):
    """Data of another medium's shape (a quarter more at r > 0.5 cm): no
    mua and mus' give it, and the fit says so rather than succeed."""
    clean, sigma = measured
    bent = clean * np.where(R > 0.5, 1.25, 1.0)
    with pytest.warns(tmcml.FitWarning, match="does not match the data"):
        f = tmcml.fit(bent, R, START, FREE, sigma=sigma, photons=3 * 10**4, engine="cpu")
    assert not f.success and f.chi2_dof > 2


def test_too_few_photons_are_said(measured):
    """5000 photons a run: the model's Monte Carlo error is several times
    the data's, its values rough from one evaluation to the next, and the
    fit says it cannot be trusted (short of the minimum, or a poor match)."""
    clean, sigma = measured
    with pytest.warns(tmcml.FitWarning, match="short of the minimum|does not match"):
        f = tmcml.fit(noisy(clean, 0), R, START, FREE, sigma=sigma, photons=5000,
                      engine="cpu")
    assert not f.success and f.mc_ratio > 2, f


@pytest.fixture(scope="module")
def table():
    """A table of the medium's layer over mua 0.1-2 and mus' 4-25 /cm, on
    the rings of the data, with its errors."""
    rings = Rings(R)
    return tmcml.lut(mua=np.geomspace(0.1, 2, 7), musp=np.geomspace(4, 25, 7), n=1.4, g=0.8,
                     d=100.0, nr=rings.nr, dr=rings.dr, photons=5 * 10**4, engine="cpu",
                     progress=False, stderr=True)


def test_from_a_lookup_table(measured, table):
    """The table's splines as the model: no run at each evaluation."""
    clean, sigma = measured
    f = tmcml.fit(noisy(clean, 0), R, START, FREE, sigma=sigma, lut=table)
    assert f.success, f.message
    assert (np.abs(f.values - [0.5, 10.0]) < 4 * f.stderr).all(), f
    assert f.mc_ratio > 0  # the table's errors count


@pytest.mark.parametrize("change, message", [
    (dict(layers=[[1.4, 0.3, 30.0, 0.9, 100.0]]), "lut: the layer's g is 0.9, the table's 0.8"),
    (dict(layers=[[1.4, 3.0, 30.0, 0.8, 100.0]]), "lut: the start mua = 3 is outside the table"),
    (dict(free=[("g", 0)]), "lut: g is the table's"),
    (dict(n_above=1.33), "lut: n_above is 1.33, the table's 1"),
    (dict(r=np.arange(1, 11) * 0.1), "lut: its rings are 0.025 cm wide, the data's need dr = 0.05"),
])
def test_lookup_table_misuse_is_named(table, change, message):
    args = dict(data=[1.0] * 20, r=R, layers=START, free=FREE, sigma=0.01, lut=table)
    args.update(change)
    args["data"] = [1.0] * len(args["r"])
    with pytest.raises(ValueError, match=message):
        tmcml.fit(**args)
