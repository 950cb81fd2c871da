"""The ctypes bindings of libtmcml (api/tmcml.h), and the one place
that turns its status codes into Python exceptions.

The library is looked for as _find.py says: $TMCML_LIBRARY; beside this
module (an installed package carries it); the installed prefix; the build
trees of a source checkout - a sanitizer build never but by $TMCML_LIBRARY."""

import ctypes
import os

from ctypes import (CFUNCTYPE, POINTER, Structure, c_char, c_char_p, c_double, c_int,
                    c_int64, c_size_t, c_uint32, c_uint64, c_void_p)

from . import _find

# tmcml_status
OK, ERR_ARGUMENT, ERR_FILE, ERR_MEMORY, ERR_NO_GPU, ERR_ENGINE, ERR_CANCELLED, ERR_STATE = range(8)
ENGINES = {"auto": 0, "cpu": 1, "gpu": 2}
POLICIES = {"profile": 0, "heuristic": 1, "auto": 2, "tune": 3}
KERNEL_ORIGINS = (None, "compiled", "cached", "warm")
ABI_VERSION = 1


class TmcmlError(RuntimeError):
    """A failure of the library; .status is its tmcml_status."""

    def __init__(self, message, status=ERR_ENGINE):
        super().__init__(message)
        self.status = status


class TmcmlArgumentError(TmcmlError, ValueError):
    """A bad parameter (the message names it)."""


class TmcmlFileError(TmcmlError, OSError):
    """A file that could not be read, parsed or written ("file:line: what")."""


class NoGPUError(TmcmlError):
    """The GPU engine was asked for and none can be used."""


class CancelledError(TmcmlError):
    """The run was cancelled (by tmcml_session_cancel from elsewhere)."""


class PrecisionWarning(UserWarning):
    """A run that stopped at max_photons short of its precision
    (precision=...): its result is valid, but less precise than asked."""


class LowEffectiveSampleSizeWarning(UserWarning):
    """An optics set (tmcml.run(..., optics_sets=...)) whose effective
    sample size is below LOW_ESS: its values and standard errors rest on a
    few heavy histories."""


# The most sets of one run, absorption or optics sets (tmcml.h's
# TMCML_MUA_SETS_MAX).
SETS_MAX = 256
# Below this effective sample size an optics set is flagged (tmcml.h's
# TMCML_LOW_ESS; a macro, so not in the library's symbols).
LOW_ESS = 0.1


_ERRORS = {ERR_ARGUMENT: TmcmlArgumentError, ERR_FILE: TmcmlFileError, ERR_NO_GPU: NoGPUError,
           ERR_CANCELLED: CancelledError}


class Layer(Structure):
    _fields_ = [("n", c_double), ("mua", c_double), ("mus", c_double), ("g", c_double),
                ("d", c_double)]


class Grid(Structure):
    _fields_ = [("dz", c_double), ("dr", c_double), ("nz", c_int), ("nr", c_int), ("na", c_int)]


PROGRESS_FN = CFUNCTYPE(c_int, c_uint64, c_uint64, c_void_p)


class Checkpoint(ctypes.Structure):
    """tmcml_checkpoint: a long run kept in a checkpoint file."""
    _fields_ = [("path", c_char_p), ("every", c_double), ("resume", c_int)]


class LutSpec(Structure):
    """tmcml_lut_spec: a lookup table's layer, axes, rings and strategy."""
    _fields_ = [("n", c_double), ("n_above", c_double), ("n_below", c_double), ("g", c_double),
                ("d", c_double), ("mua", POINTER(c_double)), ("num_mua", c_int),
                ("musp", POINTER(c_double)), ("num_musp", c_int), ("nr", c_int),
                ("dr", c_double), ("strategy", c_int)]


class LutInfo(Structure):
    """tmcml_lut_info: what a table call did."""
    _fields_ = [("strategy", c_int), ("engine", c_char * 8), ("rsp", c_double),
                ("trapped_photons", c_uint64), ("simulations", c_int), ("done", c_int),
                ("resumed", c_int), ("kept", c_int), ("points_done", c_int64)]


class LutErrors(Structure):
    """tmcml_lut_errors: a table's standard errors and precision (TMCML_1.4)."""
    _fields_ = [("precision", c_double), ("of", c_char_p), ("max_photons", c_int64),
                ("rd_stderr", POINTER(c_double)), ("rd_r_stderr", POINTER(c_double)),
                ("photons", POINTER(c_int64)), ("reached", POINTER(c_double)),
                ("points_short", c_int64), ("photons_total", c_uint64)]


class LutFrequencies(Structure):
    """tmcml_lut_frequencies: a table's spatial frequencies and R(fx) (TMCML_1.6)."""
    _fields_ = [("fx", POINTER(c_double)), ("count", c_int), ("rd_fx", POINTER(c_double)),
                ("rd_fx_stderr", POINTER(c_double))]


class Options(Structure):
    _fields_ = [("photons", c_int64), ("seed", c_uint64), ("engine", c_int),
                ("absorption", c_int), ("threads", c_int), ("gpu", c_int), ("policy", c_int),
                ("cache_dir", c_char_p), ("profile_dir", c_char_p), ("max_steps", c_uint32),
                ("progress", PROGRESS_FN), ("progress_user", c_void_p),
                ("progress_interval", c_double)]


class Info(Structure):
    _fields_ = [("photons", c_uint64), ("seed", c_uint64), ("absorption", c_int),
                ("has_tallies", c_int), ("engine", c_char_p), ("threads", c_int),
                ("device", c_char_p), ("variant", c_char_p), ("kernel", c_char_p),
                ("kernel_origin", c_int), ("wall_seconds", c_double),
                ("plan_seconds", c_double), ("compile_seconds", c_double),
                ("kernel_seconds", c_double), ("overhead_seconds", c_double),
                ("steps", c_double), ("trapped_photons", c_uint64),
                ("trapped_weight", c_double), ("tallies_digest", c_uint64),
                ("comment", c_char_p)]


class Beam(ctypes.Structure):
    """tmcml_beam: kind (TMCML_BEAM_GAUSSIAN 1, _FLAT 2), radius in cm."""
    _fields_ = [("kind", c_int), ("radius", c_double)]


class Precision(Structure):
    _fields_ = [("asked", c_double), ("reached", c_double), ("photons", c_int64),
                ("max_photons", c_int64), ("met", c_int)]


class Rat(Structure):
    _fields_ = [("rsp", c_double), ("rd", c_double), ("a", c_double), ("tt", c_double)]


class Device(Structure):
    _fields_ = [("index", c_int), ("name", c_char * 256), ("cc_major", c_int),
                ("cc_minor", c_int), ("sm_count", c_int), ("total_memory", c_uint64),
                ("free_memory", c_uint64), ("driver_version", c_int)]


class SessionStats(Structure):
    _fields_ = [("runs", c_uint64), ("gpu_runs", c_uint64), ("compiles", c_uint64),
                ("module_loads", c_uint64), ("plans", c_uint64)]


def _declare(lib):
    sig = {
        "tmcml_version": (c_char_p, []),
        "tmcml_status_name": (c_char_p, [c_int]),
        "tmcml_session_new": (c_void_p, []),
        "tmcml_session_delete": (None, [c_void_p]),
        "tmcml_session_message": (c_char_p, [c_void_p]),
        "tmcml_session_status": (c_int, [c_void_p]),
        "tmcml_session_cancel": (None, [c_void_p]),
        "tmcml_session_stats_get": (None, [c_void_p, POINTER(SessionStats)]),
        "tmcml_devices": (c_int, [c_void_p, POINTER(Device), c_int, POINTER(c_int)]),
        "tmcml_problem_new": (c_int, [c_void_p, POINTER(Layer), c_int, c_double, c_double,
                                      POINTER(Grid), POINTER(c_void_p)]),
        "tmcml_mci_read": (c_int, [c_void_p, c_char_p, POINTER(POINTER(c_void_p)),
                                   POINTER(c_int)]),
        "tmcml_mci_write": (c_int, [c_void_p, c_char_p, POINTER(c_void_p), c_int]),
        "tmcml_problem_delete": (None, [c_void_p]),
        "tmcml_problems_delete": (None, [POINTER(c_void_p), c_int]),
        "tmcml_problem_set_photons": (c_int, [c_void_p, c_void_p, c_int64]),
        "tmcml_problem_set_name": (c_int, [c_void_p, c_void_p, c_char_p]),
        "tmcml_problem_num_layers": (c_int, [c_void_p]),
        "tmcml_problem_layer": (c_int, [c_void_p, c_int, POINTER(Layer)]),
        "tmcml_problem_grid": (None, [c_void_p, POINTER(Grid)]),
        "tmcml_problem_photons": (c_int64, [c_void_p]),
        "tmcml_problem_name": (c_char_p, [c_void_p]),
        "tmcml_problem_set_path_lengths": (c_int, [c_void_p, c_void_p, c_int]),
        "tmcml_problem_set_source": (c_int, [c_void_p, c_void_p, c_int, c_double, c_double]),
        "tmcml_problem_source": (c_int, [c_void_p, POINTER(c_double), POINTER(c_double)]),
        "tmcml_problem_set_time_bins": (c_int, [c_void_p, c_void_p, c_double, c_int]),
        "tmcml_problem_time_bins": (c_int, [c_void_p, POINTER(c_double)]),
        "tmcml_problem_set_fiber_detector": (c_int, [c_void_p, c_void_p, c_double, c_double,
                                                     c_double]),
        "tmcml_problem_set_spatial_frequencies": (c_int, [c_void_p, c_void_p, POINTER(c_double),
                                                          c_int]),
        "tmcml_problem_spatial_frequencies": (c_int, [c_void_p, POINTER(c_double), c_int]),
        "tmcml_problem_set_modulation": (c_int, [c_void_p, c_void_p, POINTER(c_double), c_int]),
        "tmcml_problem_modulation": (c_int, [c_void_p, POINTER(c_double), c_int]),
        "tmcml_problem_set_xy": (c_int, [c_void_p, c_void_p, c_double, c_int]),
        "tmcml_problem_xy": (c_int, [c_void_p, POINTER(c_double)]),
        "tmcml_problem_fiber_detector": (c_int, [c_void_p, POINTER(c_double), POINTER(c_double),
                                                 POINTER(c_double)]),
        "tmcml_problem_add_fiber_detector": (c_int, [c_void_p, c_void_p, c_double, c_double,
                                                     c_double]),
        "tmcml_problem_fiber_detector_at": (c_int, [c_void_p, c_int, POINTER(c_double),
                                                    POINTER(c_double), POINTER(c_double)]),
        "tmcml_problem_set_jacobian": (c_int, [c_void_p, c_void_p, c_int]),
        "tmcml_problem_jacobian": (c_int, [c_void_p]),
        "tmcml_problem_set_stderr": (c_int, [c_void_p, c_void_p, c_int]),
        "tmcml_problem_stderr": (c_int, [c_void_p]),
        "tmcml_options_init": (None, [POINTER(Options)]),
        "tmcml_run": (c_int, [c_void_p, c_void_p, POINTER(Options), POINTER(c_void_p)]),
        "tmcml_run_batch": (c_int, [c_void_p, POINTER(c_void_p), c_int, POINTER(Options),
                                    POINTER(c_void_p)]),
        "tmcml_run_sets": (c_int, [c_void_p, c_void_p, POINTER(c_double), c_int,
                                   POINTER(Options), POINTER(c_void_p)]),
        "tmcml_run_optics_sets": (c_int, [c_void_p, c_void_p, POINTER(c_double), c_int,
                                          POINTER(Options), POINTER(c_void_p)]),
        "tmcml_result_ess": (c_int, [c_void_p, POINTER(c_double)]),
        "tmcml_run_checkpointed": (c_int, [c_void_p, c_void_p, POINTER(Options),
                                           POINTER(Checkpoint), POINTER(c_void_p)]),
        "tmcml_lut_spec_init": (None, [POINTER(LutSpec)]),
        "tmcml_lut": (c_int, [c_void_p, POINTER(LutSpec), POINTER(Options), POINTER(Checkpoint),
                              POINTER(c_double), POINTER(c_double), POINTER(LutInfo)]),
        "tmcml_lut_with_errors": (c_int, [c_void_p, POINTER(LutSpec), POINTER(Options),
                                          POINTER(Checkpoint), POINTER(c_double),
                                          POINTER(c_double), POINTER(LutErrors),
                                          POINTER(LutInfo)]),
        "tmcml_lut_with_frequencies": (c_int, [c_void_p, POINTER(LutSpec), POINTER(Options),
                                               POINTER(Checkpoint), POINTER(c_double),
                                               POINTER(c_double), POINTER(LutErrors),
                                               POINTER(LutFrequencies), POINTER(LutInfo)]),
        "tmcml_result_delete": (None, [c_void_p]),
        "tmcml_result_problem": (c_void_p, [c_void_p]),
        "tmcml_result_rat": (None, [c_void_p, POINTER(Rat)]),
        "tmcml_result_array": (POINTER(c_double), [c_void_p, c_int, POINTER(c_size_t)]),
        "tmcml_result_tallies": (c_int, [c_void_p, c_void_p, c_int, POINTER(c_uint64),
                                         POINTER(c_uint64), c_size_t]),
        "tmcml_result_info": (None, [c_void_p, POINTER(Info)]),
        "tmcml_result_stderr_groups": (c_int, [c_void_p]),
        "tmcml_result_stderr": (POINTER(c_double), [c_void_p, c_int, POINTER(c_size_t)]),
        "tmcml_result_rat_stderr": (c_int, [c_void_p, POINTER(Rat)]),
        "tmcml_problem_set_precision": (c_int, [c_void_p, c_void_p, c_double, c_char_p, c_int64]),
        "tmcml_result_precision": (c_int, [c_void_p, POINTER(Precision)]),
        "tmcml_array_count": (c_int, []),
        "tmcml_array_name": (c_char_p, [c_int]),
        "tmcml_array_unit": (c_char_p, [c_int]),
        "tmcml_array_dims": (c_int, [c_int, POINTER(c_int)]),
        "tmcml_array_has_tallies": (c_int, [c_int]),
        "tmcml_array_absorption": (c_int, [c_int]),
        "tmcml_array_path_lengths": (c_int, [c_int]),
        "tmcml_array_option": (c_int, [c_int]),
        "tmcml_result_array_shape": (c_int, [c_void_p, c_int, POINTER(c_size_t)]),
        "tmcml_result_write_mco": (c_int, [c_void_p, c_void_p, c_char_p]),
        "tmcml_result_read_mco": (c_int, [c_void_p, c_char_p, POINTER(c_void_p)]),
        "tmcml_result_plot": (c_int, [c_void_p, c_void_p, c_char_p, c_char_p]),
        "tmcml_result_convolve": (c_int, [c_void_p, c_void_p, POINTER(Beam), POINTER(c_void_p)]),
    }
    for name, (restype, argtypes) in sig.items():
        fn = getattr(lib, name, None)
        if fn is None and name in _OPTIONAL:
            setattr(lib, name, None)
            continue
        if fn is None:
            raise AttributeError("%s is missing (an older library)" % name)
        fn.restype = restype
        fn.argtypes = argtypes
    return lib


# Functions the package does without, in a library older than them (their
# callers say what is missing): the version string, the figure, the
# convolution with a broad beam, a run kept in a checkpoint file, a lookup
# table, standard errors and precision runs (TMCML_1.4), the derivatives
# and the optics sets (TMCML_1.5), several fiber detectors, the spatial
# frequencies and a table of them, the modulation frequencies and the
# Cartesian grid (TMCML_1.6).
_OPTIONAL = ("tmcml_version", "tmcml_result_plot", "tmcml_result_convolve",
             "tmcml_run_checkpointed", "tmcml_lut_spec_init", "tmcml_lut",
             "tmcml_problem_set_stderr", "tmcml_problem_stderr", "tmcml_result_stderr_groups",
             "tmcml_result_stderr", "tmcml_result_rat_stderr", "tmcml_problem_set_precision",
             "tmcml_result_precision", "tmcml_lut_with_errors", "tmcml_problem_set_jacobian",
             "tmcml_problem_jacobian", "tmcml_run_optics_sets", "tmcml_result_ess",
             "tmcml_problem_add_fiber_detector", "tmcml_problem_fiber_detector_at",
             "tmcml_problem_set_spatial_frequencies", "tmcml_problem_spatial_frequencies",
             "tmcml_lut_with_frequencies", "tmcml_problem_set_modulation",
             "tmcml_problem_modulation", "tmcml_problem_set_xy", "tmcml_problem_xy")


def _load():
    tried = []
    for path, skipped in _find.candidates():
        if skipped:
            tried.append("%s (%s)" % (path, skipped))
            continue
        try:
            return _declare(ctypes.CDLL(path)), path
        except (OSError, AttributeError) as e:  # AttributeError: an older library
            tried.append("%s (%s)" % (path, e))
    raise ImportError(
        "tmcml: no usable libtmcml.so%s; build it (cmake -S . -B build && cmake --build build), "
        "install the package with it (docs/library.md) or set TMCML_LIBRARY to its path"
        % (": tried " + "; ".join(tried) if tried else ""))


lib, path = _load()


def version():
    """The library's version (tmcml_version), else the one recorded when the
    package was installed, else None."""
    if lib.tmcml_version:
        return lib.tmcml_version().decode()
    try:
        from ._installed import VERSION
    except ImportError:
        return None
    return VERSION

# The output arrays as the library's table has them (tmcml_array: a name's
# index is its constant): Result and BatchResult have an attribute of each.
ARRAYS = tuple(lib.tmcml_array_name(i).decode() for i in range(lib.tmcml_array_count()))
# Those whose integer tallies tmcml_result_tallies gives (Result.tallies).
TALLIED = tuple(name for i, name in enumerate(ARRAYS) if lib.tmcml_array_has_tallies(i))
# The optional ones, there only in runs with path_lengths=True (None otherwise).
PATH_ARRAYS = tuple(name for i, name in enumerate(ARRAYS) if lib.tmcml_array_path_lengths(i))
# Those of time-resolved runs (time_bins=) and of a detector (detector=).
TIME_ARRAYS = tuple(name for i, name in enumerate(ARRAYS) if lib.tmcml_array_option(i) == 2)
DETECTOR_ARRAYS = tuple(name for i, name in enumerate(ARRAYS) if lib.tmcml_array_option(i) == 3)
# The Jacobians of the escapes (jacobian=True): NAME_jacobian, the shape of
# NAME then the layers, then 3 (mua, mus, g; tmcml.h's TMCML_AXIS_PARAM);
# those of an optional NAME (Rd_t, Rd_fiber, ...) only where NAME is.
JACOBIAN_ARRAYS = tuple(name for i, name in enumerate(ARRAYS) if lib.tmcml_array_option(i) == 4)
# The entries of a Jacobian's last axis, in the library's order.
JACOBIAN_PARAMS = ("mua", "mus", "g")
# R(fx) and T(fx), of runs with spatial frequencies (spatial_frequencies=).
FX_ARRAYS = tuple(name for i, name in enumerate(ARRAYS) if lib.tmcml_array_option(i) == 6)
# The reflectance in the frequency domain, of runs with modulation
# frequencies (modulation=): amplitude and phase lag.
MOD_ARRAYS = tuple(name for i, name in enumerate(ARRAYS) if lib.tmcml_array_option(i) == 7)
# The Cartesian grid (xy=): Rd_xy, Tt_xy [x, y] and A_xz [x, z].
XY_ARRAYS = tuple(name for i, name in enumerate(ARRAYS) if lib.tmcml_array_option(i) == 8)
# Every optional array: there only in runs that ask for its group.
OPTIONAL_ARRAYS = tuple(name for i, name in enumerate(ARRAYS) if lib.tmcml_array_option(i) > 0)
# Room for any array's dimensions (tmcml.h's TMCML_ARRAY_MAX_DIMS).
ARRAY_MAX_DIMS = 4


def error(session, status, context=""):
    """The exception of a failed call on session (a raw handle, still open:
    the message lives in it), or None when status is OK."""
    if status == OK:
        return None
    message = context + lib.tmcml_session_message(session).decode("utf-8", "replace")
    if status == ERR_MEMORY:
        return MemoryError(message)
    return _ERRORS.get(status, TmcmlError)(message, status)


def check(session, status):
    """Raises the exception of a failed call on session (a raw handle)."""
    e = error(session, status)
    if e is not None:
        raise e


def text(value):
    """A C string (bytes or None) as str."""
    return value.decode("utf-8", "replace") if value else ""


def encode_path(path):
    """path (str, bytes or os.PathLike) as the bytes of a C string; a NUL
    inside would cut it short there, so it is refused as open() refuses it."""
    data = os.fsencode(os.fspath(path))
    if b"\0" in data:
        raise ValueError("embedded null byte")
    return data
