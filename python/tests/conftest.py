"""The Python package's tests (run by ctest: python/CMakeLists.txt).
TMCML_LIBRARY names the library under test and TMCML_CLI the run command;
without them, the build tree of this checkout."""

import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

# MCML's three-layer example (examples/mcml_example.mci), on its grid.
EXAMPLE = dict(layers=[[1.37, 1.0, 100.0, 0.90, 0.1], [1.37, 1.0, 10.0, 0.0, 0.1],
                       [1.37, 2.0, 10.0, 0.70, 0.2]],
               n_above=1.0, n_below=1.0, dz=0.01, dr=0.01, nz=40, nr=50, na=1)


def batch_alone_mci(tmp_path, **keywords):
    """The example with keywords three ways, 1000 photons of seed 5 on the CPU
    engine: run_batch of it twice (a BatchResult), tmcml.run of it alone,
    and run_mci of its .mci (its one Result)."""
    import tmcml
    grid = {k: EXAMPLE[k] for k in ("dz", "dr", "nz", "nr", "na")}
    run = dict(photons=1000, engine="cpu", seed=5, progress=False)
    batch = tmcml.run_batch(layers=[EXAMPLE["layers"]] * 2, **run, **grid, **keywords)
    alone = tmcml.run(**dict(EXAMPLE, **run, **keywords))
    tmcml.save_mci(tmp_path / "a.mci", layers=EXAMPLE["layers"], photons=1000, **grid)
    (mci,) = tmcml.run_mci(tmp_path / "a.mci", engine="cpu", seed=5, progress=False, **keywords)
    return batch, alone, mci


@pytest.fixture
def cli():
    path = os.environ.get("TMCML_CLI") or os.path.join(ROOT, "build", "tmcml")
    if not os.path.exists(path):
        pytest.fail("the run command is not built: %s (set TMCML_CLI)" % path)
    return path


@pytest.fixture
def reference_dir():
    return os.path.join(ROOT, "tests", "data", "reference")


@pytest.fixture
def root():
    return ROOT
