"""tmcml.run_batch and run_mci's batches: each problem's result equal bit for
bit to tmcml.run of it with the same seed; the arrays stacked on a first
axis; bad batches refused, naming what is wrong."""

import numpy as np
import pytest

import tmcml
from conftest import EXAMPLE

GRID = {k: EXAMPLE[k] for k in ("dz", "dr", "nz", "nr", "na")}


def layer_sets(b):
    """b layer lists of EXAMPLE's stack, other optics each."""
    sets = []
    for i in range(b):
        layers = [list(row) for row in EXAMPLE["layers"]]
        layers[0][1] = 0.3 + 0.4 * i  # mua
        layers[1][2] = 10.0 + 5 * i   # mus
        sets.append(layers)
    return sets


def test_batch_equals_runs_alone():
    sets = layer_sets(5)
    above = [1.0, 1.2, 1.0, 1.4, 1.0]
    batch = tmcml.run_batch(layers=np.array(sets), n_above=above, photons=3000, seed=5,
                            engine="cpu", progress=False, **GRID)
    assert len(batch) == 5
    assert batch.Rd.shape == (5,) and batch.A_rz.shape == (5, GRID["nr"], GRID["nz"])
    assert batch.layers.shape == (5, 3, 5) and batch.Rd_ra.shape == (5, GRID["nr"], GRID["na"])
    for b, layers in enumerate(sets):
        alone = tmcml.run(layers=layers, n_above=above[b], photons=3000, seed=5, engine="cpu",
                          progress=False, **GRID)
        assert batch[b].tallies_digest == alone.tallies_digest
        assert batch.Rd[b] == alone.Rd and np.array_equal(batch.A_rz[b], alone.A_rz)
        assert np.array_equal(batch[b].Tt_ra, alone.Tt_ra)
    assert [r.Rd for r in batch] == list(batch.Rd)
    assert len(batch[1:3]) == 2 and batch[1:3][0].Rd == batch.Rd[1]
    assert batch.fluence().shape == (5, GRID["nr"], GRID["nz"])


def test_bad_batches():
    sets = layer_sets(3)
    with pytest.raises(ValueError, match="n_above"):
        tmcml.run_batch(layers=sets, n_above=[1.0, 1.0], photons=100, engine="cpu",
                        progress=False, **GRID)
    with pytest.raises(ValueError, match="layers"):
        tmcml.run_batch(layers=np.zeros((2, 3)), photons=100, engine="cpu", progress=False,
                        **GRID)
    with pytest.raises(ValueError, match="layers"):
        tmcml.run_batch(layers=[], photons=100, engine="cpu", progress=False, **GRID)
    # Another layer count in one batch: the library names the problem.
    mixed = sets[:2] + [sets[2][:2]]
    with pytest.raises(tmcml.TmcmlArgumentError, match=r"problems\[2\]"):
        tmcml.run_batch(layers=mixed, photons=100, engine="cpu", progress=False, **GRID)


@pytest.mark.parametrize("bad, message", [
    (lambda a: a + 0j, r"layers: expected real numbers, not an array of complex numbers"),
    (lambda a: a.astype(object), r"layers: expected real numbers, not an array of Python objects"),
    (lambda a: a.astype(str), r"layers: expected real numbers, not an array of strings"),
    (lambda a: a > 0, r"layers: expected real numbers, not an array of booleans"),
    (lambda a: [[list(r) for r in p] for p in a[:1]] + [[[1.37, 1 + 2j, 100, 0.9, 0.1]] * 3],
     r"layers\[1\]\[0\]\[1\]: expected real numbers, not \(1\+2j\)"),
    (lambda a: [[[1.37, True, 100, 0.9, 0.1]] * 3],
     r"layers\[0\]\[0\]\[1\]: expected real numbers, not a boolean"),
    (lambda a: [[["1.37", 1, 100, 0.9, 0.1]] * 3],
     r"layers\[0\]\[0\]\[0\]: expected real numbers, not '1.37'"),
    (lambda a: [[[1.37, None, 100, 0.9, 0.1]] * 3],
     r"layers\[0\]\[0\]\[1\]: expected real numbers, not None"),
])
def test_not_real_layers_refused(bad, message):
    """numpy would cast these to floats: the imaginary part dropped with a
    warning, True as 1, '1.37' parsed (issue 42); refused, naming them."""
    layers = bad(np.array(layer_sets(2)))
    with pytest.raises(ValueError, match=message):
        tmcml.run_batch(layers=layers, photons=100, engine="cpu", progress=False, **GRID)
    if not isinstance(layers, np.ndarray) or layers.ndim == 3:
        with pytest.raises(ValueError, match=message.replace(r"layers\[0\]", "layers", 1)
                           .replace(r"layers\[1\]", "layers", 1)):
            tmcml.run(layers=layers[-1], photons=100, engine="cpu", progress=False, **GRID)


def test_not_real_mua_sets_refused():
    with pytest.raises(ValueError, match="mua_sets: expected real numbers, not an array of complex"):
        tmcml.run(layers=EXAMPLE["layers"], photons=100, engine="cpu", progress=False,
                  mua_sets=np.ones((2, 3)) + 1j, **GRID)
    with pytest.raises(ValueError, match=r"mua_sets\[0\]\[2\]: expected real numbers, not '2'"):
        tmcml.run(layers=EXAMPLE["layers"], photons=100, engine="cpu", progress=False,
                  mua_sets=[[1, 1, "2"]], **GRID)


def test_run_mci_batches_each_run_as_alone(tmp_path):
    sets = layer_sets(4)
    runs = [dict(layers=layers, photons=1500 + 500 * i, **GRID) for i, layers in enumerate(sets)]
    # A run of another grid between them: its own batch, the file's order kept.
    runs.insert(2, dict(layers=sets[0], photons=1000, dz=0.02, dr=0.01, nz=20, nr=50, na=1))
    tmcml.save_mci(tmp_path / "many.mci", runs=runs)
    results = tmcml.run_mci(tmp_path / "many.mci", seed=3, engine="cpu", progress=False)
    assert [r.photons for r in results] == [r["photons"] for r in runs]
    for r, run in zip(results, runs):
        alone = tmcml.run(seed=3, engine="cpu", progress=False, **run)
        assert r.tallies_digest == alone.tallies_digest
