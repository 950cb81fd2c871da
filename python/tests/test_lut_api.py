"""tmcml.lut (docs/lut.md, "From C and Python"): the table of the library is
`tmcml lut`'s OUT.npz, every member, bit for bit, for both strategies (a
slab and the default semi-infinite layer); Ctrl-C keeps the simulations
done in the checkpoint and resume=True continues to the uninterrupted
table bit for bit, removing the file; another table's checkpoint and one
there without resume are refused and kept; bad arguments are named."""

import math
import os
import signal
import subprocess
import threading
import time

import numpy as np
import pytest

import tmcml

SEED = 13


def command_table(cli, out, mua, musp, photons, strategy, layer=()):
    subprocess.run([cli, "lut", "--mua", ",".join(map(repr, mua)), "--musp",
                    ",".join(map(repr, musp)), *layer, "--nr", "6", "--dr", "0.05", "-N",
                    str(photons), "-S", str(SEED), "--engine", "cpu", "--threads", "2",
                    "--strategy", strategy, "-q", "-o", str(out)], check=True)
    return np.load(str(out) + ".npz", allow_pickle=False)


def same_as_npz(t, npz):
    assert set(npz.files) == set(t.keys())
    for name in npz.files:
        want = npz[name]
        if name == "units":
            assert dict(want) == t.units
        elif want.dtype.kind == "U":
            assert str(want) == t[name], name
        else:
            got = np.asarray(t[name], dtype=want.dtype)
            assert got.shape == want.shape, name
            assert got.tobytes() == want.tobytes(), "%s differs from tmcml lut's" % name


@pytest.mark.parametrize("strategy,layer", [
    ("sets", dict(n=1.37, g=0.8, d=0.5)),
    ("runs", dict(n=1.37, g=0.8, d=0.5)),
    ("auto", dict()),  # the defaults: n 1.4, g 0.9, semi-infinite
])
def test_same_as_command(cli, tmp_path, strategy, layer):
    mua, musp = [0.5, 1.0, 3.0], [5.0, 12.0]
    options = [x for k, v in layer.items() for x in ("--" + k, repr(v))]
    npz = command_table(cli, tmp_path / strategy, mua, musp, 1500, strategy, options)
    t = tmcml.lut(mua, musp, nr=6, dr=0.05, photons=1500, seed=SEED, strategy=strategy,
                  engine="cpu", threads=2, progress=False, **layer)
    same_as_npz(t, npz)
    assert t.strategy == ("runs" if strategy == "runs" else "sets")
    assert t.Rd.shape == (2, 3) and t.Rd_r.shape == (2, 3, 6)
    assert t.rd is t.Rd and t.rd_r is t.Rd_r and t.rsp == t.Rsp
    assert t.d == (1e8 if not layer else 0.5) and t.trapped == 0


# 16 simulations of about 0.1 s each (as tests/test_lut_resume.sh's): the
# 16 mua of the runs, a batch of 4 mus' each.
LONG = dict(mua=list(0.1 * 20.0 ** (np.arange(16) / 15)), musp=[5.0, 10.0, 15.0, 20.0],
            n=1.37, g=0.8, d=0.5, nr=6, dr=0.05, photons=6000, seed=SEED, strategy="runs",
            engine="cpu", threads=2, progress=False)


def interrupted(path, **kw):
    """The table stopped by SIGINT once its file holds a simulation:
    KeyboardInterrupt, the file kept."""
    before = os.path.getmtime(path) if os.path.exists(path) else None

    def watch():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if os.path.exists(path) and os.path.getmtime(path) != before:
                os.kill(os.getpid(), signal.SIGINT)
                return
            time.sleep(0.005)

    watcher = threading.Thread(target=watch)
    watcher.start()
    with pytest.raises(KeyboardInterrupt):
        tmcml.lut(**dict(LONG, **kw), checkpoint=path, checkpoint_every=0.001)
    watcher.join()
    assert os.path.exists(path)


def test_interrupted_and_resumed(tmp_path):
    whole = tmcml.lut(**LONG)
    path = str(tmp_path / "t.lut.ckpt")
    interrupted(path)
    kept = open(path, "rb").read()
    with pytest.raises(OSError, match="made with --seed 13, this one has --seed 14"):
        tmcml.lut(**dict(LONG, seed=SEED + 1), checkpoint=path, resume=True)
    with pytest.raises(OSError, match="a checkpoint of this table exists"):
        tmcml.lut(**LONG, checkpoint=path)
    assert open(path, "rb").read() == kept
    t = tmcml.lut(**LONG, checkpoint=tmp_path / "t.lut.ckpt", resume=True)
    assert not os.path.exists(path)
    assert t.Rd.tobytes() == whole.Rd.tobytes() and t.Rd_r.tobytes() == whole.Rd_r.tobytes()
    # Resumed without a file: the whole table, as without resume.
    again = tmcml.lut(**LONG, checkpoint=path, resume=True)
    assert again.Rd.tobytes() == whole.Rd.tobytes() and not os.path.exists(path)


def test_arguments():
    ok = dict(mua=[0.1, 1], musp=[5, 10], photons=100, engine="cpu", progress=False)
    bad = [
        (dict(strategy="fast"), "strategy: expected 'auto', 'sets' or 'runs'"),
        (dict(mua=[[0.1, 1]]), "mua: expected one value or a 1-D sequence"),
        (dict(mua=["x"]), "mua"),
        (dict(mua=[]), "num_mua: expected 1 to 1000000 values"),
        (dict(mua=[1, 0.1]), r"mua\[1\]: the values must increase"),
        (dict(musp=[-5]), r"musp\[0\]: -5 is no coefficient"),
        (dict(g=1), "g 1: expected -1 to below 1"),
        (dict(d=0), "d 0: expected a thickness above 0 cm, or inf"),
        (dict(n_above=0), "n_above 0: expected a refractive index"),
        (dict(dr=-1), "dr -1: expected a ring width"),
        (dict(nr=0), "nr: expected 1 to"),
        (dict(n="1.4"), "n: expected a number"),
        (dict(photons=1.5), "photons: expected a whole number"),
        (dict(engine="fast"), "engine: expected"),
        (dict(checkpoint=""), "checkpoint: expected a file name"),
        (dict(checkpoint="x.lut.ckpt", checkpoint_every=-1), "checkpoint_every"),
    ]
    for change, message in bad:
        with pytest.raises(ValueError, match=message):
            tmcml.lut(**dict(ok, **change))
    t = tmcml.lut(**ok)  # what was refused left the session working
    assert t.Rd.shape == (2, 2) and math.isfinite(t.Rsp)


def test_precision_same_as_command(cli, tmp_path):
    """A table of one precision (docs/lut.md, "Error bars and a table of one
    precision"): the command's OUT.npz, every member bit for bit, errors and
    photons too; each point reaches the precision, and the points of high
    absorption take more photons than those of low."""
    mua, musp = [0.1, 5.0, 40.0], [4.0, 12.0]
    layer = ["--n", "1.37", "--g", "0.8", "--d", "0.5", "--precision", "1%"]
    npz = command_table(cli, tmp_path / "p", mua, musp, 4000000, "auto", layer)
    t = tmcml.lut(mua, musp, nr=6, dr=0.05, photons=4000000, seed=SEED, engine="cpu",
                  threads=2, progress=False, n=1.37, g=0.8, d=0.5, precision=0.01)
    same_as_npz(t, npz)
    assert t.strategy == "runs" and t.points_short == 0 and t.precision_of == "Rd"
    assert np.all(t.reached <= 0.01)
    assert np.allclose(t.reached, t.Rd_stderr / t.Rd, rtol=1e-12, atol=0)
    assert t.point_photons.min() == 64000 and t.point_photons.max() > 2 * 64000
    assert t.point_photons[:, 2].min() >= t.point_photons[:, 0].max()


def test_stderr_keeps_the_values(cli, tmp_path):
    """stderr=True: the values of the table without it, bit for bit, with
    every point's errors and photons."""
    mua, musp = [0.5, 3.0], [5.0, 12.0]
    plain = tmcml.lut(mua, musp, nr=6, dr=0.05, photons=3000, seed=SEED, engine="cpu",
                      threads=2, progress=False)
    t = tmcml.lut(mua, musp, nr=6, dr=0.05, photons=3000, seed=SEED, engine="cpu", threads=2,
                  progress=False, stderr=True)
    assert t.Rd.tobytes() == plain.Rd.tobytes() and t.Rd_r.tobytes() == plain.Rd_r.tobytes()
    assert np.all(t.point_photons == 3000) and np.all(t.Rd_stderr > 0)
    assert t.Rd_r_stderr.shape == t.Rd_r.shape and "precision" not in t
    assert "Rd_stderr" in t.keys() and t.units["Rd_r_stderr"] == "1/cm2"


def test_precision_short_warns():
    with pytest.warns(tmcml.PrecisionWarning, match="2 of 2 points took their most photons"):
        t = tmcml.lut([0.1, 20.0], [5.0], nr=4, d=0.5, photons=64000, engine="cpu", threads=2,
                      progress=False, precision=0.002)
    assert t.points_short == 2 and np.all(t.point_photons == 64000)


@pytest.mark.parametrize("kwargs,message", [
    (dict(precision=1.5), "precision: expected a relative standard error"),
    (dict(precision=True), "precision: expected a relative standard error"),
    (dict(precision_of="Rd"), "precision_of: only with precision"),
    (dict(max_photons=100000), "max_photons: only with precision"),
    (dict(precision=0.02, max_photons=1000), "max_photons: expected None"),
    (dict(precision=0.02, strategy="sets"), "strategy: SETS with a precision"),
    (dict(precision=0.02, precision_of="Tt"), "precision_of: Rd, an entry of Rd_r"),
    (dict(precision=0.02, photons=1000), "photons: a precision needs at least 64000"),
    (dict(stderr="yes"), "stderr: expected True or False"),
])
def test_errors_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tmcml.lut([0.1, 1.0], [5.0], nr=4, progress=False, engine="cpu",
                  **{"photons": 100000, **kwargs})
