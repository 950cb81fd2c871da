"""The lookup-table path of tmcml.fit (docs/fit.md, "From a lookup table"):
a homogeneous layer's Rd(r) interpolated in a table of tmcml.lut instead of
a run at each evaluation.  Each ring used is a bicubic spline of log Rd_r
over (log mus', log mua) (linear Rd where the table has zeros), so the
model is smooth and its derivatives are the spline's; the table's own
standard errors, where it has them, are the model's Monte Carlo error."""

import math

import numpy as np

from .problem import SEMI_INFINITE_D


class LutModel:
    """A LookupTable as the model of a one-layer fit of Rd(r) in rings: the
    rings' values, derivatives by (mua, mus, g) as a run's Jacobian
    (1, 3) per ring, and errors, at layer rows [n, mua, mus, g, d]."""

    def __init__(self, table, rings, layers):
        self.table = table
        _check_layers(table, layers)
        if not math.isclose(rings.dr, float(table.dr), rel_tol=1e-9):
            raise ValueError("lut: its rings are %g cm wide, the data's need dr = %g cm (make "
                             "the table with dr=%g, or give dr=%g to fit if the rings allow)"
                             % (table.dr, rings.dr, rings.dr, table.dr))
        rd_r = np.asarray(table.Rd_r)
        if rings.nr > rd_r.shape[2]:
            raise ValueError("lut: its %d rings reach %g cm; the data's rings need %d (the last "
                             "collects the escapes beyond)" % (rd_r.shape[2],
                                                               rd_r.shape[2] * table.dr,
                                                               rings.nr))
        self.rings = rings
        used = np.flatnonzero(rings.weights.any(axis=0))
        self.used = used
        x, y = np.log(np.asarray(table.musp)), np.log(np.asarray(table.mua))
        self.splines = [_Spline(x, y, rd_r[:, :, k]) for k in used]
        errors = getattr(table, "Rd_r_stderr", None)
        self.errors = None if errors is None else [
            _Spline(x, y, np.asarray(errors)[:, :, k], log=False, degree=1) for k in used]
        self.mua_range = (float(np.min(table.mua)), float(np.max(table.mua)))
        self.musp_range = (float(np.min(table.musp)), float(np.max(table.musp)))

    def run(self, rows, stderr):
        """(values, jacobian (n, 1, 3), errors or None) of the rings at the
        layer rows, as Rings.of gives them from a run."""
        n, mua, mus, g, d = rows[0]
        musp = mus * (1 - g)
        self._inside(mua, musp)
        lx, ly = math.log(musp), math.log(mua)
        nr = self.rings.nr
        rd, d_musp, d_mua = np.zeros(nr), np.zeros(nr), np.zeros(nr)
        for k, spline in zip(self.used, self.splines):
            rd[k], dx, dy = spline(lx, ly)
            d_musp[k], d_mua[k] = dx / musp, dy / mua  # d/dlog to d/d
        jacobian = np.zeros((nr, 1, 3))
        jacobian[:, 0, 0] = d_mua
        jacobian[:, 0, 1] = d_musp * (1 - g)
        jacobian[:, 0, 2] = np.nan  # g is the table's
        errors = None
        if stderr:
            errors = np.zeros(nr)
            if self.errors is not None:
                for k, spline in zip(self.used, self.errors):
                    errors[k] = max(spline.value(lx, ly), 0.0)
        return self.rings.of(rd, jacobian, errors)

    def _inside(self, mua, musp):
        (a0, a1), (s0, s1) = self.mua_range, self.musp_range
        if not (a0 <= mua <= a1 and s0 <= musp <= s1):
            raise ValueError("lut: mua %g, mus' %g is outside the table (mua %g..%g, mus' "
                             "%g..%g /cm)" % (mua, musp, a0, a1, s0, s1))

    def bounds(self, name):
        """The table's range of a free parameter (mua or musp)."""
        return {"mua": self.mua_range, "musp": self.musp_range}[name]


class _Spline:
    """A bicubic spline of a table z[musp, mua] over log axes, of log z where
    every value is positive; value and derivatives by each log axis."""

    def __init__(self, x, y, z, log=True, degree=3):
        from scipy.interpolate import RectBivariateSpline
        self.log = log and bool((z > 0).all())
        kx, ky = min(degree, len(x) - 1), min(degree, len(y) - 1)
        self.spline = RectBivariateSpline(x, y, np.log(z) if self.log else z, kx=kx, ky=ky)

    def value(self, x, y):
        v = float(self.spline(x, y)[0, 0])
        return math.exp(v) if self.log else v

    def __call__(self, x, y):
        v = float(self.spline(x, y)[0, 0])
        dx = float(self.spline(x, y, dx=1)[0, 0])
        dy = float(self.spline(x, y, dy=1)[0, 0])
        if not self.log:
            return v, dx, dy
        z = math.exp(v)
        return z, z * dx, z * dy


def _check_layers(table, layers):
    """The fit's layers must be the table's one layer (n, g, d)."""
    rows = np.asarray(layers, dtype=float)
    if rows.shape != (1, 5):
        raise ValueError("lut: a table is of one layer; layers has %d" % len(rows))
    n, _, _, g, d = rows[0]
    d = SEMI_INFINITE_D if d == math.inf else d
    for name, ours, theirs in (("n", n, table.n), ("g", g, table.g), ("d", d, table.d)):
        if not math.isclose(ours, float(theirs), rel_tol=1e-9):
            raise ValueError("lut: the layer's %s is %g, the table's %g" % (name, ours,
                                                                          float(theirs)))
