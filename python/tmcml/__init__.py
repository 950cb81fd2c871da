"""tmcml: Monte Carlo simulation of light in layered tissue (MCML 1.2.2
semantics) from Python, over libtmcml (ctypes) and numpy.

    import tmcml
    res = tmcml.run(layers=[[1.37, 1.0, 100.0, 0.9, 0.1]], photons=10**5,
                    dz=0.01, dr=0.01, nz=40, nr=50, na=1)
    print(res.Rd, res.A_rz.shape)
    res.save_mco("example.mco")
    t = tmcml.lut(mua=[0.1, 1, 10], musp=[5, 10, 20], photons=10**5)  # docs/lut.md
    mua = tmcml.chromophores.mua([650, 800], blood=0.02, sto2=0.7)  # docs/chromophores.md
    f = tmcml.fit(data, r, layers, free=[("mua", 0), ("musp", 0)], sigma=s)  # docs/fit.md

Units are MCML's: cm and 1/cm.  docs/library.md has the whole interface."""

import sys

try:
    import numpy  # noqa: F401 (every result is numpy arrays)
except ImportError:
    raise ImportError(
        "tmcml needs numpy, which this Python (%s) lacks: install it (Debian: apt-get install "
        "python3-numpy, then use /usr/bin/python3 or a venv made with --system-site-packages; "
        "pip: pip install numpy; conda: conda install numpy)" % sys.executable
    ) from None

from ._lib import (ARRAYS, DETECTOR_ARRAYS, FX_ARRAYS, JACOBIAN_ARRAYS, JACOBIAN_PARAMS,
                   LOW_ESS, MOD_ARRAYS, PATH_ARRAYS, TALLIED, TIME_ARRAYS, XY_ARRAYS,
                   CancelledError,
                   LowEffectiveSampleSizeWarning, NoGPUError, PrecisionWarning,
                   TmcmlArgumentError, TmcmlError, TmcmlFileError, path as library_path,
                   version as _version)
from . import chromophores  # absorption spectra of tissue (docs/chromophores.md)
from .api import devices, run
from .batch import BatchResult, run_batch
from .beam import FlatBeam, GaussianBeam
from .detector import FiberDetector
from .fit import FitWarning, fit
from .fit_result import FitResult
from .lut import LookupTable, lut
from .mci import run_mci, save_mci
from .mco import load_mco
from .result import Result
from .source import FiberSource, IsotropicPoint, ObliqueBeam
from .spectrum import Spectrum, spectrum
from .session import Session, default_session

# The library's version (tmcml_version), else the package's as installed.
__version__ = _version()

__all__ = ["run", "run_batch", "BatchResult", "run_mci", "load_mco", "save_mci", "devices", "Result", "Session",
           "lut", "LookupTable", "chromophores", "fit", "FitResult", "FitWarning", "spectrum",
           "Spectrum",
           "GaussianBeam", "FlatBeam", "IsotropicPoint", "FiberSource", "ObliqueBeam", "FiberDetector",
           "ARRAYS", "PATH_ARRAYS", "TIME_ARRAYS", "DETECTOR_ARRAYS", "JACOBIAN_ARRAYS",
           "FX_ARRAYS", "MOD_ARRAYS", "XY_ARRAYS",
           "JACOBIAN_PARAMS", "TALLIED", "LOW_ESS",
           "default_session", "TmcmlError", "TmcmlArgumentError", "TmcmlFileError",
           "NoGPUError", "CancelledError", "PrecisionWarning", "LowEffectiveSampleSizeWarning",
           "library_path"]
