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
