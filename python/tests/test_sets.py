"""tmcml.run(..., mua_sets=M): K absorption sets of one simulation as a
BatchResult (arrays stacked on a first axis of K, [k] a Result); the set
equal to the per-layer minimum has, bit for bit, the tallies of tmcml.run of
its mua; bad tables and the GPU engine refused, naming what is wrong."""

import numpy as np
import pytest

import tmcml
from conftest import EXAMPLE

GRID = {k: EXAMPLE[k] for k in ("dz", "dr", "nz", "nr", "na")}


def test_sets_stacked_and_reference_exact():
    layers = [list(row) for row in EXAMPLE["layers"]]
    own = [row[1] for row in layers]
    sets = np.array([own, [2 * m for m in own], [5 * m for m in own]])
    batch = tmcml.run(layers=layers, photons=3000, seed=4, engine="auto", progress=False,
                      mua_sets=sets, **GRID)
    k, nr, nz = 3, GRID["nr"], GRID["nz"]
    assert len(batch) == k and batch.Rd.shape == (k,) and batch.A_rz.shape == (k, nr, nz)
    assert batch.layers.shape == (k, len(layers), 5)
    assert np.array_equal(batch.layers[:, :, 1], sets)
    assert batch.engine == "cpu" and list(batch.photons) == [3000] * k
    assert batch.Rd[0] > batch.Rd[1] > batch.Rd[2] and batch.A[0] < batch.A[2]
    alone = tmcml.run(layers=layers, photons=3000, seed=4, engine="cpu", progress=False, **GRID)
    assert batch[0].tallies_digest == alone.tallies_digest
    assert np.array_equal(batch.A_rz[0], alone.A_rz)


def test_bad_sets_refused():
    layers = EXAMPLE["layers"]
    run = dict(layers=layers, photons=100, engine="cpu", progress=False, **GRID)
    with pytest.raises(ValueError, match=r"mua_sets: expected shape \(K, 3\)"):
        tmcml.run(mua_sets=[[1.0, 1.0]], **run)
    with pytest.raises(ValueError, match=r"mua_sets: expected shape"):
        tmcml.run(mua_sets=np.ones((257, 3)), **run)
    with pytest.raises(ValueError, match="set 2, layer 3: mua must be 0 or between"):
        tmcml.run(mua_sets=[[1, 1, 2], [1, 1, -2]], **run)
