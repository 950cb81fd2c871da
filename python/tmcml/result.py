"""Result: MCML's quantities of one run as numpy arrays (MCML's names, cm
and 1/cm), with the bin-centre coordinates MCML's conventions give and how
the run went."""

import ctypes
import math
import weakref

import numpy as np

from . import _lib
from ._lib import lib
from .beam import FlatBeam, GaussianBeam
from .problem import describe
from .session import open_session
from .source import FiberSource, IsotropicPoint, ObliqueBeam


# The dict view's keys beside the quantities: the bins' centres, and the
# fluence of a run that scored absorption.
COORDINATES = ("r", "z", "a")
_UNITS = {"Rsp": "-", "Rd": "-", "A": "-", "Tt": "-", "r": "cm", "z": "cm", "a": "rad",
          "t": "ns", "fx": "1/cm", "modulation": "Hz", "x": "cm", "fluence": "1/cm2"}


def _view_keys(timed, absorption, frequencies=False, modulation=False, cartesian=False):
    return (COORDINATES + (("t",) if timed else ()) + (("fx",) if frequencies else ()) +
            (("modulation",) if modulation else ()) + (("x",) if cartesian else ()) +
            (("fluence",) if absorption else ()))


def unit_of(key):
    """The unit of a key of the dict view (a quantity's error: its own)."""
    name = key[:-len("_stderr")] if key.endswith("_stderr") else key
    if name in _UNITS:
        return _UNITS[name]
    return _lib.text(lib.tmcml_array_unit(_lib.ARRAYS.index(name)))


def _shape(handle, index):
    dims = (ctypes.c_size_t * _lib.ARRAY_MAX_DIMS)()
    return tuple(dims[:lib.tmcml_result_array_shape(handle, index, dims)])


# A result's quantities by name, as a dict has them (r['Rd'], r.keys(),
# r.to_dict()): the scalars of RAT, then the arrays as the library names them,
# every result's; a run with an optional group (path lengths, time bins, a
# detector, the derivatives) has its arrays after them.
KEYS = ("Rsp", "Rd", "A", "Tt") + tuple(a for a in _lib.ARRAYS if a not in _lib.OPTIONAL_ARRAYS)
# The arrays of a value a detector (Rd_fiber), which a Result of one
# detector gives as floats, as it gives Rd: r.Rd_fiber, r.stderr('Rd_fiber'),
# r['Rd_fiber']; their derivatives then have the shape of Rd's, (L, 3).  With
# several detectors they stay arrays, one value a detector, (D,), and
# (D, L, 3).  The library, the .npz and Result.tallies() keep them as
# arrays, (1,) for one.
ONE_VALUE = ("Rd_fiber",)
# The quantities that have a Jacobian (Result.jacobian): 'Rd', 'Rd_r', ...,
# the library's NAME_jacobian arrays without the suffix.
JACOBIAN_OF = tuple(a[:-len("_jacobian")] for a in _lib.JACOBIAN_ARRAYS)


def _array(handle, index):
    n = ctypes.c_size_t()
    ptr = lib.tmcml_result_array(handle, index, ctypes.byref(n))
    if not ptr and _lib.ARRAYS[index] in _lib.OPTIONAL_ARRAYS:
        return None  # optional, not scored
    if not ptr or n.value == 0:
        return np.zeros(0)
    return np.ctypeslib.as_array(ptr, (n.value,)).copy().reshape(_shape(handle, index))


def _stderr_values(handle):
    """{name: standard error} of a result that has them (tmcml_result_stderr,
    tmcml_result_rat_stderr): Rd, A and Tt as floats, each array it has in
    its attribute's shape; None when it has none."""
    if lib.tmcml_result_stderr_groups is None or lib.tmcml_result_stderr_groups(handle) == 0:
        return None
    rat = _lib.Rat()
    lib.tmcml_result_rat_stderr(handle, ctypes.byref(rat))
    values = {"Rd": rat.rd, "A": rat.a, "Tt": rat.tt}
    for i, name in enumerate(_lib.ARRAYS):
        n = ctypes.c_size_t()
        ptr = lib.tmcml_result_stderr(handle, i, ctypes.byref(n))
        if ptr and n.value:
            values[name] = np.ctypeslib.as_array(ptr, (n.value,)).copy().reshape(
                _shape(handle, i))
    return _one_values(values)


def _one_values(values):
    """values (name: array) with the arrays of a value a detector
    (ONE_VALUE) as floats where there is one detector, and their
    derivatives as Rd's, (L, 3); several detectors' left as arrays."""
    for name in ONE_VALUE:
        if values.get(name) is not None and len(values[name]) == 1:
            values[name] = float(values[name][0])
        jacobian = values.get(name + "_jacobian")
        if jacobian is not None and len(jacobian) == 1:
            values[name + "_jacobian"] = jacobian[0]
    return values


def _precision(handle):
    """A precision run's outcome (tmcml_result_precision) as a dict, or
    None for a run without a precision."""
    if lib.tmcml_result_precision is None:
        return None
    p = _lib.Precision()
    if lib.tmcml_result_precision(handle, ctypes.byref(p)) != _lib.OK:
        return None
    return {"asked": p.asked, "reached": p.reached, "photons": int(p.photons),
            "max_photons": int(p.max_photons), "met": bool(p.met)}


def _ess(handle):
    """An optics set's effective sample size (tmcml_result_ess) as a float,
    or None for a result that is not an optics set's."""
    if lib.tmcml_result_ess is None:
        return None
    value = ctypes.c_double()
    if lib.tmcml_result_ess(handle, ctypes.byref(value)) != _lib.OK:
        return None
    return value.value


def _with_stderr(keys, stderr):
    """keys with NAME_stderr after each name that has a standard error."""
    out = []
    for k in keys:
        out.append(k)
        if stderr and k in stderr:
            out.append(k + "_stderr")
    return tuple(out)


def _source(problem):
    """The problem's source as tmcml's object: None for the pencil beam."""
    a, b = ctypes.c_double(), ctypes.c_double()
    kind = lib.tmcml_problem_source(problem, ctypes.byref(a), ctypes.byref(b))
    make = {1: lambda: GaussianBeam(a.value), 2: lambda: FlatBeam(a.value),
            3: lambda: IsotropicPoint(a.value), 4: lambda: FiberSource(a.value, b.value),
            5: lambda: ObliqueBeam(a.value)}
    return make[kind]() if kind in make else None


def _why_not_scored(name):
    """Why a result with derivatives lacks those of the optional array
    `name`: the run did not score `name` itself (its group's keyword)."""
    option = lib.tmcml_array_option(_lib.ARRAYS.index(name))
    if option == 2:
        return ("this run has no time bins, so no %s nor its derivatives: run it with "
                "time_bins=(dt, nt) and jacobian=True" % name)
    if option == 3:
        return ("this run has no detector, so no %s nor its derivatives: run it with "
                "detector=tmcml.FiberDetector(separation, radius, na) and jacobian=True" % name)
    return "this run did not score %s, so it has no derivatives of it" % name


def _time_bins(p):
    """(dt, nt) and the bins' centres [ns] of a time-resolved problem, else
    (None, None)."""
    if p["time_bins"] is None:
        return None, None
    dt, nt = p["time_bins"]
    return (dt, nt), (np.arange(nt) + 0.5) * dt


def _cartesian(p, scored):
    """(dx, nx) and the cells' centres [cm] along x (and y) of a result
    with the Cartesian grid, else (None, None)."""
    if not scored or p["xy"] is None:
        return None, None
    dx, nx = p["xy"]
    return (dx, nx), (np.arange(nx) + 0.5 - nx / 2) * dx


def _detector(p):
    """The problem's detectors as Result.detector has them: None, one
    FiberDetector, or a list of them (as Rd_fiber is a float or an array)."""
    from .detector import FiberDetector
    fibers = [FiberDetector(*f) for f in p["fiber_detectors"]]
    return None if not fibers else fibers[0] if len(fibers) == 1 else fibers


class Result:
    """One run's results.

    Scalars: Rsp, Rd, A, Tt.  r.source: where its photons started (None:
    MCML's pencil beam; else tmcml.GaussianBeam, FlatBeam, IsotropicPoint,
    FiberSource or ObliqueBeam, as given to tmcml.run or read from an .mco).  Arrays: one attribute per array of the
    library, named as MCML names it (tmcml.ARRAYS, in the library's order:
    A_l [num_layers], A_z [nz], A_rz [nr, nz], ...; docs/outputs.md lists
    them), shaped by the grid and normalised exactly as MCML 1.2.2.  The
    path lengths (tmcml.PATH_ARRAYS: Rd_path [nr, L], Tt_path [nr, L],
    Rd_path_total [L], Tt_path_total [L], mean paths in cm of the escaping
    weight) are arrays in a run with path_lengths=True (result.path_lengths)
    and None otherwise; so are the time-resolved arrays (tmcml.TIME_ARRAYS:
    Rd_rt [nr, nt], Rd_t [nt], Tt_rt, Tt_t) of a run with time_bins=(dt, nt)
    (result.time_bins; result.t the bins' centres in ns); Rd_fiber, a float as
    Rd is (the library's array of one value), of a run with a detector
    (result.detector), or an array of one value a detector [D] of a run with
    a list of them (result.detector, the list); Rd_fx and Tt_fx [F], R(fx)
    and T(fx), the Hankel transforms of the reflectance and transmittance at
    F spatial frequencies, of a run with spatial_frequencies= (result.fx the
    frequencies in 1/cm; Rd_fx[0] is Rd where fx[0] is 0; tmcml.FX_ARRAYS).
    Rd_r_ac and Rd_r_phase [nr, F], the amplitude (1/cm2, as Rd_r) and
    phase lag (rad) of the reflectance at F modulation frequencies, and
    Rd_ac and Rd_phase [F] over every ring, of a run with modulation=
    (result.modulation the frequencies in Hz; tmcml.MOD_ARRAYS).
    Rd_xy and Tt_xy [nx, nx] ([ix, iy], 1/cm2) and A_xz [nx, nz] (the
    absorption in the x-z plane integrated over y, 1/cm2) of a run with
    xy=(dx, nx), the Cartesian grid centred on the entry point
    (result.xy; result.x the cells' centres in cm, the same along y;
    tmcml.XY_ARRAYS); what lands beyond the grid is not in them.
    The derivatives, in a run with jacobian=True (result.has_jacobian;
    tmcml.JACOBIAN_ARRAYS, docs/physics.md, "Derivatives"): Rd_jacobian,
    Tt_jacobian [L, 3], Rd_r_jacobian, Tt_r_jacobian [nr, L, 3],
    Rd_a_jacobian, Tt_a_jacobian [na, L, 3], each the derivative of its
    escape by each layer's mua, mus and g (the last axis, in that order:
    tmcml.JACOBIAN_PARAMS), NaN where a layer has none (mus and g of a layer
    that does not scatter, g of |g| = 1); with time bins also Rd_rt_jacobian,
    Tt_rt_jacobian [nr, nt, L, 3], Rd_t_jacobian, Tt_t_jacobian [nt, L, 3],
    with a detector Rd_fiber_jacobian [L, 3], as Rd_jacobian ([D, L, 3] with
    D detectors); jacobian(name) gives one by
    its quantity's name (jacobian('Rd_r') is Rd_r_jacobian).  None otherwise.
    An optics set's result (tmcml.run(..., optics_sets=...)): ess, its
    effective sample size as a fraction of the reference's (1.0: as good as
    a run of its own), and ess_low (ess < tmcml.LOW_ESS: its values rest on
    a few heavy histories); both None for other results.
    Standard errors, in a run with stderr=True (stderr_groups: the groups of
    the estimate, 64; 0 without): stderr(name) of the shape of the quantity
    (a float for Rd, A, Tt; 0.0 for Rsp, which is exact), stderr_keys() the
    names that have one, and NAME_stderr beside NAME in the dict view.
    A run with precision=P (tmcml.run's keyword): precision, a dict of the
    relative standard error asked and reached, the photons taken (also
    photons), max_photons, and met (False: it stopped at max_photons short
    of P, and a tmcml.PrecisionWarning said so); None for other runs.
    Coordinates of the bin centres (MCML's: the
    middle of each bin): r [nr], z [nz] in cm, a [na] in radians.
    The problem: layers (rows n, mua, mus, g, d), n_above, n_below, dz, dr,
    nz, nr, na.  The run: photons, seed, engine ('cpu', 'gpu'; None when read
    from an .mco), variant (where the GPU kernel variant came from), kernel
    (its spec key), timings (seconds and where the kernel came from), steps,
    trapped_photons, trapped_weight, tallies_digest, comment.

    It also reads like a dict of its quantities (as pmcx's results do):
    r['Rd'], r['A_rz'], r.keys() (tmcml.result.KEYS: Rsp, Rd, A, Tt, then
    tmcml.ARRAYS; with standard errors, 'Rd_stderr' after 'Rd', 'A_rz_stderr'
    after 'A_rz', ...; then the bins' centres 'r', 'z', 'a' and, with time
    bins, 't'; with spatial frequencies 'fx'; with the Cartesian grid 'x'; then 'fluence'
    (fluence()) when absorption was scored),
    values(), items(), get(), 'Rd' in r, len(r), iteration over the names,
    r.to_dict() (a new dict of the same objects), and r.units ({key:
    unit}, the library's table; '-' for a fraction)."""

    def __init__(self, handle, session, python_seconds=None):
        self._session = session
        self._handle = handle
        self._finalizer = weakref.finalize(self, lib.tmcml_result_delete, handle)
        info = _lib.Info()
        lib.tmcml_result_info(handle, ctypes.byref(info))
        rat = _lib.Rat()
        lib.tmcml_result_rat(handle, ctypes.byref(rat))
        self.Rsp, self.Rd, self.A, self.Tt = rat.rsp, rat.rd, rat.a, rat.tt
        p = describe(lib.tmcml_result_problem(handle))
        self.layers, self.n_above, self.n_below = p["layers"], p["n_above"], p["n_below"]
        self.dz, self.dr, self.nz, self.nr, self.na = p["dz"], p["dr"], p["nz"], p["nr"], p["na"]
        self.out_name = p["out_name"] or None
        self.source = _source(lib.tmcml_result_problem(handle))
        arrays = _one_values({name: _array(handle, i) for i, name in enumerate(_lib.ARRAYS)})
        for name, value in arrays.items():
            setattr(self, name, value)
        self.path_lengths = self.Rd_path is not None
        # (a library before TMCML_1.5 has no such array)
        self.has_jacobian = getattr(self, "Rd_jacobian", None) is not None
        self._names = KEYS + tuple(a for a in _lib.OPTIONAL_ARRAYS if getattr(self, a) is not None)
        self._stderr = _stderr_values(handle)
        self.stderr_groups = lib.tmcml_result_stderr_groups(handle) if self._stderr else 0
        self.precision = _precision(handle)
        self.ess = _ess(handle)
        self.ess_low = None if self.ess is None else bool(self.ess < _lib.LOW_ESS)
        self.time_bins, self.t = _time_bins(p)
        self.fx = p["spatial_frequencies"] if getattr(self, "Rd_fx", None) is not None else None
        self.modulation = p["modulation"] if getattr(self, "Rd_ac", None) is not None else None
        self.xy, self.x = _cartesian(p, getattr(self, "Rd_xy", None) is not None)
        self._keys = (_with_stderr(self._names, self._stderr) +
                      _view_keys(self.t is not None, bool(info.absorption), self.fx is not None,
                                 self.modulation is not None, self.x is not None))
        self.detector = _detector(p)
        self.da = math.pi / (2 * self.na)
        self.r = (np.arange(self.nr) + 0.5) * self.dr
        self.z = (np.arange(self.nz) + 0.5) * self.dz
        self.a = (np.arange(self.na) + 0.5) * self.da
        self.photons = int(info.photons)
        self.has_tallies = bool(info.has_tallies)
        self.seed = int(info.seed) if self.has_tallies else None
        self.absorption = bool(info.absorption)
        self.engine = _lib.text(info.engine) or None
        self.threads = int(info.threads)
        self.device = _lib.text(info.device) or None
        self.variant = _lib.text(info.variant) or None
        self.kernel = _lib.text(info.kernel) or None
        self.comment = _lib.text(info.comment)
        origin = _lib.KERNEL_ORIGINS[info.kernel_origin]
        self.timings = {
            "wall": info.wall_seconds,  # the library call
            "plan": info.plan_seconds,
            "compile": info.compile_seconds,
            "kernel": info.kernel_seconds,
            "overhead": info.overhead_seconds,  # wall - compile - kernel
            "python": python_seconds,  # the whole Python call, when it ran here
            "kernel_origin": origin,  # None (CPU), 'compiled', 'cached' or 'warm'
            "compiled": origin == "compiled",
        }
        self.steps = info.steps
        self.trapped_photons = int(info.trapped_photons)
        self.trapped_weight = info.trapped_weight
        self.tallies_digest = int(info.tallies_digest) if self.has_tallies else None
        self._tallies = None

    def __repr__(self):
        return ("<tmcml.Result %d photons, %d layers, grid %dx%dx%d: Rsp %.6g Rd %.6g A %.6g "
                "Tt %.6g>" % (self.photons, len(self.layers), self.nr, self.nz, self.na,
                              self.Rsp, self.Rd, self.A, self.Tt))

    def _value(self, key):
        """The quantity of a key: an attribute, NAME_stderr's error, or the
        fluence."""
        if self._stderr and key.endswith("_stderr") and key[:-len("_stderr")] in self._stderr:
            return self._stderr[key[:-len("_stderr")]]
        if key == "fluence":
            return self.fluence()
        return getattr(self, key)

    @property
    def units(self):
        """{key: unit} of every key of the dict view: the library's table
        for the arrays (tmcml_array_unit), '-' for a fraction."""
        return {k: unit_of(k) for k in self._keys}

    def __getitem__(self, name):
        if name not in self._keys:
            raise KeyError("%r: this Result has %s" % (name, ", ".join(self._keys)))
        return self._value(name)

    def __contains__(self, name):
        return name in self._keys

    def __iter__(self):
        return iter(self._keys)

    def __len__(self):
        return len(self._keys)

    def keys(self):
        return list(self._keys)

    def values(self):
        return [self._value(k) for k in self._keys]

    def items(self):
        return [(k, self._value(k)) for k in self._keys]

    def get(self, name, default=None):
        return self[name] if name in self._keys else default

    def to_dict(self):
        """{name: value} of every quantity (keys()): the scalars as floats,
        the arrays as numpy arrays (the Result's own, not copies)."""
        return dict(self.items())

    def stderr(self, name):
        """The standard error of quantity `name` (docs/library.md, "Standard
        errors"): an array of the shape of result.<name> (entry for entry),
        a float for 'Rd', 'A' and 'Tt', 0.0 for 'Rsp' (exact).  KeyError for
        a name this result does not have (the message lists them);
        ValueError when the result has no standard errors (run it with
        stderr=True)."""
        if name not in self._names:
            raise KeyError("Result.stderr(%r): not a quantity of this result; it has %s"
                           % (name, ", ".join(self._names)))
        if not self._stderr:
            raise ValueError("Result.stderr(%r): this result has no standard errors: %s"
                             % (name, self._why_no_stderr()))
        return 0.0 if name == "Rsp" else self._stderr[name]

    def _why_no_stderr(self):
        if not self.has_tallies:
            return ("it was read from an .mco or convolved, which keep none; run the problem "
                    "with stderr=True (tmcml.run(..., stderr=True))")
        problem = lib.tmcml_result_problem(self._handle)
        if lib.tmcml_problem_stderr is not None and lib.tmcml_problem_stderr(problem):
            return ("its run was continued from a checkpoint file, which keeps no groups of "
                    "the photons done before (yet); run it again with stderr=True and no "
                    "resume")
        return ("run it with stderr=True (tmcml.run(..., stderr=True), run_batch, run_mci, "
                "or with mua_sets)")

    def stderr_keys(self):
        """The names whose standard error this result has (stderr(name)):
        'Rd', 'A', 'Tt' and its arrays; [] without (Rsp is exact: 0.0)."""
        return [k for k in self._names if self._stderr and k in self._stderr]

    def jacobian(self, name):
        """The derivatives of quantity `name` ('Rd', 'Tt', 'Rd_r', 'Tt_r',
        'Rd_a', 'Tt_a'; with time bins 'Rd_rt', 'Rd_t', 'Tt_rt', 'Tt_t';
        with a detector 'Rd_fiber') by each layer's mua, mus and g: the
        array NAME_jacobian, of shape result.<name>'s + (L, 3), (L, 3) for
        'Rd' and 'Tt'; the last axis by mua [per 1/cm], mus [per 1/cm] and g
        (tmcml.JACOBIAN_PARAMS).  Its standard error, in a run with
        stderr=True too: stderr(name + '_jacobian').  KeyError for a
        quantity without a Jacobian; ValueError for a result without them
        (run it with jacobian=True), or without the quantity itself ('Rd_t'
        of a run without time bins)."""
        if JACOBIAN_OF and name not in JACOBIAN_OF:
            raise KeyError("Result.jacobian(%r): not a quantity with derivatives; those are %s"
                           % (name, ", ".join(JACOBIAN_OF)))
        if not self.has_jacobian:
            raise ValueError("Result.jacobian(%r): this result has no derivatives: %s"
                             % (name, self._why_no_jacobian()))
        value = getattr(self, name + "_jacobian")
        if value is None:
            raise ValueError("Result.jacobian(%r): %s" % (name, _why_not_scored(name)))
        return value

    def _why_no_jacobian(self):
        if not JACOBIAN_OF:
            return "this libtmcml (%s) is older than the derivatives (TMCML_1.5)" % _lib.path
        if not self.has_tallies:
            return ("it was read from an .mco, which keeps none, or convolved from a result "
                    "without them; run the problem with jacobian=True (tmcml.run(..., "
                    "jacobian=True))")
        return ("run it with jacobian=True (tmcml.run(..., jacobian=True), run_batch, run_mci, "
                "or with mua_sets)")

    @property
    def tallies(self):
        """The integer tallies the arrays come from (2^24 units per unit
        weight): {name: array} for each array that has them (tmcml.TALLIED,
        e.g. 'A_rz': [nr, nz]; Rd_path and Tt_path, 2^24 units per weight x
        cm, in a run with path lengths), uint64 arrays (Python ints, dtype object, for
        a count beyond 2^64).  None for a result read from an .mco."""
        if not self.has_tallies:
            return None
        if self._tallies is None:
            self._tallies = {}
            for name in _lib.TALLIED:
                if name in _lib.OPTIONAL_ARRAYS and getattr(self, name) is None:
                    continue
                shape = _shape(self._handle, _lib.ARRAYS.index(name))
                n = int(np.prod(shape))
                low = np.zeros(n, dtype=np.uint64)
                high = np.zeros(n, dtype=np.uint64)
                pointer = ctypes.POINTER(ctypes.c_uint64)
                open_session(self._session).call(
                    lib.tmcml_result_tallies, self._handle, _lib.ARRAYS.index(name),
                    low.ctypes.data_as(pointer), high.ctypes.data_as(pointer), n)
                if high.any():
                    counts = np.array([int(h) << 64 | int(lo) for lo, h in zip(low, high)],
                                      dtype=object)
                else:
                    counts = low
                self._tallies[name] = counts.reshape(shape)
        return self._tallies

    def layer_of_z(self):
        """The 0-based layer index holding each depth bin's centre (MCML's
        IzToLayer: bins below the stack count for the last layer)."""
        bottoms = np.cumsum(self.layers[:, 4])
        index = np.searchsorted(bottoms, self.z, side="right")
        return np.minimum(index, len(self.layers) - 1)

    def fluence(self):
        """The fluence [1/cm2] of each (r, z) bin: A_rz divided by the mua of
        the layer holding the bin's centre (as MCML's conv).  NaN in layers
        with mua = 0 (glass), where A_rz holds nothing to divide."""
        mua = self.layers[self.layer_of_z(), 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(mua > 0, self.A_rz / np.where(mua > 0, mua, 1.0), np.nan)

    def save_mco(self, path):
        """Writes MCML 1.2.2's .mco through the library's writer - the run
        command's file, byte for byte, for the same run and seed - and, for a
        run of this library, the JSON summary beside it (NAME.json)."""
        open_session(self._session).call(lib.tmcml_result_write_mco, self._handle,
                                         _lib.encode_path(path))

    def convolve(self, beam):
        """This result's response to a broad beam of unit power instead of
        the pencil (tmcml.GaussianBeam(w), tmcml.FlatBeam(r); cm), as a new
        Result: Rd_r, Tt_r, A_rz, Rd_ra and Tt_ra (and a run's Rd_rt,
        Tt_rt and derivatives with an r axis) convolved as MCML's CONV
        does (tmcml_result_convolve; `tmcml conv`), the totals and the other
        arrays unchanged, no tallies; no path lengths and no detector (not
        convolutions of the pencil's).  The last r bin (everything beyond
        the grid) is not spread and collects what the beam carries beyond
        it."""
        from .beam import FlatBeam, GaussianBeam

        if not isinstance(beam, (GaussianBeam, FlatBeam)):
            raise TypeError("beam: expected tmcml.GaussianBeam(w) or tmcml.FlatBeam(r) (got %r)"
                            % (beam,))
        if lib.tmcml_result_convolve is None:
            raise _lib.TmcmlError("Result.convolve: the loaded libtmcml (%s) is older than "
                                  "tmcml_result_convolve" % _lib.path)
        session = open_session(self._session)
        out = ctypes.c_void_p()
        session.call(lib.tmcml_result_convolve, self._handle,
                     ctypes.byref(_lib.Beam(beam.kind, beam.radius)), ctypes.byref(out))
        return Result(out.value, session)

    def plot(self, path=None, show=False, name=None):
        """`tmcml plot`'s figure of this result, drawn by the library with the
        same code (tmcml_result_plot): the fluence in r-z mirrored about r = 0
        with the layer interfaces, Rd(r) and A(z) on log axes.  Writes the
        PNG to path (default: a new temporary file) and returns a
        tmcml.plot.Figure (its path, its bytes; Jupyter shows it inline).
        name goes into the title (default: the problem's output name, else
        the file's).  show=True also opens it (matplotlib, else the desktop's
        image viewer)."""
        from .plot import plot_result

        return plot_result(self, path, show, name)
