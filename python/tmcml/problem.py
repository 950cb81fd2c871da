"""Problems (tmcml_problem): the parameters checked in Python first, so that
a mistake is a ValueError naming the parameter; the library then checks
them again with the rules of a .mci file (runtime/io/mci.c)."""

import ctypes
import math
import numbers

import numpy as np

from . import _lib
from ._lib import lib

LAYER_FIELDS = ("n", "mua", "mus", "g", "d")
# The thickness [cm] of a semi-infinite last layer (d = inf), as MCML users
# write one: no photon crosses 10^8 cm of tissue, so nothing is transmitted;
# the .mco's InParm prints this number (docs/library.md).
SEMI_INFINITE_D = 1e8


def _number(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError("%s: expected a number (got %r)" % (name, value))
    value = float(value)
    if not math.isfinite(value):
        raise ValueError("%s: not a finite number (%r)" % (name, value))
    return value


def number_from(name, value, low, strict):
    """value as a finite float >= low (> low when strict), else ValueError
    naming it: the parameters of sources and detectors."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError("%s: expected a number (got %r)" % (name, value))
    value = float(value)
    if not math.isfinite(value) or value < low or (strict and value == low):
        raise ValueError("%s: expected a finite number %s %g (got %r)"
                         % (name, ">" if strict else ">=", low, value))
    return value


def positive_number(name, value):
    value = _number(name, value)
    if value <= 0:
        raise ValueError("%s: must be positive (got %r)" % (name, value))
    return value


def count(name, value, low=1, high=2**31 - 1):
    """value as an int in [low, high]: an integer, or a float with no
    fraction (photons=1e6, as pmcx takes it)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError("%s: expected a whole number (got %r)" % (name, value))
    if not isinstance(value, numbers.Integral):
        value = float(value)
        if not math.isfinite(value) or not value.is_integer():
            raise ValueError("%s: expected a whole number (got %r, which has a fraction or "
                             "is not finite)" % (name, value))
    value = int(value)
    if not low <= value <= high:
        raise ValueError("%s: expected %d to %d (got %d)" % (name, low, high, value))
    return value


# What numpy would turn into floats silently or with a mere warning, each
# changing what was given: the kinds of numpy's dtypes that are not real
# numbers (integers and floats are).
_NOT_REAL = {"b": "booleans", "c": "complex numbers (numpy would drop the imaginary part)",
             "O": "Python objects", "U": "strings", "S": "bytes", "M": "dates",
             "m": "time spans", "V": "raw records"}


def _not_real(name, what):
    return ValueError("%s: expected real numbers, not %s" % (name, what))


def require_real(name, value):
    """Refuses an array of optical properties (nested lists, tuples or numpy
    arrays, or anything numpy reads) that holds what is not a real number:
    complex numbers, booleans, strings, None or other objects, which
    np.array(..., dtype=float) would cast (the imaginary part dropped with a
    warning, True read as 1, "1.37" parsed).  ValueError naming the argument
    and, in a list, the element (layers[1][2])."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in "iuf":
            raise _not_real(name, "an array of %s (dtype %s)"
                            % (_NOT_REAL.get(value.dtype.kind, "other things"), value.dtype))
        return
    if isinstance(value, (bool, np.bool_)):
        raise _not_real(name, "a boolean (%r)" % (value,))
    if isinstance(value, numbers.Real):
        return
    if isinstance(value, (str, bytes)) or value is None:
        raise _not_real(name, "%r" % (value,))
    if isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            require_real("%s[%d]" % (name, i), v)
        return
    if isinstance(value, numbers.Number):
        raise _not_real(name, "%r" % (value,))
    try:  # another array type (pandas, a buffer): as numpy reads it
        a = np.asarray(value)
    except (TypeError, ValueError):
        return  # not an array: the caller's conversion says what it expected
    if a.dtype.kind == "O" and a.ndim == 0:
        raise _not_real(name, "%r" % (value,))
    require_real(name, a)


def layers_array(layers):
    """layers as an n x 5 float array, every value checked; the last
    layer's d may be inf (semi-infinite: SEMI_INFINITE_D)."""
    require_real("layers", layers)
    try:
        a = np.array(layers, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("layers: expected rows of [n, mua, mus, g, d] numbers (got %r)"
                         % (layers,)) from None
    if a.ndim != 2 or a.shape[1] != 5 or a.shape[0] < 1:
        raise ValueError("layers: expected rows of 5 values [n, mua, mus, g, d], one a layer "
                         "(got shape %s)" % (a.shape,))
    last = len(a) - 1
    for i, row in enumerate(a):
        for k, v in enumerate(row):
            what = "layers[%d][%d] (%s of layer %d)" % (i, k, LAYER_FIELDS[k], i + 1)
            if k == 4 and v == math.inf:
                if i != last:
                    raise ValueError("%s: inf (semi-infinite) is allowed for the last layer "
                                     "alone" % what)
                row[4] = SEMI_INFINITE_D
            elif not math.isfinite(v):
                raise ValueError("%s: not a finite number (%r)" % (what, v))
        n, mua, mus, g, d = row
        layer = "layers[%d] (layer %d)" % (i, i + 1)
        if n <= 0:
            raise ValueError("%s: n must be positive (got %r)" % (layer, n))
        if mua < 0:
            raise ValueError("%s: mua must not be negative (got %r)" % (layer, mua))
        if mus < 0:
            raise ValueError("%s: mus must not be negative (got %r)" % (layer, mus))
        if not -1 <= g <= 1:
            raise ValueError("%s: g must be between -1 and 1 (got %r)" % (layer, g))
        if d < 0:
            raise ValueError("%s: d (thickness) must not be negative (got %r)" % (layer, d))
    return a


class Problem:
    """A checked problem in the library (owned: deleted with this object)."""

    def __init__(self, handle, owned=True, keeper=None):
        self.handle = handle
        self._owned = owned
        self._keeper = keeper  # what owns handle when this does not

    def __del__(self):
        if self._owned and self.handle:
            try:
                lib.tmcml_problem_delete(self.handle)
            except Exception:  # interpreter shutdown
                pass
            self.handle = None

    @classmethod
    def from_arrays(cls, session, layers, n_above, n_below, dz, dr, nz, nr, na):
        a = layers_array(layers)
        n_above = positive_number("n_above", n_above)
        n_below = positive_number("n_below", n_below)
        grid = _lib.Grid(positive_number("dz", dz), positive_number("dr", dr),
                         count("nz", nz), count("nr", nr), count("na", na))
        rows = (_lib.Layer * len(a))(*[_lib.Layer(*map(float, row)) for row in a])
        out = ctypes.c_void_p()
        session.call(lib.tmcml_problem_new, rows, len(a), n_above, n_below, ctypes.byref(grid),
                     ctypes.byref(out))
        return cls(out.value)


def describe(handle):
    """A problem's parameters as a dict (layers as an n x 5 array)."""
    n = lib.tmcml_problem_num_layers(handle)
    rows = []
    for i in range(n + 2):
        layer = _lib.Layer()
        lib.tmcml_problem_layer(handle, i, ctypes.byref(layer))
        rows.append([layer.n, layer.mua, layer.mus, layer.g, layer.d])
    grid = _lib.Grid()
    lib.tmcml_problem_grid(handle, ctypes.byref(grid))
    return {"layers": np.array(rows[1:-1], dtype=float), "n_above": rows[0][0],
            "n_below": rows[-1][0], "dz": grid.dz, "dr": grid.dr, "nz": grid.nz,
            "nr": grid.nr, "na": grid.na, "photons": int(lib.tmcml_problem_photons(handle)),
            "out_name": _lib.text(lib.tmcml_problem_name(handle)),
            "time_bins": _time_bins(handle), "fiber_detectors": _fibers(handle),
            "spatial_frequencies": _frequencies(handle, "tmcml_problem_spatial_frequencies"),
            "modulation": _frequencies(handle, "tmcml_problem_modulation"), "xy": _xy(handle)}


def _xy(handle):
    """The problem's Cartesian grid (dx [cm], nx), or None (none, or a
    library before TMCML_1.6)."""
    if lib.tmcml_problem_xy is None:
        return None
    dx = ctypes.c_double()
    nx = lib.tmcml_problem_xy(handle, ctypes.byref(dx))
    return (dx.value, nx) if nx > 0 else None


def _time_bins(handle):
    dt = ctypes.c_double()
    nt = lib.tmcml_problem_time_bins(handle, ctypes.byref(dt))
    return (dt.value, nt) if nt > 0 else None


def _frequencies(handle, getter):
    """The problem's spatial frequencies [1/cm] or modulation frequencies
    [Hz] (the library's getter) as an array, or None (none, or a library
    before TMCML_1.6)."""
    call = getattr(lib, getter)
    if call is None:
        return None
    n = call(handle, None, 0)
    if n <= 0:
        return None
    f = (ctypes.c_double * n)()
    call(handle, f, n)
    return np.array(f[:], dtype=float)


def _fibers(handle):
    """Each fiber detector's (separation, radius, na), in their order: a
    list, empty for none (a library before TMCML_1.6 has one at most)."""
    v = [ctypes.c_double() for _ in range(3)]
    refs = [ctypes.byref(x) for x in v]
    if lib.tmcml_problem_fiber_detector_at is None:
        return [tuple(x.value for x in v)] if lib.tmcml_problem_fiber_detector(handle, *refs) \
            else []
    out = []
    for k in range(lib.tmcml_problem_fiber_detector_at(handle, 0, *refs)):
        lib.tmcml_problem_fiber_detector_at(handle, k, *refs)
        out.append(tuple(x.value for x in v))
    return out
