"""tmcml.spectrum: the reflectance of layers of chromophores at many
wavelengths, in rings of the surface, with each layer's mean path (the
differential path length of the modified Beer-Lambert law) and the
derivatives by each layer's mua, mus and g: one run a wavelength, in one
session (on a GPU, one kernel compiled for all of them)."""

import numpy as np

from .api import run
from .fit_data import Rings, _array
from .fit_params import ChromophoreModel
from .session import default_session


class Spectrum:
    """Rd (W, S): the mean diffuse reflectance [1/cm2] of each ring (S radii)
    at each wavelength (W); Rd_stderr its Monte Carlo standard error;
    jacobian (W, S, L, 3) its derivatives by each layer's (mua, mus, g);
    mean_path (W, S, L) [cm], the mean path in each layer of the light
    leaving the ring (-dRd/dmua / Rd); dpf (W, S), the total mean path over
    the ring's radius (the differential path-length factor); layers
    (W, L, 5), each wavelength's layer rows."""

    def __init__(self, wavelengths, r, layers, rd, stderr, jacobian):
        self.wavelengths, self.r, self.layers = wavelengths, r, layers
        self.Rd, self.Rd_stderr, self.jacobian = rd, stderr, jacobian
        with np.errstate(divide="ignore", invalid="ignore"):
            self.mean_path = -jacobian[..., 0] / rd[..., None]
        self.dpf = self.mean_path.sum(axis=-1) / r

    def __repr__(self):
        return "Spectrum(%d wavelengths %g-%g nm, %d radii)" % (
            len(self.wavelengths), self.wavelengths.min(), self.wavelengths.max(), len(self.r))


def measure(rows, measurement, runner, stderr=True):
    """Runs each problem of rows (W, L, 5), each run of the measurement,
    with runner(layers, keywords, stderr, problem index), and returns the measurement's
    values (W, ...), derivatives (W, ..., L, 3) and, with stderr, standard
    errors (W, ...) (else None)."""
    values, jacobians, stderrs = [], [], []
    for w, layers in enumerate(rows):
        results = [runner(layers, keywords, stderr, w) for keywords in measurement.runs()]
        v, j, s = measurement.of_results(results, stderr)
        values.append(v)
        jacobians.append(j)
        stderrs.append(s)
    return np.array(values), np.array(jacobians), np.array(stderrs) if stderr else None


def runner_of(photons, seed, engine, n_above, n_below, session, threads=None):
    """A function running one problem's layers (with a grid, detector or
    time bins) with the derivatives (and, when asked, the standard errors),
    as the fit and spectrum need them: problem number i (a wavelength) with
    seed + i at every call (common random numbers from one evaluation to
    the next; independent errors from one wavelength to the next, which the
    fit's covariance assumes: with one seed, the wavelengths' errors would
    move together, a smooth distortion of the spectrum that the scattering
    parameters absorb unseen), no absorption scored (only the escapes are
    used)."""
    session = session or default_session()

    def runner(layers, keywords, stderr, index):
        return run(layers=layers, n_above=n_above, n_below=n_below, photons=photons,
                   seed=seed + index, engine=engine, threads=threads, absorption=False,
                   jacobian=True, stderr=stderr, progress=False, session=session, **keywords)
    return runner


def spectrum(layers, wavelengths, r, ring_width=None, dr=None, photons=10**6, seed=1,
             engine="auto", n_above=1.0, n_below=1.0, session=None, threads=None):
    """The diffuse reflectance of layers of chromophores (dicts of n, d [cm],
    g, blood, sto2, water, lipid, melanin, a [1/cm], b: tmcml.fit's
    chromophore layers, docs/fit.md) at wavelengths [nm], averaged over the
    rings of centres r [cm] and width ring_width (default: the spacing of
    r): a Spectrum.  photons, engine, threads, n_above, n_below and session
    are tmcml.run's, for every wavelength; wavelength number i is run with
    seed + i (independent errors from one wavelength to the next)."""
    lam = _array("wavelengths", wavelengths, (1,))
    model = ChromophoreModel(layers, lam)
    rings = Rings(r, ring_width, dr)
    rows = model.layers(model.start)
    rd, jac, se = measure(rows, rings, runner_of(photons, seed, engine, n_above, n_below,
                                                 session, threads))
    return Spectrum(lam, rings.r, rows, rd, se, jac)
