"""tmcml.lut: a lookup table of diffuse reflectance, total and per ring, of
one homogeneous layer over a grid of mua and mus' (docs/lut.md), made by the
library (tmcml_lut): the table `tmcml lut` writes, its arrays those of the
command's OUT.npz bit for bit for the same options."""

import ctypes
import math
import numbers
import os
import warnings

import numpy as np

from . import _lib
from .api import checkpoint_of
from ._lib import PrecisionWarning
from .problem import SEMI_INFINITE_D, count, require_real
from .runner import execute_lut, frequencies_array, frequencies_error, options
from .session import default_session

STRATEGIES = ("auto", "sets", "runs")  # tmcml_lut_strategy: the index
# The .npz's members, in its order, and their units (docs/lut.md).
UNITS = (("mua", "1/cm"), ("musp", "1/cm"), ("Rd", "-"), ("Rd_r", "1/cm2"), ("r", "cm"),
         ("dr", "cm"), ("Rsp", "-"), ("n", "-"), ("n_above", "-"), ("n_below", "-"), ("g", "-"),
         ("d", "cm"), ("photons", "-"), ("seed", "-"), ("strategy", "-"), ("engine", "-"),
         ("version", "-"))
MEMBERS = tuple(name for name, _ in UNITS) + ("units",)
# With stderr=True or a precision, the .npz's members of the errors (docs/lut.md,
# "Error bars and a table of one precision").
ERROR_UNITS = (("Rd_stderr", "-"), ("Rd_r_stderr", "1/cm2"), ("point_photons", "-"),
               ("reached", "-"))
PRECISION_UNITS = (("precision", "-"), ("precision_of", "-"))
# With spatial_frequencies, the .npz's members of R(fx) (docs/lut.md, "Spatial
# frequencies: an SFDI table"); Rd_fx_stderr with errors.
FX_UNITS = (("fx", "1/cm"), ("Rd_fx", "-"))
FX_ERROR_UNITS = (("Rd_fx_stderr", "-"),)


class LookupTable:
    """A table of lut(): the members of `tmcml lut`'s OUT.npz as attributes
    of the same names, dtypes' values and shapes - mua (K,), musp (M,), Rd
    (M, K), Rd_r (M, K, nr) in 1/cm2, r (nr,) the rings' centres, dr, Rsp, n,
    n_above, n_below, g, d (1e8 for semi-infinite), photons, seed, strategy
    ('sets' or 'runs'), engine ('cpu' or 'gpu'), version, units (a dict:
    name -> unit, as dict(npz['units'])) - and trapped (photons stopped as
    never ending) and seconds (the call's).  rd, rd_r and rsp are Rd, Rd_r
    and Rsp.  A table with errors (stderr=True or a precision) also has
    Rd_stderr (M, K), Rd_r_stderr (M, K, nr), point_photons (M, K), reached
    (M, K): the relative standard error of precision_of, else of Rd, and
    with a precision, precision, precision_of and points_short (points
    that took max_photons short of it).  A table of spatial frequencies
    has fx (F,) in 1/cm and Rd_fx (M, K, F), R(fx) of each point (Rd_fx[...,
    k] is Rd where fx[k] is 0), and with errors Rd_fx_stderr.  It reads
    like a dict of the .npz's members: t['Rd'], t.keys(), t.to_dict()."""

    def __init__(self, values, trapped, seconds, points_short=0):
        self._members = tuple(name for name in values if name != "units") + ("units",)
        for name in self._members:
            setattr(self, name, values[name])
        self.trapped = trapped
        self.seconds = seconds
        self.points_short = points_short

    rd = property(lambda self: self.Rd)
    rd_r = property(lambda self: self.Rd_r)
    rsp = property(lambda self: self.Rsp)

    def keys(self):
        return self._members

    def __getitem__(self, name):
        if name not in self._members:
            raise KeyError("%r: a LookupTable has %s" % (name, ", ".join(self._members)))
        return getattr(self, name)

    def __contains__(self, name):
        return name in self._members

    def __iter__(self):
        return iter(self._members)

    def __len__(self):
        return len(self._members)

    def to_dict(self):
        return {name: getattr(self, name) for name in self._members}

    def __repr__(self):
        return ("<tmcml.LookupTable %d mus' x %d mua, %d rings, strategy %s, engine %s>"
                % (len(self.musp), len(self.mua), len(self.r), self.strategy, self.engine))


def _axis(name, values):
    """An axis as a C-ordered float64 vector (its values are the library's
    to check: increasing, each 0 or a coefficient)."""
    require_real(name, values)
    try:
        a = np.array(values, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        raise ValueError("%s: expected a sequence of numbers (1/cm)" % name) from None
    if a.ndim > 1:
        raise ValueError("%s: expected one value or a 1-D sequence (got shape %s)"
                         % (name, a.shape))
    return np.ascontiguousarray(a.reshape(-1))


def _real(name, value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise ValueError("%s: expected a number (got %r)" % (name, value))
    return float(value)


def _spec(mua, musp, n, n_above, n_below, g, d, nr, dr, strategy):
    if strategy not in STRATEGIES:
        raise ValueError("strategy: expected 'auto', 'sets' or 'runs' (got %r)" % (strategy,))
    spec = _lib.LutSpec()
    spec.n, spec.n_above, spec.n_below, spec.g, spec.d, spec.dr = (
        _real(k, v) for k, v in (("n", n), ("n_above", n_above), ("n_below", n_below),
                                 ("g", g), ("d", d), ("dr", dr)))
    spec.nr = count("nr", nr)
    as_doubles = ctypes.POINTER(ctypes.c_double)
    spec.mua, spec.num_mua = mua.ctypes.data_as(as_doubles), len(mua)
    spec.musp, spec.num_musp = musp.ctypes.data_as(as_doubles), len(musp)
    spec.strategy = STRATEGIES.index(strategy)
    return spec


def _errors(stderr, precision, precision_of, max_photons, shape):
    """A _lib.LutErrors of the arguments (None when neither stderr nor a
    precision is asked) and the arrays it fills, each value checked
    (ValueError naming it)."""
    if precision is None or (not isinstance(precision, bool) and precision == 0):
        for name, value in (("precision_of", precision_of), ("max_photons", max_photons)):
            if value is not None:
                raise ValueError("%s: only with precision (got %r)" % (name, value))
        precision = 0.0
    elif isinstance(precision, bool) or not isinstance(precision, numbers.Real) or \
            not 0.0 < float(precision) < 1.0:
        raise ValueError("precision: expected a relative standard error above 0 and below 1 "
                         "(0.02 for 2 %%) (got %r)" % (precision,))
    if not isinstance(stderr, (bool, np.bool_)):
        raise ValueError("stderr: expected True or False (got %r)" % (stderr,))
    if precision_of is not None and not isinstance(precision_of, str):
        raise ValueError("precision_of: expected 'Rd', 'Rd_r[3]' or 'Rd_r[0:10]' (got %r)"
                         % (precision_of,))
    if max_photons is not None and (isinstance(max_photons, bool) or
                                    not isinstance(max_photons, numbers.Integral) or
                                    not 64000 <= max_photons < 2**63):
        raise ValueError("max_photons: expected None (photons) or at least 64000 (the 64 "
                         "groups of 1000 a precision decides after) (got %r)" % (max_photons,))
    if not stderr and precision == 0.0:
        return None, None
    m, k, nr = shape
    arrays = {"Rd_stderr": np.zeros((m, k)), "Rd_r_stderr": np.zeros((m, k, nr)),
              "point_photons": np.zeros((m, k), dtype=np.int64), "reached": np.zeros((m, k))}
    e = _lib.LutErrors()
    e.precision = float(precision)
    e.of = precision_of.encode("utf-8") if precision_of is not None else None
    e.max_photons = int(max_photons or 0)
    as_doubles = ctypes.POINTER(ctypes.c_double)
    e.rd_stderr = arrays["Rd_stderr"].ctypes.data_as(as_doubles)
    e.rd_r_stderr = arrays["Rd_r_stderr"].ctypes.data_as(as_doubles)
    e.photons = arrays["point_photons"].ctypes.data_as(ctypes.POINTER(ctypes.c_int64))
    e.reached = arrays["reached"].ctypes.data_as(as_doubles)
    return e, arrays


def _error_values(e, arrays, precision_of):
    """The table's members of its errors, as the .npz's."""
    values = dict(arrays)
    values["point_photons"] = arrays["point_photons"].astype(np.uint64)
    if e.precision > 0:
        values["precision"] = e.precision
        values["precision_of"] = precision_of or "Rd"
    return values


def _frequencies(spatial_frequencies, shape, errors):
    """A _lib.LutFrequencies of spatial_frequencies (None: none asked) and
    the arrays it fills: fx, Rd_fx and with errors Rd_fx_stderr."""
    if spatial_frequencies is None:
        return None, None
    fx = frequencies_array(spatial_frequencies).copy()
    m, k = shape
    arrays = {"fx": fx, "Rd_fx": np.zeros((m, k, fx.size))}
    if errors:
        arrays["Rd_fx_stderr"] = np.zeros((m, k, fx.size))
    f = _lib.LutFrequencies()
    as_doubles = ctypes.POINTER(ctypes.c_double)
    f.fx, f.count = fx.ctypes.data_as(as_doubles), fx.size
    f.rd_fx = arrays["Rd_fx"].ctypes.data_as(as_doubles)
    if errors:
        f.rd_fx_stderr = arrays["Rd_fx_stderr"].ctypes.data_as(as_doubles)
    return f, arrays


def _add_members(values, errors, arrays, precision_of, fx_arrays):
    """values, the .npz's members, with those of the errors and the
    frequencies asked (each None when not), units last."""
    units = values.pop("units")
    if errors is not None:
        values.update(_error_values(errors, arrays, precision_of))
        units.update(ERROR_UNITS + (PRECISION_UNITS if errors.precision > 0 else ()))
    if fx_arrays is not None:
        values.update(fx_arrays)
        units.update(FX_UNITS + (FX_ERROR_UNITS if errors is not None else ()))
    values["units"] = units


def lut(mua, musp, n=1.4, n_above=1.0, n_below=1.0, g=0.9, d=math.inf, nr=100, dr=0.01,
        photons=100000, seed=1, strategy="auto", engine="auto", threads=None, gpu=0,
        progress=True, checkpoint=None, checkpoint_every=600.0, resume=False, session=None,
        stderr=False, precision=None, precision_of=None, max_photons=None,
        spatial_frequencies=None):
    """A lookup table (docs/lut.md): diffuse reflectance, total and per ring,
    of one layer (refractive index n, anisotropy g, thickness d in cm, inf:
    semi-infinite, simulated as 1e8 cm) between media of n_above and n_below,
    at every mua (1/cm, increasing) and mus' (1/cm, increasing; mus = mus' /
    (1 - g)), without absorption scoring; nr rings of dr cm; photons a point.
    Returns a LookupTable: t.Rd[j, i] is Rd at (musp[j], mua[i]), the arrays
    of `tmcml lut`'s OUT.npz bit for bit for the same options.

    strategy 'sets' (auto): each mus' one simulation whose mua are absorption
    sets, seed `seed` for every mus'; 'runs': each point its own simulation,
    mua number i with seed + i.  engine, threads, gpu: as run()'s.  progress:
    a bar over the whole table's photons.

    checkpoint: a file the table is kept in, the command's OUT.lut.ckpt
    (docs/lut.md, "Stops and --resume"): the simulations done are written
    there every checkpoint_every seconds and when the table is stopped
    (Ctrl-C, which raises KeyboardInterrupt); resume=True continues from it
    (a file there without it is refused), and the table is then bit for bit
    the uninterrupted one's.  The file is removed when the table is done; one
    of another table or engine is refused with OSError naming what differs.

    stderr=True: each point's standard errors too (Rd_stderr, Rd_r_stderr,
    point_photons, reached).  precision (0.02 for 2 %): each point simulated
    until the relative standard error of precision_of ('Rd', 'Rd_r[3]' or
    the worst of 'Rd_r[0:10]') is at most precision, photons (or
    max_photons) its most, a point of high absorption taking more photons
    than one of low (strategy 'auto' is then 'runs'); it implies stderr, and
    each point that took its most short of it is said by a
    tmcml.PrecisionWarning (t.points_short counts them).

    spatial_frequencies (a sequence in 1/cm): an SFDI table, each point's
    R(fx) at them too (Rd_fx, and with errors Rd_fx_stderr), its other
    members those of the table without them.  The CPU scores them with
    either strategy; the GPU in each point's own run (strategy 'auto' is
    then 'runs'), and 'sets' or more than 128 frequencies take the CPU
    (engine 'gpu' then raises TmcmlArgumentError).
    Bad arguments raise ValueError naming the parameter."""
    session = session or default_session()
    mua, musp = _axis("mua", mua), _axis("musp", musp)
    spec = _spec(mua, musp, n, n_above, n_below, g, d, nr, dr, strategy)
    opt = options(photons, seed, engine, False, threads, gpu, "profile", None, None, None)
    kept = checkpoint_of(checkpoint, checkpoint_every, resume) if checkpoint is not None else None
    rd = np.zeros((len(musp), len(mua)))
    rd_r = np.zeros((len(musp), len(mua), spec.nr))
    errors, arrays = _errors(stderr, precision, precision_of, max_photons,
                             (len(musp), len(mua), spec.nr))
    frequencies, fx_arrays = _frequencies(spatial_frequencies, (len(musp), len(mua)),
                                          errors is not None)
    info = _lib.LutInfo()
    try:
        seconds = execute_lut(session, spec, opt, kept, rd, rd_r, info, progress,
                              errors=errors, frequencies=frequencies)
    except _lib.TmcmlArgumentError as e:
        if e.args and str(e.args[0]).startswith("of"):  # the library's field is precision_of
            e.args = ("precision_" + str(e.args[0]),)
        if e.args and str(e.args[0]).startswith("spatial frequencies"):
            raise frequencies_error(e) from None
        raise
    except _lib.TmcmlError as e:
        if kept is not None and info.kept > 0 and not isinstance(e, _lib.CancelledError):
            e.args = ("%s (%d of %d simulations kept in %s: resume=True continues)"
                      % (e.args[0], info.kept, info.simulations, os.fsdecode(kept.path)),)
        raise
    values = {"mua": mua.copy(), "musp": musp.copy(), "Rd": rd, "Rd_r": rd_r,
              "r": (np.arange(spec.nr) + 0.5) * spec.dr, "dr": spec.dr, "Rsp": info.rsp,
              "n": spec.n, "n_above": spec.n_above, "n_below": spec.n_below, "g": spec.g,
              "d": SEMI_INFINITE_D if spec.d == math.inf else spec.d, "photons": opt.photons,
              "seed": opt.seed, "strategy": STRATEGIES[info.strategy],
              "engine": _lib.text(info.engine), "version": "tmcml %s" % _lib.version(),
              "units": dict(UNITS)}
    _add_members(values, errors, arrays, precision_of, fx_arrays)
    if errors is None:
        return LookupTable(values, int(info.trapped_photons), seconds)
    if errors.points_short > 0:
        warnings.warn(PrecisionWarning(
            "lut: %d of %d points took their most photons (%d) short of the precision %.3g %% "
            "of %s (their errors reached are in t.reached)"
            % (errors.points_short, len(mua) * len(musp), errors.max_photons or opt.photons,
               100 * errors.precision, precision_of or "Rd")), stacklevel=2)
    return LookupTable(values, int(info.trapped_photons), seconds, int(errors.points_short))
