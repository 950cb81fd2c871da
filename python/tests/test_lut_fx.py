"""tmcml.lut(spatial_frequencies=...) (docs/lut.md, "Spatial frequencies: an
SFDI table"): the table is `tmcml lut --spatial-frequencies`'s OUT.npz, every
member bit for bit, for both strategies and with errors; Rd_fx at fx 0 is
Rd, and the other members those of the table without frequencies; a point
is its own run(spatial_frequencies=...); Ctrl-C keeps the table in its
checkpoint and resume=True ends with the uninterrupted R(fx); bad
frequencies are named, and the GPU asked for what it does not score is
refused."""

import subprocess

import numpy as np
import pytest

import tmcml
from test_lut_api import LONG, interrupted, same_as_npz

SEED = 13
FX = [0.0, 0.5, 2.0, 7.0]
MUA, MUSP = [0.5, 1.0, 3.0], [5.0, 12.0]
LAYER = dict(n=1.37, g=0.8, d=0.5, nr=6, dr=0.05)


def command_table(cli, out, strategy, stderr):
    subprocess.run([cli, "lut", "--mua", ",".join(map(repr, MUA)), "--musp",
                    ",".join(map(repr, MUSP)), "--n", "1.37", "--g", "0.8", "--d", "0.5", "--nr",
                    "6", "--dr", "0.05", "-N", "1500", "-S", str(SEED), "--engine", "cpu",
                    "--threads", "2", "--strategy", strategy, "--spatial-frequencies",
                    ",".join(map(repr, FX)), "-q", "-o", str(out)] +
                   (["--stderr"] if stderr else []), check=True)
    return np.load(str(out) + ".npz", allow_pickle=False)


def table(**kw):
    return tmcml.lut(MUA, MUSP, photons=1500, seed=SEED, engine="cpu", threads=2,
                     progress=False, **LAYER, **kw)


@pytest.mark.parametrize("strategy,stderr", [("sets", False), ("runs", False), ("runs", True),
                                             ("sets", True)])
def test_same_as_command(cli, tmp_path, strategy, stderr):
    npz = command_table(cli, tmp_path / strategy, strategy, stderr)
    t = table(strategy=strategy, stderr=stderr, spatial_frequencies=FX)
    same_as_npz(t, npz)
    assert t.Rd_fx.shape == (2, 3, 4) and t.fx.tolist() == FX and t.units["fx"] == "1/cm"
    assert t.Rd_fx[..., 0].tobytes() == t.Rd.tobytes()
    assert ("Rd_fx_stderr" in t) == stderr
    plain = table(strategy=strategy, stderr=stderr)
    for name in plain.keys():
        if name != "units":
            assert np.asarray(t[name]).tobytes() == np.asarray(plain[name]).tobytes(), name


def test_point_is_its_run():
    """Point (mus' 12, mua number 2) of the runs: run() of its layer with
    seed + 2 and the frequencies."""
    t = table(strategy="runs", spatial_frequencies=FX)
    r = tmcml.run(layers=[[1.37, MUA[2], MUSP[1] / (1 - 0.8), 0.8, 0.5]], dz=0.05, dr=0.05, nz=1,
                  nr=6, na=1, photons=1500, seed=SEED + 2, absorption=False, engine="cpu",
                  threads=2, progress=False, spatial_frequencies=FX)
    assert t.Rd_fx[1, 2].tobytes() == np.asarray(r.Rd_fx).tobytes()


def test_interrupted_and_resumed(tmp_path):
    whole = tmcml.lut(**LONG, spatial_frequencies=FX)
    path = str(tmp_path / "t.lut.ckpt")
    interrupted(path, spatial_frequencies=FX)
    with pytest.raises(OSError, match="made with --spatial-frequencies count 4, this one has "
                                      "nothing more"):
        tmcml.lut(**LONG, checkpoint=path, resume=True)
    t = tmcml.lut(**LONG, spatial_frequencies=FX, checkpoint=path, resume=True)
    assert t.Rd_fx.tobytes() == whole.Rd_fx.tobytes() and t.Rd.tobytes() == whole.Rd.tobytes()


@pytest.mark.parametrize("kwargs,message", [
    (dict(spatial_frequencies=[0, -1]), "spatial_frequencies: frequency 2, -1 1/cm, is negative"),
    (dict(spatial_frequencies=[0, float("nan")]), "spatial_frequencies: frequency 2, nan"),
    (dict(spatial_frequencies=list(range(1025))), "spatial_frequencies: 1025 frequencies"),
    (dict(spatial_frequencies=[]), "spatial_frequencies: empty"),
    (dict(spatial_frequencies="0,1"), "spatial_frequencies: expected a sequence"),
    (dict(spatial_frequencies=[[0, 1]]), "spatial_frequencies: expected a sequence"),
    (dict(spatial_frequencies=[0, 1], strategy="sets", engine="gpu"),
     "engine: spatial frequencies with the sets strategy"),
    (dict(spatial_frequencies=list(range(129)), engine="gpu"),
     "engine: spatial frequencies of 129 frequencies"),
])
def test_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        tmcml.lut(**{**dict(mua=[0.1, 1.0], musp=[5.0], nr=4, progress=False, engine="cpu",
                            photons=100), **kwargs})
