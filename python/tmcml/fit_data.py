"""The measurements a fit (tmcml.fit) compares the model with, and how the
model's values at them follow from a run: reflectance averaged over rings
of the surface, Rd(r), alone or at each wavelength of a spectrum.

A measured Rd(r) is the diffuse reflectance averaged over the ring of
radius r +- w/2 (w the ring width: an image binned in annuli).  The model's
grid is chosen with rings of width dr that tile every measured ring, so its
value there is the area-weighted mean of whole rings: exact, no
interpolation (docs/fit.md, "Rings")."""

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


class Rings:
    """Rings of the surface: centres r [cm], width w; the model's grid
    (dr, nr) and the matrix from its Rd_r to the rings' means."""

    def __init__(self, r, ring_width=None, dr=None):
        self.r = _array("r", r, (1,))
        if len(self.r) == 0:
            raise ValueError("r: no radii")
        order = np.sort(self.r)
        if order[0] <= 0 or (np.diff(order) <= 0).any():
            raise ValueError("r: expected distinct radii > 0 [cm] (got %s)" % (self.r,))
        spacing = np.diff(order).min() if len(order) > 1 else 2 * order[0]
        spacing = float("%.12g" % spacing)  # radii read from text: 0.05, not 0.0499999
        self.width = _positive("ring_width", ring_width) if ring_width is not None else spacing
        if self.width > spacing * (1 + 1e-9):
            raise ValueError("ring_width: %g cm is more than the radii's spacing (%g cm): the "
                             "rings would overlap" % (self.width, spacing))
        low, high = self.r - self.width / 2, self.r + self.width / 2
        if low.min() < -1e-12 * self.width:
            raise ValueError("ring_width: %g cm makes the ring at r = %g cm start below 0"
                             % (self.width, self.r[np.argmin(low)]))
        self.dr = _positive("dr", dr) if dr is not None else _tiling(low, high, self.width)
        self.first, self.last = _ring_indices(low, high, self.dr)
        # The last ring of a run collects every escape beyond the grid
        # (MCML's overflow ring): one more than the measured rings.
        self.nr = int(self.last.max()) + 2
        self.weights = self._weights()

    def _weights(self):
        """(n, nr): each measured ring's mean as the area-weighted mean of
        the model's rings it is made of (ring k's area is (2k + 1) pi dr^2)."""
        w = np.zeros((len(self.r), self.nr))
        for i, (a, b) in enumerate(zip(self.first, self.last)):
            k = np.arange(a, b)
            w[i, k] = (2 * k + 1) / float(b * b - a * a)
        return w

    def grid(self):
        """tmcml.run's grid keywords for these rings."""
        return dict(dr=self.dr, nr=self.nr, dz=0.01, nz=1, na=1)

    def of(self, rd_r, jacobian, stderr):
        """The rings' values, their derivatives (n, L, 3) and the Monte Carlo
        standard errors (rings are independent: each photon escapes into
        one; None without stderr)."""
        return (self.weights @ rd_r, np.einsum("nk,k...->n...", self.weights, jacobian),
                None if stderr is None else np.sqrt((self.weights ** 2) @ (stderr ** 2)))


def _positive(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or \
            not math.isfinite(value) or value <= 0:
        raise ValueError("%s: expected a positive number [cm] (got %r)" % (name, value))
    return float(value)


def _tiling(low, high, width):
    """The widest model ring width (width / m) whose edges fall on every
    measured ring's edges."""
    for m in range(1, 65):
        dr = float("%.12g" % (width / m))  # 0.025, not 0.024999999999999967
        if _on_grid(low, dr) and _on_grid(high, dr):
            return dr
    raise ValueError("r: the rings (r +- %g/2 cm) do not fall on any grid of width %g/m cm "
                     "(m up to 64): give dr=, a ring width whose multiples are the rings' "
                     "edges" % (width, width))


def _on_grid(x, dr):
    k = x / dr
    return bool((np.abs(k - np.round(k)) < 1e-6).all())


def _ring_indices(low, high, dr):
    if not (_on_grid(low, dr) and _on_grid(high, dr)):
        raise ValueError("dr: %g cm: the rings' edges (r +- ring_width/2) are not multiples "
                         "of it" % dr)
    return np.round(low / dr).astype(int), np.round(high / dr).astype(int)
