"""One run through tmcml_run, on a thread of its own so that Ctrl-C reaches
the caller at once: a KeyboardInterrupt cancels the run in the library
(tmcml_session_cancel, and the progress callback's answer), waits for it to
stop - within a fraction of a second - and is raised again.  Nothing of the
cancelled run is kept, and the session goes on working."""

import ctypes
import numbers
import signal
import threading
import time
import warnings

import numpy as np

from . import _lib
from ._lib import lib
from .problem import count
from .progress import Progress


def options(photons, seed, engine, absorption, threads, gpu, policy, cache_dir, profile_dir,
            max_steps):
    """A tmcml_options, every value checked (ValueError naming it)."""
    opt = _lib.Options()
    lib.tmcml_options_init(ctypes.byref(opt))
    opt.photons = count("photons", photons, 1, 2**63 - 1)
    opt.seed = count("seed", seed, 0, 2**64 - 1)
    if engine not in _lib.ENGINES:
        raise ValueError("engine: expected 'auto', 'cpu' or 'gpu' (got %r)" % (engine,))
    opt.engine = _lib.ENGINES[engine]
    if policy not in _lib.POLICIES:
        raise ValueError("policy: expected one of %s (got %r)"
                         % (", ".join(map(repr, _lib.POLICIES)), policy))
    opt.policy = _lib.POLICIES[policy]
    if not isinstance(absorption, bool):
        raise ValueError("absorption: expected True or False (got %r)" % (absorption,))
    opt.absorption = int(absorption)
    opt.threads = 0 if threads is None else count("threads", threads, 0, 4096)  # 0: every core
    opt.gpu = count("gpu", gpu, 0, 1023)
    opt.max_steps = 0 if max_steps is None else count("max_steps", max_steps, 1, 2**32 - 1)
    opt.cache_dir = None if cache_dir is None else _lib.encode_path(cache_dir)
    opt.profile_dir = None if profile_dir is None else _lib.encode_path(profile_dir)
    return opt


def set_path_lengths(session, problems, path_lengths):
    """Asks each problem's runs to score the partial path lengths (or not)."""
    if not isinstance(path_lengths, bool):
        raise ValueError("path_lengths: expected True or False (got %r)" % (path_lengths,))
    for p in problems:
        session.call(lib.tmcml_problem_set_path_lengths, p.handle, int(path_lengths))


def _ask(session, problems, name, on, setter, since):
    """Asks each problem's runs for what the flag `name` names when on is
    True (the library's setter, new in its version `since`): checked to be
    a bool; an older libtmcml is said so."""
    if not isinstance(on, bool):
        raise ValueError("%s: expected True or False (got %r)" % (name, on))
    if not on:
        return
    fn = getattr(lib, setter)
    if fn is None:
        raise RuntimeError("%s: this libtmcml (%s) is older than %s (%s)"
                           % (name, _lib.path, setter, since))
    for p in problems:
        session.call(fn, p.handle, 1)


def set_jacobian(session, problems, jacobian):
    """Asks each problem's runs to score the derivatives of the escapes by
    each layer's mua, mus and g (or not): tmcml_problem_set_jacobian.  Which
    engine scores them is the library's to say (those of time bins, a
    detector or path lengths the CPU: a run with engine='gpu' is refused
    there, naming the engine)."""
    _ask(session, problems, "jacobian", jacobian, "tmcml_problem_set_jacobian", "TMCML_1.5")


def set_stderr(session, problems, stderr):
    """Asks each problem's runs for the standard errors of every output (or
    not): tmcml_problem_set_stderr."""
    _ask(session, problems, "stderr", stderr, "tmcml_problem_set_stderr", "TMCML_1.4")


def set_source(session, problems, source):
    """Gives each problem's runs the source (None: MCML's pencil beam)."""
    if source is None:
        return
    args = getattr(source, "source_args", None)
    if args is None:
        raise ValueError("source: expected tmcml.GaussianBeam, FlatBeam, IsotropicPoint, "
                         "FiberSource or ObliqueBeam (got %r)" % (source,))
    kind, a, b = args()
    for p in problems:
        session.call(lib.tmcml_problem_set_source, p.handle, kind, a, b)


def set_time_and_detector(session, problems, time_bins, detector):
    """Asks each problem's runs for time bins (time_bins=(dt, nt) or None)
    and detectors (a tmcml.FiberDetector, a list of them, or None): the
    first in place of any the problem had, the others added after it."""
    from .detector import fiber_detectors, time_bins as check_time_bins

    bins = check_time_bins(time_bins)
    fibers = fiber_detectors(detector)
    if len(fibers) > 1 and lib.tmcml_problem_add_fiber_detector is None:
        raise ValueError("detector: several detectors need libtmcml 1.6 or later (this one, %s, "
                         "scores one)" % _lib.path)
    for p in problems:
        if bins is not None:
            session.call(lib.tmcml_problem_set_time_bins, p.handle, bins[0], bins[1])
        for k, d in enumerate(fibers):
            session.call(lib.tmcml_problem_add_fiber_detector if k else
                         lib.tmcml_problem_set_fiber_detector, p.handle, d.separation, d.radius,
                         d.na)


# A list's keyword, unit, example and the library's name for it, for the
# spatial frequencies (the default) and the modulation frequencies.
_FX = ("spatial_frequencies", "1/cm", "[0, 0.5, 1] or numpy.arange(0, 2.01, 0.5)",
       "spatial frequencies")
_MOD = ("modulation", "Hz", "[100e6, 200e6]", "modulation frequencies")


def frequencies_array(values, kind=_FX):
    """values (a sequence of frequencies in kind's unit) as a C-ordered
    float64 vector, ValueError naming kind's keyword when it is none; the
    values are the library's to check."""
    keyword, unit, example, _ = kind
    if isinstance(values, (str, bytes)) or np.ndim(values) != 1:
        raise ValueError("%s: expected a sequence of frequencies in %s, e.g. %s (got %r)"
                         % (keyword, unit, example, values))
    try:
        f = np.ascontiguousarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError("%s: expected numbers in %s (got %r)" % (keyword, unit, values)) from None
    if f.size == 0:
        raise ValueError("%s: empty (give None for none)" % keyword)
    return f


def frequencies_error(e, kind=_FX):
    """The library's refusal of a list ("spatial frequencies: frequency 2,
    ...") naming kind's keyword."""
    return _lib.TmcmlArgumentError(str(e).replace(kind[3], kind[0], 1), e.status)


def _set_frequencies(session, problems, values, kind, setter):
    """Asks each problem's runs for a list of frequencies of kind: values
    (or None for none) given to the library's setter (of TMCML_1.6), which
    checks them."""
    if values is None:
        return
    f = frequencies_array(values, kind)
    call = getattr(lib, setter)
    if call is None:
        raise RuntimeError("%s: this libtmcml (%s) is older than %s (TMCML_1.6)"
                           % (kind[0], _lib.path, setter))
    pointer = f.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    for p in problems:
        try:
            session.call(call, p.handle, pointer, int(f.size))
        except _lib.TmcmlArgumentError as e:
            raise frequencies_error(e, kind) from None


def set_spatial_frequencies(session, problems, spatial_frequencies):
    """Asks each problem's runs for R(fx) and T(fx) at spatial_frequencies
    (a sequence of frequencies in 1/cm, or None for none):
    tmcml_problem_set_spatial_frequencies, which checks the values."""
    _set_frequencies(session, problems, spatial_frequencies, _FX,
                     "tmcml_problem_set_spatial_frequencies")


def set_modulation(session, problems, modulation):
    """Asks each problem's runs for the reflectance's amplitude and phase
    at the modulation frequencies `modulation` (a sequence in Hz, or None
    for none): tmcml_problem_set_modulation, which checks the values."""
    _set_frequencies(session, problems, modulation, _MOD, "tmcml_problem_set_modulation")


def set_xy(session, problems, xy):
    """Asks each problem's runs for the Cartesian grid xy=(dx, nx): nx x nx
    cells of dx cm centred on the entry point (None: none);
    tmcml_problem_set_xy (TMCML_1.6), which checks the values against each
    problem's depth bins."""
    if xy is None:
        return
    if lib.tmcml_problem_set_xy is None:
        raise RuntimeError("xy: this libtmcml (%s) is older than tmcml_problem_set_xy "
                           "(TMCML_1.6)" % _lib.path)
    try:
        dx, nx = xy
    except (TypeError, ValueError):
        raise ValueError("xy: expected (dx, nx), the cell side in cm and the cells along x and "
                         "y, e.g. (0.01, 200) (got %r)" % (xy,)) from None
    if isinstance(dx, bool) or not isinstance(dx, numbers.Real):
        raise ValueError("xy: the cell side dx must be a number of cm (got %r)" % (dx,))
    nx = count("xy: the cell count nx", nx, 1, 4096)
    for p in problems:
        session.call(lib.tmcml_problem_set_xy, p.handle, float(dx), nx)


def execute(session, problem, opt, progress=True, label=""):
    """tmcml_run of problem (a Problem) with opt: the result handle and the
    seconds the call took, seen from Python."""
    out = ctypes.c_void_p()
    seconds = _watched(session, opt, progress, label, opt.photons, lib.tmcml_run,
                       (problem.handle, ctypes.byref(opt), ctypes.byref(out)), [out])
    return out.value, seconds


def execute_checkpointed(session, problem, opt, checkpoint, progress=True, label=""):
    """tmcml_run_checkpointed of problem with opt, kept in checkpoint (a
    _lib.Checkpoint): the result handle and the seconds the call took.  On
    Ctrl-C the photons done stay in the checkpoint's file."""
    if lib.tmcml_run_checkpointed is None:
        raise RuntimeError("checkpoint: this libtmcml is older than tmcml_run_checkpointed "
                           "(TMCML_1.2)")
    out = ctypes.c_void_p()
    seconds = _watched(session, opt, progress, label, opt.photons, lib.tmcml_run_checkpointed,
                       (problem.handle, ctypes.byref(opt), ctypes.byref(checkpoint),
                        ctypes.byref(out)), [out])
    return out.value, seconds


def execute_batch(session, problems, opt, total, progress=True, label=""):
    """tmcml_run_batch of problems (Problems of one shape) with opt: their
    result handles and the seconds the call took, seen from Python."""
    n = len(problems)
    handles = (ctypes.c_void_p * n)(*[p.handle for p in problems])
    out = (ctypes.c_void_p * n)()
    seconds = _watched(session, opt, progress, label, total, lib.tmcml_run_batch,
                       (handles, n, ctypes.byref(opt), out), out)
    return list(out), seconds


def execute_sets(session, problem, mua_sets, opt, progress=True, label=""):
    """tmcml_run_sets of problem with mua_sets (a C-ordered float64 array of
    shape (K, L)): the K result handles and the seconds the call took."""
    return _sets_call(session, lib.tmcml_run_sets, problem, mua_sets, opt, progress, label)


def execute_optics_sets(session, problem, optics_sets, opt, progress=True, label=""):
    """tmcml_run_optics_sets of problem with optics_sets (a C-ordered
    float64 array of shape (K, L, 3)): the K result handles and the seconds
    the call took."""
    if lib.tmcml_run_optics_sets is None:
        raise RuntimeError("optics_sets: this libtmcml (%s) is older than "
                           "tmcml_run_optics_sets (TMCML_1.5)" % _lib.path)
    return _sets_call(session, lib.tmcml_run_optics_sets, problem, optics_sets, opt, progress,
                      label)


def _sets_call(session, function, problem, table, opt, progress, label):
    """function (tmcml_run_sets or tmcml_run_optics_sets) of problem with
    table, a set per row of its first axis."""
    k = table.shape[0]
    out = (ctypes.c_void_p * k)()
    values = table.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    seconds = _watched(session, opt, progress, label, opt.photons, function,
                       (problem.handle, values, k, ctypes.byref(opt), out), out)
    return list(out), seconds


def execute_lut(session, spec, opt, checkpoint, rd, rd_r, info, progress=True, label="",
                errors=None, frequencies=None):
    """tmcml_lut of spec (a _lib.LutSpec) with opt, kept in checkpoint (a
    _lib.Checkpoint, or None) into rd and rd_r (C-ordered float64 arrays of
    the table's shapes) and info (a _lib.LutInfo), or tmcml_lut_with_errors
    with errors (a _lib.LutErrors, its out arrays set), or
    tmcml_lut_with_frequencies with frequencies (a _lib.LutFrequencies, its
    out arrays set) and errors (or None): the seconds the call took.  On
    Ctrl-C the simulations done stay in the checkpoint's file."""
    if lib.tmcml_lut is None:
        raise RuntimeError("lut: this libtmcml is older than tmcml_lut (TMCML_1.3)")
    if errors is not None and lib.tmcml_lut_with_errors is None:
        raise RuntimeError("lut: stderr and precision need tmcml_lut_with_errors (TMCML_1.4); "
                           "this libtmcml is older")
    if frequencies is not None and lib.tmcml_lut_with_frequencies is None:
        raise RuntimeError("lut: spatial_frequencies need tmcml_lut_with_frequencies "
                           "(TMCML_1.6); this libtmcml is older")
    as_doubles = ctypes.POINTER(ctypes.c_double)
    kept = ctypes.byref(checkpoint) if checkpoint is not None else None
    tables = (rd.ctypes.data_as(as_doubles), rd_r.ctypes.data_as(as_doubles))
    if frequencies is not None:
        errs = ctypes.byref(errors) if errors is not None else None
        return _watched(session, opt, progress, label, None, lib.tmcml_lut_with_frequencies,
                        (ctypes.byref(spec), ctypes.byref(opt), kept) + tables +
                        (errs, ctypes.byref(frequencies), ctypes.byref(info)), [])
    if errors is None:
        return _watched(session, opt, progress, label, None, lib.tmcml_lut,
                        (ctypes.byref(spec), ctypes.byref(opt), kept) + tables +
                        (ctypes.byref(info),), [])
    return _watched(session, opt, progress, label, None, lib.tmcml_lut_with_errors,
                    (ctypes.byref(spec), ctypes.byref(opt), kept) + tables +
                    (ctypes.byref(errors), ctypes.byref(info)), [])


def _hold_sigint():
    """SIGINT blocked on this thread (where the platform can), its mask
    before returned for _release_sigint; None where it cannot."""
    if not hasattr(signal, "pthread_sigmask") or \
            threading.current_thread() is not threading.main_thread():
        return None
    return [signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})]


def _release_sigint(held):
    """The mask _hold_sigint found, once (a held SIGINT is then delivered,
    and Python raises its KeyboardInterrupt at the next instruction)."""
    if held:
        signal.pthread_sigmask(signal.SIG_SETMASK, held.pop())


def _watched(session, opt, progress, label, total, function, args, outs):
    """function(session, *args) on a thread of its own with a progress bar;
    on Ctrl-C the call is cancelled, the results in outs deleted and the
    KeyboardInterrupt raised again."""
    meter = Progress(progress, total, label)
    cancel = threading.Event()

    def report(done, total, user):
        try:
            meter.update(done, total)
        except Exception:  # a display error must not stop the run
            pass
        return 1 if cancel.is_set() else 0

    callback = _lib.PROGRESS_FN(report)  # referenced until the run returns
    opt.progress = callback
    opt.progress_interval = 0.1
    box = {}
    # The call's end, set by the worker itself: Thread.is_alive() cannot be
    # trusted once a KeyboardInterrupt has cut a join short (CPython before
    # 3.13 may then mark a running thread as ended), and the results must not
    # be deleted, nor the interpreter leave, while the call still runs.
    ended = threading.Event()

    def work():
        try:  # session.call: a close() on another thread cancels and waits for it
            session.call(function, *args)
        except BaseException as e:  # raised on the caller's thread
            box["error"] = e
        finally:
            ended.set()

    start = time.perf_counter()
    worker = threading.Thread(target=work, name="tmcml-run", daemon=True)
    # A Ctrl-C while the thread starts is held until the start is over, and
    # raised inside the try: raised during start(), it would leave a call
    # running that nothing cancels or waits for (its results then leaked).
    held = _hold_sigint()
    try:
        worker.start()
        _release_sigint(held)
        while not ended.wait(0.25):
            pass
    except KeyboardInterrupt:
        _release_sigint(held)
        cancel.set()
        session.cancel()
        while worker.ident is not None and not ended.is_set():
            try:
                ended.wait()
            except KeyboardInterrupt:  # a second Ctrl-C: still wait, it is ending
                pass
        for i, handle in enumerate(outs):
            value = handle.value if isinstance(handle, ctypes.c_void_p) else handle
            if value:
                lib.tmcml_result_delete(value)
        raise
    finally:
        _release_sigint(held)
        meter.close()
    seconds = time.perf_counter() - start
    if "error" in box:
        raise box["error"]
    return seconds


def set_precision(session, problems, precision, precision_of, max_photons):
    """Makes each problem's runs stop at a precision (precision None or 0:
    not; tmcml_problem_set_precision), every value checked (ValueError
    naming it).  Returns the quantity's name, or None without a precision."""
    if precision is None or (not isinstance(precision, bool) and precision == 0):
        for name, value in (("precision_of", precision_of), ("max_photons", max_photons)):
            if value is not None:
                raise ValueError("%s: only with precision (got %r)" % (name, value))
        return None
    if isinstance(precision, bool) or not isinstance(precision, numbers.Real) or \
            not 0.0 < float(precision) < 1.0:
        raise ValueError("precision: expected a relative standard error above 0 and below 1 "
                         "(0.01 for 1 %%) (got %r)" % (precision,))
    if precision_of is not None and not isinstance(precision_of, str):
        raise ValueError("precision_of: expected a quantity's name, 'Rd', 'A', 'Tt', "
                         "'Rd_r[40]' or 'Rd_r[0:100]' (got %r)" % (precision_of,))
    if max_photons is not None and (isinstance(max_photons, bool) or
                                    not isinstance(max_photons, numbers.Integral) or
                                    not 64000 <= max_photons < 2**63):
        raise ValueError("max_photons: expected None (the run's photons) or at least 64000 "
                         "(the 64 groups of 1000 a precision run decides after) (got %r)"
                         % (max_photons,))
    if lib.tmcml_problem_set_precision is None:
        raise RuntimeError("precision: this libtmcml (%s) is older than "
                           "tmcml_problem_set_precision (TMCML_1.4)" % _lib.path)
    of = precision_of.encode("utf-8") if precision_of is not None else None
    for p in problems:
        try:
            session.call(lib.tmcml_problem_set_precision, p.handle, float(precision), of,
                         int(max_photons or 0))
        except _lib.TmcmlArgumentError as e:
            text = str(e)  # the library names its field: "of ..."
            raise ValueError("precision_" + text if text.startswith("of") else text) from None
    return precision_of or "Rd"


def set_run_keywords(session, problems, path_lengths, jacobian, source, time_bins, detector,
                     stderr, precision, precision_of, max_photons, spatial_frequencies=None,
                     modulation=None, xy=None):
    """What tmcml.run, run_batch and run_mci ask of each problem's runs
    with these keywords, asked in this order (the first refused raises):
    path lengths, derivatives, source, time bins and detector, spatial
    and modulation frequencies, the Cartesian grid, standard errors,
    precision.  Returns set_precision's quantity name (None without a
    precision)."""
    set_path_lengths(session, problems, path_lengths)
    set_jacobian(session, problems, jacobian)
    set_source(session, problems, source)
    set_time_and_detector(session, problems, time_bins, detector)
    set_spatial_frequencies(session, problems, spatial_frequencies)
    set_modulation(session, problems, modulation)
    set_xy(session, problems, xy)
    set_stderr(session, problems, stderr)
    return set_precision(session, problems, precision, precision_of, max_photons)


def warn_unmet(results, of, stacklevel=3):
    """A tmcml.PrecisionWarning for each result that stopped at max_photons
    short of its precision."""
    for i, r in enumerate(results):
        p = r.precision
        if p is not None and not p["met"]:
            which = "" if len(results) == 1 else "result %d: " % i
            warnings.warn("%smax_photons %d reached with %s's relative standard error %.3g %% "
                          "(asked %.3g %%): the result is valid, the precision not met"
                          % (which, p["max_photons"], of, 100 * p["reached"], 100 * p["asked"]),
                          _lib.PrecisionWarning, stacklevel=stacklevel)


def warn_low_ess(results, stacklevel=3):
    """A tmcml.LowEffectiveSampleSizeWarning for each optics set whose
    effective sample size is below tmcml.LOW_ESS."""
    for k, r in enumerate(results):
        if r.ess_low:
            warnings.warn("optics_sets[%d] (set %d): effective sample size %.3g of the "
                          "reference's, below tmcml.LOW_ESS (%g): its values and standard "
                          "errors rest on a few heavy histories; simulate it on its own or "
                          "nearer the run's optics" % (k, k + 1, r.ess, _lib.LOW_ESS),
                          _lib.LowEffectiveSampleSizeWarning, stacklevel=stacklevel)
