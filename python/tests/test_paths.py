"""tmcml.run(..., path_lengths=True): the partial path lengths (Rd_path,
Tt_path per ring and layer, their totals) as arrays of the Result, None
without the keyword; each total the rings' mean weighted by their escaping
weight; in run_batch, run_mci and with mua_sets; written to the .mco as
extra sections that load_mco reads back; the GPU engine refused."""

import math

import numpy as np
import pytest

import tmcml
from conftest import EXAMPLE


def run(**kw):
    args = dict(EXAMPLE, photons=3000, engine="cpu", seed=5, progress=False)
    args.update(kw)
    return tmcml.run(**args)


def ring_weights(r, per_area):
    """A ring array per unit area (Rd_r) as each ring's weight."""
    return per_area * 2 * math.pi * (np.arange(r.nr) + 0.5) * r.dr ** 2


def test_arrays_and_totals():
    r = run(path_lengths=True)
    L = len(r.layers)
    assert r.path_lengths and r.Rd_path.shape == (r.nr, L) and r.Tt_path.shape == (r.nr, L)
    assert r.Rd_path_total.shape == (L,) and r.Tt_path_total.shape == (L,)
    assert set(tmcml.PATH_ARRAYS) <= set(r.keys()) and "Rd_path" in r
    assert (r.Rd_path >= 0).all() and (r.Rd_path_total > 0).all()
    for path, total, per_area in ((r.Rd_path, r.Rd_path_total, r.Rd_r),
                                  (r.Tt_path, r.Tt_path_total, r.Tt_r)):
        w = ring_weights(r, per_area)
        np.testing.assert_allclose(w @ path / w.sum(), total, rtol=1e-9)
    assert set(r.tallies) == (set(tmcml.TALLIED) - set(tmcml.TIME_ARRAYS) -
                              set(tmcml.DETECTOR_ARRAYS) - set(tmcml.XY_ARRAYS))
    plain = run()
    assert not plain.path_lengths and plain.Rd_path is None and "Rd_path" not in plain
    assert set(plain.tallies) == (set(tmcml.TALLIED) - set(tmcml.PATH_ARRAYS) - set(tmcml.TIME_ARRAYS)
                                  - set(tmcml.DETECTOR_ARRAYS) - set(tmcml.XY_ARRAYS))
    # The other arrays are the plain run's, bit for bit.
    for name in plain.keys():
        np.testing.assert_array_equal(r[name], plain[name], err_msg=name)


def test_mco_round_trip(tmp_path):
    r = run(path_lengths=True)
    r.save_mco(tmp_path / "p.mco")
    back = tmcml.load_mco(tmp_path / "p.mco")
    for name in tmcml.PATH_ARRAYS:
        np.testing.assert_allclose(getattr(back, name), getattr(r, name), rtol=5e-5, atol=0,
                                   err_msg=name)
    run().save_mco(tmp_path / "q.mco")
    assert tmcml.load_mco(tmp_path / "q.mco").Rd_path is None


def test_batch_sets_and_mci(tmp_path):
    layers = EXAMPLE["layers"]
    grid = {k: EXAMPLE[k] for k in ("dz", "dr", "nz", "nr", "na")}
    b = tmcml.run_batch([layers, layers], photons=1000, engine="cpu", progress=False,
                        path_lengths=True, **grid)
    assert b.Rd_path_total.shape == (2, len(layers)) and "Tt_path" in b.keys()
    mua = [[l[1] for l in layers], [2 * l[1] for l in layers]]
    s = run(mua_sets=mua, path_lengths=True)
    assert s.Rd_path.shape == (2, s.nr, len(layers))
    # More absorption, shorter paths of the escaping weight.
    assert (s.Rd_path_total[1] < s.Rd_path_total[0]).all()
    tmcml.save_mci(tmp_path / "a.mci", layers=layers, photons=1000, **grid)
    (m,) = tmcml.run_mci(tmp_path / "a.mci", engine="cpu", progress=False, path_lengths=True)
    assert m.Rd_path_total.shape == (len(layers),)


def test_refused():
    with pytest.raises(ValueError) as e:
        run(path_lengths=True, engine="gpu")
    assert "path lengths are scored with absorption sets (tmcml_run_sets)" in str(e.value)
    with pytest.raises(ValueError) as e:
        run(path_lengths=1)
    assert "path_lengths: expected True or False" in str(e.value)
