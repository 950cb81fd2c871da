"""Runs that stop at a precision in Python (precision=, precision_of=,
max_photons=; docs/library.md, "Runs that stop at a precision"): the
photons taken and Result.precision; the result bit for bit that of a
plain run of those photons' groups (a run with its errors and the same
photons), run_batch and run_mci each stopping on its own as alone, a
checkpointed run; a capped run's tmcml.PrecisionWarning naming the quantity,
reached and asked; every bad value a ValueError naming its argument."""

import warnings

import numpy as np
import pytest

import tmcml

GRID = dict(dz=0.02, dr=0.02, nz=10, nr=8, na=3)
LAYERS = [[1.4, 0.5, 60.0, 0.8, 0.05], [1.37, 1.0, 30.0, 0.9, 0.1]]
COMMON = dict(seed=11, engine="cpu", threads=2, progress=False, **GRID)
KEYS = ("asked", "reached", "photons", "max_photons", "met")


def same(a, b):
    assert a.precision == b.precision and a.photons == b.photons
    assert a.tallies_digest == b.tallies_digest
    for name in ("Rd", "A", "Tt") + tuple(x for x in tmcml.ARRAYS if getattr(a, x) is not None):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
        np.testing.assert_array_equal(a.stderr(name), b.stderr(name), err_msg=name)


def test_met():
    with warnings.catch_warnings():
        warnings.simplefilter("error", tmcml.PrecisionWarning)
        r = tmcml.run(LAYERS, photons=4 * 10**6, precision=0.005, **COMMON)
    p = r.precision
    assert sorted(p) == sorted(KEYS)
    assert p["met"] is True and p["asked"] == 0.005 and p["reached"] <= 0.005
    assert p["max_photons"] == 4 * 10**6 and 64000 <= p["photons"] < p["max_photons"]
    assert r.photons == p["photons"] and r.stderr_groups > 64  # implied, growing groups
    assert abs(p["reached"] - r.stderr("Rd") / r.Rd) <= 1e-12 * p["reached"]
    # max_photons instead of photons: the same run.
    same(tmcml.run(LAYERS, photons=1000, max_photons=4 * 10**6, precision=0.005, **COMMON), r)
    # A quantity of its own: the worst entry of a range of Rd_r.
    q = tmcml.run(LAYERS, photons=4 * 10**6, precision=0.05, precision_of="Rd_r[0:4]", **COMMON)
    worst = max(q.stderr("Rd_r")[:4] / q.Rd_r[:4])
    assert q.precision["met"] and abs(q.precision["reached"] - worst) <= 1e-12 * worst
    assert tmcml.run(LAYERS, photons=8000, **COMMON).precision is None


def test_capped_warns():
    with pytest.warns(tmcml.PrecisionWarning) as caught:
        r = tmcml.run(LAYERS, photons=64000, precision=0.0005, precision_of="A", **COMMON)
    assert issubclass(tmcml.PrecisionWarning, UserWarning)
    text = str(caught[0].message)
    p = r.precision
    assert p["met"] is False and p["photons"] == 64000 == r.photons and p["reached"] > 0.0005
    assert "A's" in text and "%.3g %%" % (100 * p["reached"]) in text and "0.05 %" in text


def test_batch_and_mci_each_as_alone(tmp_path):
    rows = [[[1.4, mua, 60.0, 0.8, 0.05], LAYERS[1]] for mua in (0.1, 1.0, 5.0)]
    kw = dict(photons=4 * 10**6, precision=0.005, **COMMON)
    b = tmcml.run_batch(rows, **kw)
    alone = [tmcml.run(layers, **kw) for layers in rows]
    for r, a in zip(b.results, alone):
        assert r.precision["met"]
        same(r, a)
    assert alone[0].photons != alone[2].photons
    path = tmp_path / "three.mci"
    tmcml.save_mci(str(path), runs=[dict(layers=layers, photons=1000, out_name="r%d.mco" % i,
                                         **GRID) for i, layers in enumerate(rows)])
    runs = tmcml.run_mci(str(path), photons=4 * 10**6, seed=11, engine="cpu", threads=2,
                         progress=False, precision=0.005)
    for r, a in zip(runs, alone):
        same(r, a)


def test_checkpointed(tmp_path):
    kw = dict(photons=4 * 10**6, precision=0.005, **COMMON)
    r = tmcml.run(LAYERS, checkpoint=str(tmp_path / "run.ckpt"), **kw)
    same(r, tmcml.run(LAYERS, **kw))
    assert not (tmp_path / "run.ckpt").exists()


@pytest.mark.parametrize("kwargs, name", [
    (dict(precision=-0.1), "precision"),
    (dict(precision=1.0), "precision"),
    (dict(precision=float("nan")), "precision"),
    (dict(precision=True), "precision"),
    (dict(precision="1%"), "precision"),
    (dict(precision=0.01, precision_of="Rq"), "precision_of"),
    (dict(precision=0.01, precision_of="Rd_r[8]"), "precision_of"),
    (dict(precision=0.01, precision_of=3), "precision_of"),
    (dict(precision=0.01, max_photons=63999), "max_photons"),
    (dict(precision=0.01, max_photons=1e6), "max_photons"),
    (dict(precision_of="Rd"), "precision_of"),
    (dict(max_photons=10**6), "max_photons"),
])
def test_bad_values(kwargs, name):
    with pytest.raises(ValueError, match="^" + name + "[ :]"):
        tmcml.run(LAYERS, photons=10**5, **dict(COMMON, **kwargs))


def test_too_few_photons():
    with pytest.raises(ValueError, match="at least 64000 photons"):
        tmcml.run(LAYERS, photons=1000, precision=0.01, **COMMON)


def test_sets_stop_together():
    """mua_sets share their photons: one decision, when the worst set has
    reached the precision; each set's result that of the sets run of the
    photons taken without a precision."""
    sets = [[0.1, 0.1], [1.0, 1.0], [5.0, 5.0]]
    b = tmcml.run(LAYERS, photons=4 * 10**6, precision=0.005, mua_sets=sets, absorption=False,
                  **COMMON)
    p = [r.precision for r in b.results]
    assert len({x["photons"] for x in p}) == 1 and all(x["met"] for x in p)
    assert max(x["reached"] for x in p) == p[2]["reached"] <= 0.005
    plain = tmcml.run(LAYERS, photons=p[0]["photons"], mua_sets=sets, absorption=False,
                      **COMMON)
    for r, q in zip(b.results, plain.results):
        assert r.tallies_digest == q.tallies_digest and r.Rd == q.Rd
