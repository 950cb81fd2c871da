"""tmcml.lut: a lookup table of diffuse reflectance, total and per ring, of
one homogeneous layer over a grid of mua and mus' (docs/lut.md), made by the
library (tmcml_lut): the table `tmcml lut` writes, its arrays those of the
command's OUT.npz bit for bit for the same options."""

import ctypes
import math
import numbers
import os

import numpy as np

from . import _lib
from .api import checkpoint_of
from .problem import SEMI_INFINITE_D, count, require_real
from .runner import execute_lut, options
from .session import default_session

STRATEGIES = ("auto", "sets", "runs")  # tmcml_lut_strategy: the index
# The .npz's members, in its order, and their units (docs/lut.md).
UNITS = (("mua", "1/cm"), ("musp", "1/cm"), ("Rd", "-"), ("Rd_r", "1/cm2"), ("r", "cm"),
         ("dr", "cm"), ("Rsp", "-"), ("n", "-"), ("n_above", "-"), ("n_below", "-"), ("g", "-"),
         ("d", "cm"), ("photons", "-"), ("seed", "-"), ("strategy", "-"), ("engine", "-"),
         ("version", "-"))
MEMBERS = tuple(name for name, _ in UNITS) + ("units",)


class LookupTable:
    """A table of lut(): the members of `tmcml lut`'s OUT.npz as attributes
    of the same names, dtypes' values and shapes - mua (K,), musp (M,), Rd
    (M, K), Rd_r (M, K, nr) in 1/cm2, r (nr,) the rings' centres, dr, Rsp, n,
    n_above, n_below, g, d (1e8 for semi-infinite), photons, seed, strategy
    ('sets' or 'runs'), engine ('cpu' or 'gpu'), version, units (a dict:
    name -> unit, as dict(npz['units'])) - and trapped (photons stopped as
    never ending) and seconds (the call's).  rd, rd_r and rsp are Rd, Rd_r
    and Rsp.  It reads like a dict of the .npz's members: t['Rd'],
    t.keys(), t.to_dict()."""

    def __init__(self, values, trapped, seconds):
        for name in MEMBERS:
            setattr(self, name, values[name])
        self.trapped = trapped
        self.seconds = seconds

    rd = property(lambda self: self.Rd)
    rd_r = property(lambda self: self.Rd_r)
    rsp = property(lambda self: self.Rsp)

    def keys(self):
        return MEMBERS

    def __getitem__(self, name):
        if name not in MEMBERS:
            raise KeyError("%r: a LookupTable has %s" % (name, ", ".join(MEMBERS)))
        return getattr(self, name)

    def __contains__(self, name):
        return name in MEMBERS

    def __iter__(self):
        return iter(MEMBERS)

    def __len__(self):
        return len(MEMBERS)

    def to_dict(self):
        return {name: getattr(self, name) for name in MEMBERS}

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


def lut(mua, musp, n=1.4, n_above=1.0, n_below=1.0, g=0.9, d=math.inf, nr=100, dr=0.01,
        photons=100000, seed=1, strategy="auto", engine="auto", threads=None, gpu=0,
        progress=True, checkpoint=None, checkpoint_every=600.0, resume=False, session=None):
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
    Bad arguments raise ValueError naming the parameter."""
    session = session or default_session()
    mua, musp = _axis("mua", mua), _axis("musp", musp)
    spec = _spec(mua, musp, n, n_above, n_below, g, d, nr, dr, strategy)
    opt = options(photons, seed, engine, False, threads, gpu, "profile", None, None, None)
    kept = checkpoint_of(checkpoint, checkpoint_every, resume) if checkpoint is not None else None
    rd = np.zeros((len(musp), len(mua)))
    rd_r = np.zeros((len(musp), len(mua), spec.nr))
    info = _lib.LutInfo()
    try:
        seconds = execute_lut(session, spec, opt, kept, rd, rd_r, info, progress)
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
    return LookupTable(values, int(info.trapped_photons), seconds)
