"""tmcml.run and tmcml.devices: the package's entry points over the library."""

import ctypes
import math
import numbers
import os
from collections.abc import Mapping

import numpy as np

from . import _lib
from ._lib import lib
from .problem import Problem, require_real
from .result import Result
from .runner import (execute, execute_checkpointed, execute_optics_sets, execute_sets, options,
                     set_run_keywords, warn_low_ess, warn_unmet)
from .session import default_session


def problem_from_arrays(session, layers, n_above=1.0, n_below=1.0, dz=0.01, dr=0.01, nz=200,
                        nr=500, na=30):
    return Problem.from_arrays(session, layers, n_above, n_below, dz, dr, nz, nr, na)


def run(layers, n_above=1.0, n_below=1.0, photons=10**6, dz=0.01, dr=0.01, nz=200, nr=500,
        na=30, seed=1, engine="auto", absorption=True, gpu=0, threads=None, progress=True,
        policy="profile", cache_dir=None, profile_dir=None, max_steps=None, session=None,
        mua_sets=None, path_lengths=False, source=None, time_bins=None, detector=None,
        checkpoint=None, checkpoint_every=600.0, resume=False, stderr=False, precision=None,
        precision_of=None, max_photons=None, jacobian=False, optics_sets=None,
        spatial_frequencies=None, modulation=None, xy=None):
    """Simulates photons photons through layers (rows [n, mua, mus, g, d],
    top first; cm and 1/cm) between media of indices n_above and n_below, on
    MCML's grid (dz, dr in cm; nz, nr, na bins) and returns a Result.
    tmcml.run(cfg) with a dict of these keywords (as pmcx.run takes one) is
    the same call.

    seed: equal seeds give bit-identical tallies (and the run command's .mco
    for the same problem).  engine: 'auto' (the GPU when one is usable),
    'cpu' or 'gpu'.  absorption=False is MCML's -A.  threads: CPU engine
    threads (None or 0: every core).  gpu: the GPU's index.  policy: how the GPU
    kernel variant is chosen - 'profile' (a profile entry, else the
    heuristic), 'heuristic', 'auto' (tune first when the run repays it) or
    'tune'.  progress: a progress bar for runs longer than a second (tqdm
    when installed).  session: a tmcml.Session (default: the process's, which
    keeps the GPU context and kernel between calls: a loop that varies only
    optical properties compiles once).  Ctrl-C stops the run and raises
    KeyboardInterrupt.  Bad arguments raise ValueError naming the parameter.

    mua_sets: an array of shape (K, L), K absorption sets of the L layers' mua
    [1/cm] (the layers' own mua are then not used), scored from one
    simulation (docs/physics.md, "Absorption sets"; exact in expectation),
    on either engine.  absorption=False scores the sets' escapes alone (a
    set's A is then 1 - Rsp - Rd - Tt - trapped), much faster on a GPU than
    a deposit per set per interaction.
    Returns a BatchResult of the K sets: Rd of shape (K,), A_rz (K, nr, nz),
    ...; [k] is set k's Result.

    optics_sets: an array of shape (K, L, 3), K sets of each layer's (mua,
    mus, g) (docs/library.md, "Optics sets in Python"), scored from one
    simulation with the first set's mus and g, each set reweighted by the
    likelihood ratio of its histories (exact in expectation), on either
    engine.  Not with mua_sets.
    A layer that scatters keeps scattering (mus > 0), glass keeps mus 0
    and its g, |g| < 1; a layer of g +-1 keeps it.  Returns a BatchResult as
    mua_sets does; each set's Result has ess, its effective sample size as
    a fraction of the reference's (BatchResult.ess: (K,)), and ess_low
    (below tmcml.LOW_ESS, 0.1, with a tmcml.LowEffectiveSampleSizeWarning:
    its values rest on a few heavy histories).  With jacobian=True every
    set keeps the layers' own g.

    path_lengths=True also scores the partial path lengths, on the CPU engine
    or, with mua_sets, on a GPU (otherwise engine='auto' takes the CPU and
    'gpu' is refused): Rd_path and Tt_path [nr, L],
    the mean path [cm] in each layer of the weight leaving the top (bottom)
    in each ring, and Rd_path_total, Tt_path_total [L] over every ring (the
    differential path lengths of the modified Beer-Lambert law; with
    mua_sets, each set's).  docs/outputs.md, "Path lengths".

    jacobian=True also scores the derivatives of the escapes by each layer's
    mua, mus and g, from the run's own photons (docs/physics.md,
    "Derivatives"), on either engine (with time_bins, a detector or
    path_lengths the CPU: engine='auto' takes it, 'gpu' is refused):
    result.jacobian('Rd_r') of shape (nr, L, 3), the last axis
    d/dmua, d/dmus, d/dg (tmcml.JACOBIAN_PARAMS); 'Rd', 'Tt' (L, 3), 'Tt_r',
    'Rd_a', 'Tt_a' too, also as attributes Rd_r_jacobian, ...  NaN where a
    layer has no such derivative (mus and g of a layer that does not
    scatter, g of |g| = 1).  Every other array is bit for bit the run's
    without it; with stderr=True the Jacobians have standard errors
    (result.stderr('Rd_r_jacobian')); with mua_sets, each set's.

    source: where photons start (docs/physics.md, "Sources"): None for MCML's
    pencil beam, tmcml.GaussianBeam(w), tmcml.FlatBeam(r) (radius > 0),
    tmcml.IsotropicPoint(z0), tmcml.FiberSource(radius, na) or
    tmcml.ObliqueBeam(angle) (degrees of incidence, 0 <= angle < 90, in the
    x-z plane at x = y = 0: it needs xy=, and refuses time_bins, detector,
    spatial_frequencies, modulation, jacobian, mua_sets and optics_sets,
    which assume a beam along the axis; the CPU engine).  Recorded in the
    result's .mco and JSON; both engines but for ObliqueBeam.

    time_bins=(dt, nt) also scores reflectance and transmittance against
    time of flight in nt bins of dt ns, the last collecting the later
    escapes (Rd_rt, Tt_rt [nr, nt] in 1/(cm2 ns), Rd_t, Tt_t [nt] in 1/ns;
    sum(Rd_t) * dt == Rd).  detector=tmcml.FiberDetector(separation, radius,
    na) also scores a fiber detector (Rd_fiber, a float); a list of up to 16
    scores each from the same photons (Rd_fiber an array, one value a
    detector, each bit for bit its value in a run of the same seed with that
    detector alone).  Both engines score them (with mua_sets, optics_sets
    or jacobian on the GPU the sets' kernel; run_batch of several problems
    on the CPU: engine='auto' takes it, 'gpu' is refused).
    docs/outputs.md, "Time-resolved"; docs/physics.md, "Fiber detector".
    spatial_frequencies=[0, 0.5, 1] (a sequence, in 1/cm) also scores R(fx)
    and T(fx), the Hankel transforms of the reflectance and transmittance
    (each escape adds w J0(2 pi fx rho)): result.Rd_fx, Tt_fx, one value a
    frequency (Rd_fx[0] is Rd at fx = 0), and result.fx; 1 to 1024
    frequencies, each 0 to 1e4 1/cm.  Both engines: the GPU for a run alone
    of up to 128 frequencies; with mua_sets, optics_sets or jacobian, or
    more, the CPU ('auto' takes it; 'gpu' is refused); docs/physics.md,
    "Spatial frequencies".
    modulation=[100e6, 200e6] (a sequence, in Hz) also scores the
    reflectance in the frequency domain, each escape through the top adding
    w exp(-i 2 pi f t), t its time of flight: result.Rd_r_ac [nr, F] (its
    amplitude per ring, 1/cm2, normalised as Rd_r), Rd_r_phase [nr, F] (its
    phase lag, rad, in (-pi, pi]), Rd_ac and Rd_phase [F] (over every ring;
    Rd_ac a fraction as Rd), and result.modulation (Hz); 1 to 256
    frequencies, each 1e3 to 1e10 Hz.  The CPU engine ('auto' takes it;
    'gpu' is refused); docs/physics.md, "Frequency domain".
    xy=(dx, nx) also scores on a Cartesian grid of nx x nx square cells of
    dx cm centred on the entry point (x, y in [-nx dx / 2, nx dx / 2)):
    result.Rd_xy and Tt_xy [nx, nx] ([ix, iy], 1/cm2), A_xz [nx, nz] (the
    absorption in the x-z plane integrated over y, 1/cm2), result.x (the
    cells' centres, cm) and result.xy; what lands beyond the grid is not in
    it; nx 1 to 4096, (2 nx^2 + nx nz) x 8 bytes a thread.  The CPU engine
    ('auto' takes it; 'gpu' is refused); docs/outputs.md, "Cartesian
    grid".

    checkpoint: a file the run is kept in (docs/library.md, "Checkpoints"):
    the photons done are written there every checkpoint_every seconds and
    when the run is stopped (Ctrl-C); resume=True continues from it, and the
    result is then bit for bit the uninterrupted run's.  The file is removed
    when the run ends; one of another run (another seed, problem, photons or
    engine) is refused with OSError naming what differs, and a file there
    without resume=True is refused too.  Not with mua_sets or optics_sets.

    stderr=True also estimates the standard error of every output by batch
    means (docs/library.md, "Standard errors"): the photons in 64 groups by
    index, the spread of the groups' results.  The results are bit for bit
    those without it; result.stderr(name) gives an error of the shape of
    result.<name> (result.stderr('Rd') a float), result['Rd_r_stderr'] the
    same, and result.plot() draws Rd(r) and A(z) with a band of +-1
    standard error.  With mua_sets every set's; with checkpoint, the same
    errors whether the run is stopped and continued (resume=True) or not.

    precision=P (0 < P < 1, 0.01 for 1 %) stops the run once the relative
    standard error of precision_of ('Rd' by default; 'A', 'Tt', an entry
    'Rd_r[40]' or the worst of a range 'Rd_r[0:100]') is at most P, or at
    max_photons (None: photons; at least 64000), as `tmcml run --precision`
    does, with the same photons and result bit for bit (docs/library.md,
    "Runs that stop at a precision").  The photons are simulated in growing
    groups, decided at fixed counts, so a seed gives the same photons on
    every engine and across a checkpoint's resume.  It implies stderr=True.
    result.precision: {asked, reached, photons, max_photons, met}.  A run
    that reaches max_photons first returns its (valid) result with met False
    and emits a tmcml.PrecisionWarning naming the quantity, reached and
    asked.  With mua_sets the sets share their photons and stop together,
    once the worst set has reached P."""
    if isinstance(layers, Mapping):
        return _run_config(layers, locals())
    if mua_sets is not None and optics_sets is not None:
        raise ValueError("mua_sets, optics_sets: one or the other (each optics set gives its "
                         "layers' mua too)")
    session = session or default_session()
    opt = options(photons, seed, engine, absorption, threads, gpu, policy, cache_dir,
                  profile_dir, max_steps)
    problem = problem_from_arrays(session, layers, n_above, n_below, dz, dr, nz, nr, na)
    of = set_run_keywords(session, [problem], path_lengths, jacobian, source, time_bins, detector,
                          stderr, precision, precision_of, max_photons,
                          spatial_frequencies=spatial_frequencies, modulation=modulation, xy=xy)
    if mua_sets is not None or optics_sets is not None:
        which = "mua_sets" if mua_sets is not None else "optics_sets"
        if checkpoint is not None:
            raise ValueError("checkpoint: a run with %s is not kept in a checkpoint file "
                             "(yet): leave one of them out" % which)
        if optics_sets is not None:
            sets = _run_optics_sets(session, problem, optics_sets, opt, progress)
        else:
            sets = _run_sets(session, problem, mua_sets, opt, progress)
        warn_unmet(sets.results, of)
        warn_low_ess(sets.results)
        return sets
    if checkpoint is not None:
        kept = checkpoint_of(checkpoint, checkpoint_every, resume)
        handle, seconds = execute_checkpointed(session, problem, opt, kept, progress)
    else:
        handle, seconds = execute(session, problem, opt, progress)
    result = Result(handle, session, seconds)
    warn_unmet([result], of)
    return result


def _run_config(config, given):
    """run(cfg): a dict of run's keyword arguments, as pmcx.run takes one; a
    keyword given both in it and beside it is refused (which would win?)."""
    import inspect
    names = list(inspect.signature(run).parameters)
    unknown = sorted(k for k in config if k not in names)
    if unknown:
        raise TypeError("run(cfg): %r is not a keyword of tmcml.run (they are %s)"
                        % (unknown[0], ", ".join(names)))
    defaults = {k: p.default for k, p in inspect.signature(run).parameters.items()}
    both = sorted(k for k in config if k != "layers" and given[k] is not defaults[k])
    if both:
        raise TypeError("run(cfg): %r given in cfg and as a keyword: give it once" % both[0])
    if "layers" not in config:
        raise TypeError("run(cfg): cfg has no 'layers'")
    merged = {k: v for k, v in given.items() if k in names and k != "layers"}
    merged.update(config)
    return run(**merged)


def checkpoint_of(path, every, resume):
    """The _lib.Checkpoint of run's checkpoint arguments, checked."""
    if not isinstance(path, (str, bytes, os.PathLike)) or not os.fspath(path):
        raise ValueError("checkpoint: expected a file name (got %r)" % (path,))
    if isinstance(every, bool) or not isinstance(every, numbers.Real) or \
            not math.isfinite(every) or every < 0:
        raise ValueError("checkpoint_every: expected seconds, 0 or more (got %r)" % (every,))
    if not isinstance(resume, (bool, np.bool_)):
        raise ValueError("resume: expected True or False (got %r)" % (resume,))
    return _lib.Checkpoint(os.fsencode(os.fspath(path)), float(every), int(bool(resume)))


def _run_sets(session, problem, mua_sets, opt, progress):
    from .batch import BatchResult  # batch.py imports this module

    layers = lib.tmcml_problem_num_layers(problem.handle)
    require_real("mua_sets", mua_sets)
    try:
        table = np.array(mua_sets, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        raise ValueError("mua_sets: expected numbers, an array of shape (K, %d)" % layers)
    if table.ndim != 2 or table.shape[1] != layers or not 1 <= table.shape[0] <= _lib.SETS_MAX:
        raise ValueError("mua_sets: expected shape (K, %d), 1 <= K <= %d: a row of the %d "
                         "layers' mua a set (got %s)" % (layers, _lib.SETS_MAX, layers,
                                                         table.shape))
    handles, seconds = execute_sets(session, problem, table, opt, progress)
    return BatchResult([Result(h, session, seconds) for h in handles])


# A set's row of one layer, in tmcml_run_optics_sets's order.
_OPTICS_PARAMS = ("mua", "mus", "g")


def _run_optics_sets(session, problem, optics_sets, opt, progress):
    from .batch import BatchResult  # batch.py imports this module

    table = optics_table(lib.tmcml_problem_num_layers(problem.handle), optics_sets)
    handles, seconds = execute_optics_sets(session, problem, table, opt, progress)
    return BatchResult([Result(h, session, seconds) for h in handles])


def optics_table(layers, optics_sets):
    """optics_sets as the C-ordered float64 array (K, layers, 3) that
    tmcml_run_optics_sets reads, its shape and numbers checked (ValueError
    naming the element); the rules of each layer's values are the
    library's (its messages number sets and layers from 1)."""
    expected = ("expected shape (K, %d, 3), 1 <= K <= %d: for each set, a row (mua, mus, g) "
                "per layer (%d layers)" % (layers, _lib.SETS_MAX, layers))
    require_real("optics_sets", optics_sets)
    try:
        table = np.array(optics_sets, dtype=np.float64, order="C")
    except (TypeError, ValueError):
        raise ValueError("optics_sets: %s (got %s)" % (expected, _what(optics_sets))) from None
    if table.ndim != 3 or table.shape[1:] != (layers, 3) or \
            not 1 <= table.shape[0] <= _lib.SETS_MAX:
        raise ValueError("optics_sets: %s (got shape %s)" % (expected, table.shape))
    bad = np.argwhere(~np.isfinite(table))
    if len(bad):
        k, i, j = (int(x) for x in bad[0])
        raise ValueError("optics_sets[%d, %d, %d] (%s of layer %d in set %d): not a finite "
                         "number (%r)" % (k, i, j, _OPTICS_PARAMS[j], i + 1, k + 1,
                                          float(table[k, i, j])))
    return table


def _what(value):
    """A short description of a value that is not an array of numbers."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def devices(session=None):
    """The GPUs of this machine as dicts (index, name, compute_capability,
    sm_count, total_memory, free_memory, driver_version); [] where there is no
    driver or no GPU."""
    session = session or default_session()
    found = (_lib.Device * 64)()
    n = ctypes.c_int()
    try:
        session.call(lib.tmcml_devices, found, 64, ctypes.byref(n))
    except _lib.NoGPUError:
        return []
    return [{"index": d.index, "name": d.name.decode("utf-8", "replace"),
             "compute_capability": (d.cc_major, d.cc_minor), "sm_count": d.sm_count,
             "total_memory": int(d.total_memory), "free_memory": int(d.free_memory),
             "driver_version": d.driver_version} for d in found[:min(n.value, 64)]]
