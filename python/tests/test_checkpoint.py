"""A run kept in a checkpoint file (tmcml.run(checkpoint=...), docs/library.md
"Checkpoints"): Ctrl-C keeps the photons done in the file; resume=True
continues to the uninterrupted run's tallies bit for bit and removes the
file; another run's file is refused and kept; bad arguments are named."""

import os
import signal
import threading

import numpy as np
import pytest

import tmcml

# Long-lived photons: a run of PHOTONS takes a second or more on two threads.
SLAB = dict(layers=[[1.4, 0.02, 150.0, 0.9, 1.0]], nz=20, nr=20, na=4)
PHOTONS = 60000
COMMON = dict(photons=PHOTONS, seed=7, engine="cpu", threads=2, progress=False)


def interrupted(path, resume):
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        tmcml.run(**SLAB, **COMMON, checkpoint=path, resume=resume)
    timer.join()
    assert os.path.exists(path)


def test_interrupted_and_resumed(tmp_path):
    whole = tmcml.run(**SLAB, **COMMON)
    path = str(tmp_path / "slab.ckpt")
    interrupted(path, resume=False)
    interrupted(path, resume=True)
    kept = open(path, "rb").read()
    with pytest.raises(OSError, match="seed"):
        tmcml.run(**SLAB, **dict(COMMON, seed=8), checkpoint=path, resume=True)
    assert open(path, "rb").read() == kept
    with pytest.raises(OSError, match="a checkpoint is there"):
        tmcml.run(**SLAB, **COMMON, checkpoint=path)
    r = tmcml.run(**SLAB, **COMMON, checkpoint=tmp_path / "slab.ckpt", resume=True)
    assert not os.path.exists(path)
    assert r.tallies_digest == whole.tallies_digest
    assert np.array_equal(r.Rd_r, whole.Rd_r) and r.Rd == whole.Rd


def test_arguments(tmp_path):
    with pytest.raises(ValueError, match="checkpoint: expected a file name"):
        tmcml.run(**SLAB, **COMMON, checkpoint="")
    with pytest.raises(ValueError, match="checkpoint_every"):
        tmcml.run(**SLAB, **COMMON, checkpoint=str(tmp_path / "a"), checkpoint_every=-1)
    with pytest.raises(ValueError, match="resume"):
        tmcml.run(**SLAB, **COMMON, checkpoint=str(tmp_path / "a"), resume="yes")
    with pytest.raises(ValueError, match="mua_sets"):
        tmcml.run(**SLAB, **COMMON, checkpoint=str(tmp_path / "a"), mua_sets=[[0.1], [0.2]])
