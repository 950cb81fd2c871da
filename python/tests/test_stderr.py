"""Standard errors in Python (stderr=True; docs/library.md, "Standard
errors"): the results bit for bit those without; Result.stderr(name) of each
quantity's shape, stderr_keys(), NAME_stderr beside NAME in the dict view;
BatchResult.stderr stacking them (run_batch, mua_sets); run_mci and a
checkpointed run; the messages for a result without them and an unknown
name; Result.plot() drawing a band around R_d(r) and A(z)."""

import numpy as np
import pytest

import tmcml

GRID = dict(dz=0.02, dr=0.02, nz=10, nr=8, na=3)
LAYERS = [[1.4, 0.5, 60.0, 0.8, 0.05], [1.37, 1.0, 30.0, 0.9, 0.1]]
COMMON = dict(photons=8000, seed=11, engine="cpu", threads=2, progress=False, **GRID)
TOTALS = ("Rd", "A", "Tt")


def base_arrays(r):
    return [a for a in tmcml.ARRAYS if getattr(r, a) is not None]


def test_results_unchanged_and_errors_shaped():
    plain = tmcml.run(LAYERS, **COMMON)
    r = tmcml.run(LAYERS, **COMMON, stderr=True)
    assert r.tallies_digest == plain.tallies_digest
    for name in ("Rsp",) + TOTALS + tuple(base_arrays(plain)):
        np.testing.assert_array_equal(getattr(r, name), getattr(plain, name), err_msg=name)
    assert plain.stderr_groups == 0 and r.stderr_groups == 64
    assert r.stderr("Rsp") == 0.0
    for name in TOTALS:
        e = r.stderr(name)
        assert isinstance(e, float) and 0 < e < getattr(r, name), name
    for name in base_arrays(r):
        e, v = r.stderr(name), getattr(r, name)
        assert e.shape == v.shape and e.dtype == np.float64, name
        assert np.all(np.isfinite(e)) and np.all(e >= 0), name
        assert np.array_equal(e == 0, v == 0), name  # 0 exactly where every group is 0
    assert r.stderr_keys() == list(TOTALS) + base_arrays(r)
    assert plain.stderr_keys() == []


def test_dict_view():
    r = tmcml.run(LAYERS, **COMMON, stderr=True)
    keys = r.keys()
    assert keys[:7] == ["Rsp", "Rd", "Rd_stderr", "A", "A_stderr", "Tt", "Tt_stderr"]
    assert keys[keys.index("A_rz") + 1] == "A_rz_stderr"
    assert "Rsp_stderr" not in r  # Rsp is exact
    assert r["Rd_stderr"] == r.stderr("Rd")
    assert r["Rd_r_stderr"] is r.stderr("Rd_r")
    d = r.to_dict()
    assert set(d) == set(keys) and len(r) == len(keys)
    assert len(keys) == 4 + 3 + 2 * len(base_arrays(r)) + len(("r", "z", "a", "fluence"))
    plain = tmcml.run(LAYERS, **COMMON)
    assert not any(k.endswith("_stderr") for k in plain.keys())
    with pytest.raises(KeyError) as e:
        plain["Rd_r_stderr"]
    assert "Rd_r" in str(e.value)


def test_messages(tmp_path):
    plain = tmcml.run(LAYERS, **COMMON)
    with pytest.raises(ValueError) as e:
        plain.stderr("Rd_r")
    assert "no standard errors" in str(e.value) and "stderr=True" in str(e.value)
    r = tmcml.run(LAYERS, **COMMON, stderr=True)
    for bad in ("Rd_x", "Rd_path", "Rd_r_stderr"):  # Rd_path: not scored in this run
        with pytest.raises(KeyError) as e:
            r.stderr(bad)
        assert repr(bad) in str(e.value) and "Rd_r" in str(e.value) and "A_rz" in str(e.value)
    r.save_mco(tmp_path / "r.mco")
    back = tmcml.load_mco(tmp_path / "r.mco")
    assert back.stderr_groups == 0 and back.stderr_keys() == []
    with pytest.raises(ValueError) as e:
        back.stderr("Rd")
    assert ".mco" in str(e.value) and "stderr=True" in str(e.value)
    with pytest.raises(ValueError) as e:
        tmcml.run(LAYERS, **COMMON, stderr=1)
    assert "stderr: expected True or False" in str(e.value)


def test_batch_stacks_each_runs_own():
    layers = [LAYERS, [[1.4, 2.0, 60.0, 0.8, 0.05], LAYERS[1]]]
    b = tmcml.run_batch(layers, **COMMON, stderr=True)
    for k in range(2):
        alone = tmcml.run(layers[k], **COMMON, stderr=True)
        for name in TOTALS + tuple(base_arrays(alone)):
            assert b[k].stderr(name) is not None
            np.testing.assert_array_equal(b[k].stderr(name), alone.stderr(name), err_msg=name)
    assert b.stderr("Rd").shape == (2,)
    assert b.stderr("A_rz").shape == (2,) + b[0].A_rz.shape
    np.testing.assert_array_equal(b["Rd_r_stderr"], b.stderr("Rd_r"))
    assert "A_rz_stderr" in b.keys() and "A_rz_stderr" in b.to_dict()
    plain = tmcml.run_batch(layers, **COMMON)
    assert "Rd_stderr" not in plain.keys()
    with pytest.raises(ValueError) as e:
        plain.stderr("Rd")
    assert "results 0, 1 of 2 have no standard errors" in str(e.value)
    assert "stderr=True" in str(e.value)


def test_sets_mci_and_checkpoint(tmp_path):
    sets = tmcml.run(LAYERS, **COMMON, mua_sets=[[0.5, 1.0], [5.0, 1.0], [0.5, 10.0]],
                     stderr=True)
    assert [r.stderr_groups for r in sets] == [64, 64, 64]
    assert sets.stderr("Tt_r").shape == (3, GRID["nr"])
    mci = tmp_path / "in.mci"
    tmcml.save_mci(mci, layers=LAYERS, photons=COMMON["photons"], **GRID)
    run_opts = {k: v for k, v in COMMON.items() if k not in GRID}
    [from_mci] = tmcml.run_mci(mci, **run_opts, stderr=True)
    whole = tmcml.run(LAYERS, **COMMON, stderr=True)
    kept = tmcml.run(LAYERS, **COMMON, stderr=True, checkpoint=tmp_path / "run.ckpt")
    for r in (from_mci, kept):
        assert r.tallies_digest == whole.tallies_digest
        for name in TOTALS + tuple(base_arrays(whole)):
            np.testing.assert_array_equal(r.stderr(name), whole.stderr(name), err_msg=name)


# ---- the figure: a band around R_d(r) and A(z) -----------------------------------------

def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_plot_draws_a_band(tmp_path):
    """The results are bit for bit equal, so the figures differ by the band
    (and the note saying so) alone: tests/test_plot.c checks its pixels
    against the documented geometry."""
    plain = tmcml.run(LAYERS, **COMMON)
    r = tmcml.run(LAYERS, **COMMON, stderr=True)
    with_band = r.plot(tmp_path / "fig.png", name="x").data
    without = plain.plot(tmp_path / "fig.png", name="x").data
    again = tmcml.run(LAYERS, **COMMON).plot(tmp_path / "fig.png", name="x").data
    assert without == again  # deterministic: a difference is the band's
    assert with_band != without
    # as wide; taller by the note line under the map that names the band
    (w1, h1), (w0, h0) = png_size(with_band), png_size(without)
    assert w1 == w0 and h0 < h1 <= h0 + 40
