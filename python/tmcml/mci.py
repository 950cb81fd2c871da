"""MCML input files: every run of a .mci simulated, and problems written as
a .mci (through the library's writer, which the run command reads back)."""

import ctypes
import os

from . import _lib
from ._lib import lib
from .problem import Problem, count, describe
from .result import Result
from .runner import execute_batch, options, set_run_keywords, warn_unmet
from .session import default_session


class _ProblemArray:
    """The array of problems tmcml_mci_read made, freed as a whole."""

    def __init__(self, runs, n):
        self.runs, self.n = runs, n

    def __del__(self):
        lib.tmcml_problems_delete(self.runs, self.n)


def read_problems(session, path):
    """The runs of a .mci file as Problems."""
    runs = ctypes.POINTER(ctypes.c_void_p)()
    n = ctypes.c_int()
    session.call(lib.tmcml_mci_read, _lib.encode_path(path), ctypes.byref(runs), ctypes.byref(n))
    owner = _ProblemArray(runs, n.value)
    return [Problem(runs[i], owned=False, keeper=owner) for i in range(n.value)]


def _shape(problem):
    """What the runs of a batch share: the layer count and the grid."""
    d = describe(problem.handle)
    return (len(d["layers"]), d["dz"], d["dr"], d["nz"], d["nr"], d["na"])


def run_mci(path, photons=None, seed=1, engine="auto", absorption=True, gpu=0, threads=None,
            progress=True, policy="profile", cache_dir=None, profile_dir=None, max_steps=None,
            session=None, path_lengths=False, source=None, time_bins=None, detector=None,
            stderr=False, precision=None, precision_of=None, max_photons=None, jacobian=False,
            spatial_frequencies=None, modulation=None, xy=None):
    """Simulates every run of the .mci file at path (photons: None for the
    file's counts, else this many in every run) and returns their Results,
    in the file's order.  Runs of one layer count and grid are simulated
    together, as the run command does: each Result is the run's alone.
    path_lengths=True: every run's path lengths; jacobian=True: every run's
    derivatives (several runs: the CPU engine); source, time_bins,
    detector, spatial_frequencies, modulation, xy, stderr, precision, precision_of and
    max_photons: every run's
    (tmcml.run's keywords; each run stops on its own)."""
    session = session or default_session()
    problems = read_problems(session, path)
    of = set_run_keywords(session, problems, path_lengths, jacobian, source, time_bins, detector,
                          stderr, precision, precision_of, max_photons,
                          spatial_frequencies=spatial_frequencies, modulation=modulation, xy=xy)
    opt = options(1 if photons is None else photons, seed, engine, absorption, threads, gpu,
                  policy, cache_dir, profile_dir, max_steps)
    if photons is None:
        opt.photons = 0  # each run's own count
    groups = {}
    for i, p in enumerate(problems):
        groups.setdefault(_shape(p), []).append(i)
    results = [None] * len(problems)
    for members in groups.values():
        batch = [problems[i] for i in members]
        total = sum(lib.tmcml_problem_photons(p.handle) if photons is None else opt.photons
                    for p in batch)
        label = "%d runs: " % len(batch) if len(batch) > 1 else ""
        handles, seconds = execute_batch(session, batch, opt, total, progress, label)
        for i, h in zip(members, handles):
            results[i] = Result(h, session, seconds)
    warn_unmet(results, of)
    return results


def save_mci(path, layers=None, n_above=1.0, n_below=1.0, photons=10**6, dz=0.01, dr=0.01,
             nz=200, nr=500, na=30, out_name=None, runs=None, session=None):
    """Writes an MCML 1.2.2 input file: one run of these parameters, or
    several (runs: a list of dicts of the same keywords).  out_name: the run's
    .mco name (default: this file's name with .mco)."""
    session = session or default_session()
    encoded = _lib.encode_path(path)  # a bad path refused before any work
    from .api import problem_from_arrays

    if runs is None:
        runs = [dict(layers=layers, n_above=n_above, n_below=n_below, photons=photons, dz=dz,
                     dr=dr, nz=nz, nr=nr, na=na, out_name=out_name)]
    elif layers is not None:
        raise ValueError("save_mci: give layers or runs, not both")
    stem = os.path.splitext(os.path.basename(os.fspath(path)))[0]
    problems = []
    for i, run in enumerate(runs):
        run = dict(run)
        name = run.pop("out_name", None) or (stem + ".mco" if len(runs) == 1
                                             else "%s_%d.mco" % (stem, i + 1))
        n = count("photons", run.pop("photons", 10**6), 1, 2**63 - 1)
        p = problem_from_arrays(session, **run)
        session.call(lib.tmcml_problem_set_photons, p.handle, n)
        session.call(lib.tmcml_problem_set_name, p.handle, _lib.encode_path(name))
        problems.append(p)
    handles = (ctypes.c_void_p * len(problems))(*[p.handle for p in problems])
    session.call(lib.tmcml_mci_write, encoded, handles, len(problems))
