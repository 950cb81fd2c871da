"""tmcml.run(..., optics_sets=...): K sets of each layer's (mua, mus, g)
scored from one simulation (tmcml_run_optics_sets), returned as mua_sets'
are (a BatchResult of the sets): the run's own optics bit for bit a plain
run's with an effective sample size of 1; other sets within their standard
errors of independent runs of their own optics; a set far from the run's
flagged (Result.ess_low, a tmcml.LowEffectiveSampleSizeWarning); ess None
for results of other runs; bad tables, the GPU engine, mua_sets with it and
the derivatives with a change of g refused, each naming what is wrong."""

import math
import warnings

import numpy as np
import pytest

import tmcml
from tmcml._lib import lib

# tests/test_optics_sets.c's stack, three layers of it: glass over two
# scattering layers of unequal indices.
LAYERS = [[1.52, 0.0, 0.0, 0.0, 0.02],  # glass
          [1.40, 1.0, 80.0, 0.85, 0.04],
          [1.33, 0.5, 30.0, 0.6, 0.08]]
GRID = dict(dz=0.01, dr=0.05, nz=15, nr=10, na=3)
# The run's own optics: a row (mua, mus, g) per layer.
OWN = np.array([layer[1:4] for layer in LAYERS])
SEED = 20261130
# A batch-means error (64 groups) makes z = difference / sqrt(sa^2 + sb^2)
# about a t of 63 degrees of freedom: P(|t| > 4.5) = 3e-5 a comparison, so
# the six below fail by chance with 2e-4 (and, seeds fixed, never twice).
BOUND = 4.5


def run(**kw):
    args = dict(layers=LAYERS, photons=20000, seed=SEED, engine="cpu", progress=False,
                threads=2, **GRID)
    args.update(kw)
    return tmcml.run(**args)


def changed(layer, column, value):
    """The run's own optics with one entry changed (layer, column 0-based:
    0 mua, 1 mus, 2 g)."""
    table = OWN.copy()
    table[layer, column] = value
    return table


def own_layers(table):
    """The layer rows of a set's optics (n and d the run's)."""
    return [[l[0], t[0], t[1], t[2], l[4]] for l, t in zip(LAYERS, table)]


def test_sets_agree_with_their_own_runs():
    """Set 0, the run's own optics, is the plain run of the seed bit for
    bit with ess 1; mus x1.1 in layer 2 and g +0.02 in layer 3 are within
    BOUND errors of independent runs of their own optics (which differ from
    the reference's by more, so a set scored as the reference fails), with
    an effective sample size below 1, above tmcml.LOW_ESS."""
    photons = 500000
    sets = [OWN, changed(1, 1, OWN[1, 1] * 1.1), changed(2, 2, OWN[2, 2] + 0.02)]
    with warnings.catch_warnings():
        warnings.simplefilter("error", tmcml.LowEffectiveSampleSizeWarning)
        b = run(optics_sets=sets, photons=photons, stderr=True)
    plain = run(photons=photons, stderr=True)
    assert isinstance(b, tmcml.BatchResult) and len(b) == 3
    for k, table in enumerate(sets):
        np.testing.assert_array_equal(b.layers[k][:, 1:4], table)
        assert b[k].photons == photons and b[k].seed == SEED and b[k].engine == "cpu"
    assert b.Rd.shape == (3,) and b.A_rz.shape == (3, b.nr, b.nz)

    assert b[0].ess == 1.0 and b[0].ess_low is False
    assert plain.keys() == b[0].keys()
    for name in plain.keys():
        np.testing.assert_array_equal(b[0][name], plain[name], err_msg=name)
    for name in plain.tallies:
        np.testing.assert_array_equal(b[0].tallies[name], plain.tallies[name], err_msg=name)

    assert isinstance(b.ess, np.ndarray) and b.ess.shape == (3,)
    np.testing.assert_array_equal(b.ess, [r.ess for r in b])
    for k in (1, 2):
        assert isinstance(b[k].ess, float) and tmcml.LOW_ESS < b[k].ess < 1.0, b[k].ess
        assert b[k].ess_low is False
        alone = run(layers=own_layers(sets[k]), photons=photons, seed=SEED + k, stderr=True)
        apart = 0.0
        for q in ("Rd", "A", "Tt"):
            sigma = math.hypot(b[k].stderr(q), alone.stderr(q))
            z = (getattr(b[k], q) - getattr(alone, q)) / sigma
            assert abs(z) <= BOUND, "set %d, %s: %.6g, alone %.6g: z %.2f" % (
                k, q, getattr(b[k], q), getattr(alone, q), z)
            apart = max(apart, abs(getattr(plain, q) - getattr(alone, q)) /
                        math.hypot(plain.stderr(q), alone.stderr(q)))
        assert apart > BOUND, "set %d: too few photons to tell it from the reference" % k


def test_low_effective_sample_size_warns():
    """+50 % mus in a thick scattering layer: a few histories carry the
    set, so its ess is below tmcml.LOW_ESS, ess_low True, and a
    LowEffectiveSampleSizeWarning names the set and the value."""
    thick = [[1.4, 0.1, 100.0, 0.8, 0.5]]
    assert tmcml.LOW_ESS == 0.1 and issubclass(tmcml.LowEffectiveSampleSizeWarning, UserWarning)
    with pytest.warns(tmcml.LowEffectiveSampleSizeWarning) as caught:
        b = run(layers=thick, photons=50000, optics_sets=[[[0.1, 100.0, 0.8]],
                                                          [[0.1, 150.0, 0.8]]])
    assert b[0].ess == 1.0 and b[0].ess_low is False
    assert b[1].ess < tmcml.LOW_ESS and b[1].ess_low is True
    assert b.ess[1] == b[1].ess
    (w,) = caught
    text = str(w.message)
    assert text.startswith("optics_sets[1] (set 2): effective sample size %.3g of the "
                           "reference's, below tmcml.LOW_ESS (0.1)" % b[1].ess), text
    assert "rest on a few heavy histories" in text
    assert w.filename == __file__  # the caller's line, not the package's


def test_results_of_other_runs_have_none():
    plain = run(photons=500)
    assert plain.ess is None and plain.ess_low is None
    absorption = run(photons=500, mua_sets=[[0.0, 1.0, 0.5], [0.0, 2.0, 0.5]])
    assert [r.ess for r in absorption] == [None, None]
    assert np.isnan(absorption.ess).all() and absorption.ess.shape == (2,)
    b = run(photons=500, optics_sets=[OWN])
    mixed = tmcml.BatchResult([b[0], plain])
    np.testing.assert_array_equal(mixed.ess, [1.0, np.nan])
    assert b[:1].ess.tolist() == [1.0]


def test_with_the_other_outputs():
    """Path lengths, time bins, a detector, the derivatives (sets of the
    run's g) and standard errors: set 0 has the plain run's, bit for bit,
    and every set its own of each."""
    options = dict(path_lengths=True, time_bins=(0.01, 5), stderr=True, jacobian=True,
                   detector=tmcml.FiberDetector(0.1, 0.05, 0.5))
    b = run(optics_sets=[OWN, changed(1, 1, 90.0), changed(2, 0, 0.8)], **options)
    plain = run(**options)
    for name in plain.keys():
        np.testing.assert_array_equal(b[0][name], plain[name], err_msg=name)
    L = len(LAYERS)
    assert b.has_jacobian and b.jacobian("Rd_t").shape == (3, 5, L, 3)
    assert b.Rd_path_total.shape == (3, L) and b.Rd_fiber.shape == (3,)
    assert b.stderr("Rd_r_jacobian").shape == (3, b.nr, L, 3)
    assert not np.array_equal(b.Rd_r[1], b.Rd_r[0])


@pytest.mark.parametrize("table, says", [
    (OWN, r"optics_sets: expected shape \(K, 3, 3\), 1 <= K <= 256: for each set, a row "
          r"\(mua, mus, g\) per layer \(3 layers\) \(got shape \(3, 3\)\)"),
    ([OWN[:2]], r"expected shape \(K, 3, 3\).*\(got shape \(1, 2, 3\)\)"),
    ([np.c_[OWN, OWN[:, :1]]], r"\(got shape \(1, 3, 4\)\)"),
    (np.zeros((0, 3, 3)), r"\(got shape \(0, 3, 3\)\)"),
    ([OWN] * 257, r"\(got shape \(257, 3, 3\)\)"),
    ([[[0.0, 0.0, 0.0]], [[1.0, 80.0]]], r"expected shape \(K, 3, 3\)"),
    (2.0, r"\(got shape \(\)\)"),
    ([OWN, changed(1, 1, np.nan)],
     r"^optics_sets\[1, 1, 1\] \(mus of layer 2 in set 2\): not a finite number \(nan\)$"),
    ([changed(2, 0, np.inf)], r"^optics_sets\[0, 2, 0\] \(mua of layer 3 in set 1\): not a "
                              r"finite number \(inf\)$"),
    (OWN.astype(complex)[None], r"optics_sets: expected real numbers, not an array of complex"),
    ([[[True, 0.0, 0.0]] * 3], r"optics_sets\[0\]\[0\]\[0\]: expected real numbers, not a "
                               r"boolean"),
    ("mua", r"optics_sets: expected real numbers, not 'mua'"),
    # the library's rules of each layer, numbered from 1 as its messages are
    ([changed(0, 1, 5.0)], r"optics_sets: set 1, layer 1: mus 5: the layer does not scatter"),
    ([OWN, changed(2, 2, 1.5)], r"optics_sets: set 2, layer 3: g 1.5: must be within \(-1, 1\)"),
    ([changed(1, 1, 0.0)], r"optics_sets: set 1, layer 2: mus 0: must be between"),
    ([changed(2, 0, -1.0)], r"optics_sets: set 1, layer 3: mua must be 0 or between"),
])
def test_bad_tables_refused(table, says):
    with pytest.raises(ValueError, match=says):
        run(photons=100, optics_sets=table)


def test_refused_combinations():
    with pytest.raises(ValueError) as e:
        run(photons=100, optics_sets=[OWN], mua_sets=[OWN[:, 0]])
    assert str(e.value) == ("mua_sets, optics_sets: one or the other (each optics set gives "
                            "its layers' mua too)")
    with pytest.raises(ValueError) as e:
        run(photons=100, optics_sets=[OWN, changed(2, 2, 0.62)], jacobian=True)
    assert "optics_sets: set 2 changes layer 3's g: the derivatives" in str(e.value)
    with pytest.raises(ValueError) as e:
        run(photons=100, optics_sets=[OWN], checkpoint="never.ckpt")
    assert "checkpoint: a run with optics_sets is not kept in a checkpoint file" in str(e.value)
    # engine='auto' takes the CPU, whatever the machine has
    assert run(photons=100, optics_sets=[OWN], engine="auto").engine == "cpu"


def test_older_library(monkeypatch):
    """A library before TMCML_1.5: optics_sets raises a clear RuntimeError,
    and results have no effective sample size."""
    monkeypatch.setattr(lib, "tmcml_run_optics_sets", None)
    with pytest.raises(RuntimeError) as e:
        run(photons=100, optics_sets=[OWN])
    assert "older than tmcml_run_optics_sets (TMCML_1.5)" in str(e.value)
    monkeypatch.setattr(lib, "tmcml_result_ess", None)
    assert run(photons=100).ess is None
