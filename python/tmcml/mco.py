"""MCML output files read back: MCML 1.2.2's own, CUDAMCML's, tmcml's."""

import ctypes

from . import _lib
from ._lib import lib
from .result import Result
from .session import default_session


def load_mco(path, session=None):
    """The Result of an .mco file (no integer tallies: result.tallies is
    None; seed and engine are None; the comment line is result.comment)."""
    session = session or default_session()
    out = ctypes.c_void_p()
    session.call(lib.tmcml_result_read_mco, _lib.encode_path(path), ctypes.byref(out))
    return Result(out.value, session)
