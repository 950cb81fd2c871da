"""The measurements a fit (tmcml.fit) compares the model with, and how the
model's values at them follow from its runs (docs/fit.md, "The data"):
- reflectance averaged over rings of the surface, Rd(r);
- fiber detectors (Rd_fiber), one run for all of them (16 a run);
- time-resolved reflectance, of the whole surface or of rings;
alone or at each wavelength of a spectrum.

A measured bin (a ring r +- w/2, a time bin t +- w/2) is an average over
the bin.  The model's grid is chosen with bins that tile every measured
bin, so its value there is the (area-)weighted mean of whole bins: exact,
no interpolation.  Each measurement has runs() (each run's keywords),
of_results() (the values, derivatives and errors from those runs), shape
and channels (the labels of its curves)."""

import math
import numbers

import numpy as np


def _array(name, value, ndim=None):
    """value as a float array, every element finite (ValueError naming the
    first that is not)."""
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("%s: expected an array of numbers (got %r)" % (name, value)) from None
    if ndim is not None and a.ndim not in ndim:
        raise ValueError("%s: expected %s dimensions (got shape %s)"
                         % (name, " or ".join(map(str, ndim)), a.shape))
    bad = np.argwhere(~np.isfinite(a))
    if len(bad):
        at = tuple(int(i) for i in bad[0])
        raise ValueError("%s[%s]: not a finite number (%r)"
                         % (name, ", ".join(map(str, at)), float(a[at])))
    return a


def measurement(data, sigma, shape):
    """(values, sigma) of data of the given shape: sigma is the values'
    standard errors (one value, or of their shape); without it, data holds
    repeated measurements along a first axis, and sigma is their standard
    error of the mean."""
    values = _array("data", data)
    repeated = sigma is None
    if repeated:
        if values.shape[1:] != shape or values.shape[0] < 2:
            raise ValueError("data: without sigma, expected repeated measurements of shape "
                             "(repeats >= 2,) + %s (got %s); or give sigma" % (shape, values.shape))
        repeats = values.shape[0]
        values, sigma = values.mean(axis=0), values.std(axis=0, ddof=1) / math.sqrt(repeats)
    else:
        if values.shape != shape:
            raise ValueError("data: expected shape %s to match the radii and wavelengths "
                             "(got %s)" % (shape, values.shape))
        given = _array("sigma", sigma)
        if given.ndim != 0 and given.shape != shape:
            raise ValueError("sigma: expected one value or shape %s (got %s)"
                             % (shape, given.shape))
        sigma = np.broadcast_to(given, shape).copy()
    if (values < 0).any():
        at = tuple(int(i) for i in np.argwhere(values < 0)[0])
        raise ValueError("data[%s]: negative reflectance (%r)" % (", ".join(map(str, at)),
                                                                  float(values[at])))
    if (sigma <= 0).any():
        at = tuple(int(i) for i in np.argwhere(sigma <= 0)[0])
        raise ValueError("sigma[%s]: must be positive (got %r)%s"
                         % (", ".join(map(str, at)), float(sigma[at]),
                            ": the repeated measurements there agree exactly" if repeated
                            else ""))
    return values, sigma


class _Bins:
    """Measured bins along one axis (the rings' radius, the time of flight):
    centres x, width w (default: the spacing of x), never overlapping; the
    model's step (the widest w / m whose multiples are every bin's edges,
    or the one given) and each bin's first and last model bin.  what, unit
    and step name the arguments in messages."""

    def __init__(self, x, width, step, what, unit, step_name, width_name):
        self.x = _array(what, x, (1,))
        if len(self.x) == 0:
            raise ValueError("%s: no values" % what)
        order = np.sort(self.x)
        if order[0] <= 0 or (np.diff(order) <= 0).any():
            raise ValueError("%s: expected distinct values > 0 [%s] (got %s)"
                             % (what, unit, self.x))
        spacing = np.diff(order).min() if len(order) > 1 else 2 * order[0]
        spacing = float("%.12g" % spacing)  # values read from text: 0.05, not 0.0499999
        self.width = _positive(width_name, width, unit) if width is not None else spacing
        if self.width > spacing * (1 + 1e-9):
            raise ValueError("%s: %g %s is more than the spacing of %s (%g %s): the bins "
                             "would overlap" % (width_name, self.width, unit, what, spacing, unit))
        low, high = self.x - self.width / 2, self.x + self.width / 2
        if low.min() < -1e-12 * self.width:
            raise ValueError("%s: %g %s makes the bin at %s = %g %s start below 0"
                             % (width_name, self.width, unit, what, self.x[np.argmin(low)], unit))
        self.step = _positive(step_name, step, unit) if step is not None else \
            _tiling(low, high, self.width, what, unit, step_name)
        if not (_on_grid(low, self.step) and _on_grid(high, self.step)):
            raise ValueError("%s: %g %s: the bins' edges (%s +- %s/2) are not multiples of it"
                             % (step_name, self.step, unit, what, width_name))
        self.first = np.round(low / self.step).astype(int)
        self.last = np.round(high / self.step).astype(int)
        # A run's last bin collects every escape beyond the grid (MCML's
        # overflow ring, the later escapes): one more than the measured.
        self.count = int(self.last.max()) + 2

    def weights(self, size_of):
        """(n, count): each measured bin's mean as the mean of the model's
        bins it is made of, bin k weighted by size_of(k)."""
        w = np.zeros((len(self.x), self.count))
        for i, (a, b) in enumerate(zip(self.first, self.last)):
            k = np.arange(a, b)
            w[i, k] = size_of(k) / size_of(k).sum()
        return w


class Rings:
    """Rings of the surface: centres r [cm], width ring_width; the model's
    grid (dr, nr) and the matrix from its Rd_r to the rings' means (ring
    k's area is (2k + 1) pi dr^2)."""

    def __init__(self, r, ring_width=None, dr=None):
        bins = _Bins(r, ring_width, dr, "r", "cm", "dr", "ring_width")
        self.r, self.width, self.dr, self.nr = bins.x, bins.width, bins.step, bins.count
        self.weights = bins.weights(lambda k: 2.0 * k + 1)
        self.shape = (len(self.r),)
        self.channels = ["r = %g cm" % x for x in self.r]
        self.kind = "Rd_r"

    def grid(self):
        """tmcml.run's grid keywords for these rings."""
        return dict(dr=self.dr, nr=self.nr, dz=0.01, nz=1, na=1)

    def runs(self):
        """Each run's keywords (one)."""
        return [self.grid()]

    def of(self, rd_r, jacobian, stderr):
        """The rings' values, their derivatives (n, L, 3) and the Monte Carlo
        standard errors (rings are independent: each photon escapes into
        one; None without stderr)."""
        return (self.weights @ rd_r, np.einsum("nk,k...->n...", self.weights, jacobian),
                None if stderr is None else np.sqrt((self.weights ** 2) @ (stderr ** 2)))

    def of_results(self, results, stderr):
        res = results[0]
        return self.of(res.Rd_r, res.jacobian("Rd_r"), res.stderr("Rd_r") if stderr else None)


class Fibers:
    """Fiber detectors on the surface (tmcml.FiberDetector each): the
    fraction of the photons each collects, every fiber scored in one run
    (runs of MAX_DETECTORS, when there are more), each bit for bit its run
    alone of the same seed.  Their derivatives are the CPU engine's."""

    def __init__(self, fibers):
        from .detector import FiberDetector
        try:
            self.fibers = list(fibers)
        except TypeError:
            raise ValueError("fibers: expected a list of tmcml.FiberDetector (got %r)"
                             % (fibers,)) from None
        if not self.fibers or not all(isinstance(f, FiberDetector) for f in self.fibers):
            raise ValueError("fibers: expected a non-empty list of tmcml.FiberDetector (got %r)"
                             % (fibers,))
        self.r = np.array([f.separation for f in self.fibers])
        self.shape = (len(self.fibers),)
        self.channels = ["fiber at %g cm" % x for x in self.r]
        self.kind = "Rd_fiber"

    def runs(self):
        from .detector import MAX_DETECTORS
        return [dict(dr=0.01, nr=1, dz=0.01, nz=1, na=1,
                     detector=self.fibers[k:k + MAX_DETECTORS])
                for k in range(0, len(self.fibers), MAX_DETECTORS)]

    def of_results(self, results, stderr):
        """Each run's fibers in order (a run of one gives a float and
        (L, 3), of several (D,) and (D, L, 3))."""
        def joined(values, shape):
            return np.concatenate([np.reshape(v, (-1,) + shape) for v in values])
        layers = (len(results[0].layers), 3)
        return (joined([r.Rd_fiber for r in results], ()),
                joined([r.jacobian("Rd_fiber") for r in results], layers),
                joined([r.stderr("Rd_fiber") for r in results], ()) if stderr else None)


class TimeBins:
    """Time-resolved reflectance: bins of time of flight of centres t [ns]
    and width time_width, of the whole surface (Rd_t, 1/ns) or, with
    rings, of each ring (Rd_rt, 1/(cm2 ns); data (rings, times)).  Their
    derivatives are the CPU engine's."""

    def __init__(self, t, time_width=None, dt=None, rings=None):
        bins = _Bins(t, time_width, dt, "t", "ns", "dt", "time_width")
        self.t, self.dt, self.nt = bins.x, bins.step, bins.count
        self.weights = bins.weights(lambda k: np.ones(len(k)))
        self.rings = rings
        self.r = None if rings is None else rings.r
        self.shape = (len(self.t),) if rings is None else rings.shape + (len(self.t),)
        self.channels = ["Rd_t"] if rings is None else rings.channels
        self.kind = "Rd_t" if rings is None else "Rd_rt"

    def runs(self):
        grid = self.rings.grid() if self.rings else dict(dr=0.01, nr=1, dz=0.01, nz=1, na=1)
        return [dict(grid, time_bins=(self.dt, self.nt))]

    def of_results(self, results, stderr):
        res, wt = results[0], self.weights
        if self.rings is None:
            se = res.stderr("Rd_t") if stderr else None
            return (wt @ res.Rd_t, np.einsum("tk,k...->t...", wt, res.jacobian("Rd_t")),
                    None if se is None else np.sqrt((wt ** 2) @ (se ** 2)))
        wr = self.rings.weights
        se = res.stderr("Rd_rt") if stderr else None
        return (wr @ res.Rd_rt @ wt.T,
                np.einsum("sr,rk...,tk->st...", wr, res.jacobian("Rd_rt"), wt),
                None if se is None else np.sqrt((wr ** 2) @ (se ** 2) @ (wt ** 2).T))


def measurement_of(r=None, ring_width=None, dr=None, fibers=None, t=None, time_width=None,
                   dt=None):
    """What the data are: rings (r), fibers, or time bins (t; with r, of
    each ring)."""
    if fibers is not None:
        if r is not None or t is not None:
            raise ValueError("fibers: not with r or t (a fiber's data are one value each)")
        return Fibers(fibers)
    rings = Rings(r, ring_width, dr) if r is not None else None
    if t is not None:
        return TimeBins(t, time_width, dt, rings)
    if rings is None:
        raise ValueError("r: the rings' radii [cm] are needed (or fibers=, or t=)")
    return rings


def _positive(name, value, unit="cm"):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or \
            not math.isfinite(value) or value <= 0:
        raise ValueError("%s: expected a positive number [%s] (got %r)" % (name, unit, value))
    return float(value)


def _tiling(low, high, width, what, unit, step_name):
    """The widest model bin width (width / m) whose edges fall on every
    measured bin's edges."""
    for m in range(1, 65):
        step = float("%.12g" % (width / m))  # 0.025, not 0.024999999999999967
        if _on_grid(low, step) and _on_grid(high, step):
            return step
    raise ValueError("%s: the bins (%s +- %g/2 %s) do not fall on any grid of width %g/m %s "
                     "(m up to 64): give %s=, a width whose multiples are the bins' edges"
                     % (what, what, width, unit, width, unit, step_name))


def _on_grid(x, step):
    k = x / step
    return bool((np.abs(k - np.round(k)) < 1e-6).all())
