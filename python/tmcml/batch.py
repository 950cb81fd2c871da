"""tmcml.run_batch and BatchResult: many problems of one shape (layer count
and grid) in as few GPU launches as the library can (docs/batches.md),
each result equal bit for bit to tmcml.run of its problem with the same
seed."""

import numpy as np

from . import _lib
from .problem import Problem, count, require_real
from .result import JACOBIAN_OF, KEYS, Result, _view_keys, _with_stderr, unit_of
from .runner import execute_batch, options, set_run_keywords, warn_unmet
from .session import default_session

# The stacked arrays and scalars of a BatchResult: Result's names (its
# arrays as the library lists them).
_STACKED = (KEYS + ("layers", "n_above", "n_below", "photons", "steps", "trapped_photons",
             "trapped_weight"))
# What every result of a batch shares: the grid and how it ran.
_SHARED = ("dz", "dr", "nz", "nr", "na", "da", "r", "z", "a", "t", "seed", "absorption",
           "engine", "device", "kernel", "variant")


def _shared(results, name):
    """The frequencies (result.fx, result.modulation) or the Cartesian
    cells' centres (result.x) every result has, the same (the keyword gives
    every problem the same), else None."""
    first = getattr(results[0], name)
    same = first is not None and all(getattr(r, name) is not None and
                                     np.array_equal(getattr(r, name), first) for r in results)
    return first if same else None


class BatchResult:
    """The results of run_batch: each of Result's quantities stacked on a first
    axis of B (Rd has shape (B,), A_rz (B, nr, nz), layers (B, L, 5), ...);
    the grid and how the batch ran (dz, dr, nz, nr, na, r, z, a, seed, engine,
    kernel, ...) as one value.  batch[b] is problem b's Result (which reads
    like a dict); len() and iteration go over them.  batch['Rd'] and
    to_dict() give the stacked quantities by name (Result's keys()).  With
    standard errors (stderr=True), stderr(name) stacks the results' (shape
    (B,) + the quantity's), as do batch['Rd_stderr'] and the like when every
    result has them.  With the derivatives (jacobian=True; has_jacobian when
    every result has them), jacobian(name) stacks the results' (shape (B,)
    + Result.jacobian(name)'s), and the NAME_jacobian arrays are stacked as
    the others.  ess: each result's effective sample size (Result.ess), an
    array of shape (B,), NaN for a result that is not an optics set's
    (tmcml.run(..., optics_sets=...))."""

    def __init__(self, results):
        if not results:
            raise ValueError("a BatchResult needs at least one result")
        self.results = list(results)
        # The optional arrays when every result has them, else None.
        self.path_lengths = all(r.path_lengths for r in self.results)
        self.has_jacobian = all(r.has_jacobian for r in self.results)
        optional = tuple(a for a in _lib.OPTIONAL_ARRAYS
                         if all(getattr(r, a) is not None for r in self.results))
        self._names = KEYS + optional
        every = all(r.stderr_groups for r in self.results)
        first = self.results[0]
        self.fx = _shared(self.results, "fx")
        self.modulation = _shared(self.results, "modulation")
        self.x = _shared(self.results, "x")
        self.xy = first.xy if self.x is not None else None
        self._keys = (_with_stderr(self._names, first.stderr_keys() if every else ()) +
                      _view_keys(first.t is not None, first.absorption, self.fx is not None,
                                 self.modulation is not None, self.x is not None))
        for name in _lib.OPTIONAL_ARRAYS:
            setattr(self, name, None)
        for name in _STACKED + optional:
            setattr(self, name, np.stack([np.asarray(getattr(r, name)) for r in self.results]))
        for name in _SHARED:
            setattr(self, name, getattr(self.results[0], name))
        self.ess = np.array([np.nan if r.ess is None else r.ess for r in self.results])

    def __len__(self):
        return len(self.results)

    def _value(self, key):
        if key.endswith("_stderr") and key not in self._names:
            return self.stderr(key[:-len("_stderr")])
        if key == "fluence":
            return self.fluence()
        return getattr(self, key)

    @property
    def units(self):
        """{key: unit} of every key (Result.units)."""
        return {k: unit_of(k) for k in self._keys}

    def __getitem__(self, b):
        if isinstance(b, str):
            if b not in self._keys:
                raise KeyError("%r: this BatchResult has %s" % (b, ", ".join(self._keys)))
            return self._value(b)
        if isinstance(b, slice):
            return BatchResult(self.results[b])
        return self.results[b]

    def __iter__(self):
        return iter(self.results)

    def __repr__(self):
        return "<tmcml.BatchResult of %d runs, grid %dx%dx%d>" % (len(self), self.nr, self.nz,
                                                                 self.na)

    def keys(self):
        return list(self._keys)

    def to_dict(self):
        """{name: stacked array} of every quantity (Result.keys()): Rd of
        shape (B,), A_rz (B, nr, nz), ..."""
        return {k: self._value(k) for k in self._keys}

    def stderr(self, name):
        """Each result's standard error of quantity `name` (Result.stderr),
        stacked: shape (B,) + the quantity's (B,) for 'Rd'.  ValueError
        naming the results that have none (run with stderr=True)."""
        missing = [b for b, r in enumerate(self.results) if not r.stderr_groups]
        if missing and name in self._names:
            raise ValueError(self._missing("stderr", name, missing, "no standard errors",
                                           "stderr=True"))
        return np.stack([np.asarray(r.stderr(name)) for r in self.results])

    def jacobian(self, name):
        """Each result's derivatives of quantity `name` (Result.jacobian:
        'Rd', 'Rd_r', ...), stacked: shape (B,) + the Jacobian's, (B, L, 3)
        for 'Rd', (B, nr, L, 3) for 'Rd_r'.  ValueError naming the results
        that have none (run with jacobian=True)."""
        missing = [b for b, r in enumerate(self.results) if not r.has_jacobian]
        if missing and name in JACOBIAN_OF:
            raise ValueError(self._missing("jacobian", name, missing, "no derivatives",
                                           "jacobian=True"))
        return np.stack([r.jacobian(name) for r in self.results])

    def _missing(self, method, name, missing, lacking, keyword):
        """The message of method(name) on a batch whose results `missing`
        lack what it gives."""
        return ("BatchResult.%s(%r): result%s %s of %d %s %s: run with %s"
                % (method, name, "s" if len(missing) > 1 else "",
                   ", ".join(map(str, missing[:10])) + (", ..." if len(missing) > 10 else ""),
                   len(self), "have" if len(missing) > 1 else "has", lacking, keyword))

    def fluence(self):
        """Each result's fluence [1/cm2], stacked: shape (B, nr, nz)."""
        return np.stack([r.fluence() for r in self.results])


def _per_problem(name, value, b):
    """A keyword given once for every problem, or once per problem."""
    if np.ndim(value) == 0:
        return [value] * b
    values = list(value)
    if len(values) != b:
        raise ValueError("%s: expected one value or %d (one per problem), got %d"
                         % (name, b, len(values)))
    return values


def _layer_lists(layers):
    require_real("layers", layers)  # each problem's element named: layers[b][i][k]
    if isinstance(layers, np.ndarray):
        if layers.ndim != 3 or layers.shape[2] != 5:
            raise ValueError("layers: expected shape (B, L, 5) (got %s)" % (layers.shape,))
        return list(layers)
    try:
        lists = list(layers)
    except TypeError:
        raise ValueError("layers: expected B layer lists or an array of shape (B, L, 5)")
    if not lists:
        raise ValueError("layers: no problems")
    return lists


def run_batch(layers, n_above=1.0, n_below=1.0, photons=10**6, dz=0.01, dr=0.01, nz=200, nr=500,
              na=30, seed=1, engine="auto", absorption=True, gpu=0, threads=None, progress=True,
              policy="profile", cache_dir=None, profile_dir=None, max_steps=None, session=None,
              path_lengths=False, source=None, time_bins=None, detector=None, stderr=False,
              precision=None, precision_of=None, max_photons=None, jacobian=False,
              spatial_frequencies=None, modulation=None, xy=None):
    """Simulates B problems that share a layer count and a grid: layers has
    shape (B, L, 5) or is a list of B layer lists (rows [n, mua, mus, g, d],
    top first; cm and 1/cm); n_above and n_below are one value or B.  The
    other keywords are tmcml.run's, for every problem.  Returns a
    BatchResult whose item [b] is bit for bit tmcml.run of problem b with the
    same seed.  One call is one batch: a lookup table costs its photons, not
    its number of runs.  path_lengths=True: every problem's path lengths;
    jacobian=True: every problem's derivatives (BatchResult.jacobian
    stacks them; the CPU engine);
    source, time_bins, detector, spatial_frequencies, modulation and xy:
    every problem's
    (tmcml.run's keywords;
    a batch of several problems with time bins or a detector runs on the CPU
    engine); stderr=True: every problem's standard errors (BatchResult.stderr
    stacks them), each bit for bit those of its run alone.  precision,
    precision_of and max_photons: every problem's (tmcml.run's keywords),
    each problem stopping on its own at its run alone's photons; a
    tmcml.PrecisionWarning for each that did not meet it."""
    session = session or default_session()
    lists = _layer_lists(layers)
    b = len(lists)
    count("layers (problems)", b, 1, 1000000)
    above = _per_problem("n_above", n_above, b)
    below = _per_problem("n_below", n_below, b)
    opt = options(photons, seed, engine, absorption, threads, gpu, policy, cache_dir,
                  profile_dir, max_steps)
    problems = [Problem.from_arrays(session, lists[i], above[i], below[i], dz, dr, nz, nr, na)
                for i in range(b)]
    of = set_run_keywords(session, problems, path_lengths, jacobian, source, time_bins, detector,
                          stderr, precision, precision_of, max_photons,
                          spatial_frequencies=spatial_frequencies, modulation=modulation, xy=xy)
    handles, seconds = execute_batch(session, problems, opt, opt.photons * b, progress)
    results = [Result(h, session, seconds) for h in handles]
    warn_unmet(results, of)
    return BatchResult(results)
