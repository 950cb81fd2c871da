"""tmcml.fit: a layered tissue's optical properties, or its chromophores,
from measured reflectance, with their uncertainties (docs/fit.md).

The solver is scipy's least_squares (trust-region reflective, within the
bounds).  Each of its evaluations is one run with the derivatives (tmcml.run
jacobian=True), or one a wavelength, always with the same seed: the model
is then a fixed function of the parameters (common random numbers), and
its exact Monte Carlo derivatives are the solver's Jacobian.  The
covariance of the result adds, to the data's, the Monte Carlo error of the
model at the solution, propagated through the same linear map."""

import math
import time
import warnings

import numpy as np

from .fit_data import _array, measurement, measurement_of
from .fit_params import ChromophoreModel, OpticsModel, parameter_name
from .fit_result import FitResult
from .spectrum import measure, runner_of

# Above this condition number of the data-weighted Jacobian (its columns
# scaled to unit length) two parameters move the model almost alike: for
# two parameters, a correlation beyond 0.999998.  The fit then says they are
# not identifiable from these data.
ILL_CONDITIONED = 1e3
# Below this chance of a chi-square as large, the fit says the model does
# not match the data: a fit of 20 values and 2 parameters at chi2/dof 2.3.
POOR_FIT = 1e-3


class FitWarning(UserWarning):
    """A fit that did not converge, stopped at a bound or short of the
    minimum, does not match its data, or whose parameters the data do not
    determine (FitResult.message says which)."""


def fit(data, r=None, layers=None, free=None, sigma=None, wavelengths=None, bounds=None,
        ring_width=None, dr=None, fibers=None, t=None, time_width=None, dt=None,
        photons=10**6, seed=1, engine="auto", threads=None, n_above=1.0, n_below=1.0,
        session=None, max_runs=40, xtol=1e-4, ftol=1e-6, lut=None):
    """Fits the free parameters of layers to measured reflectance (rings of
    the surface, fibers, time bins, or spectra of them), by least squares
    weighted by the data's uncertainty, and returns a FitResult (values,
    stderr, cov, layers, chi2_dof, success, message, residuals, plot()).

    data: Rd(r) [1/cm2] averaged over the rings of centres r [cm] and width
    ring_width (default: the spacing of r), shape (S,); or, with fibers (a
    list of tmcml.FiberDetector) and no r, each fiber's Rd_fiber, (F,); or,
    with t [ns] (bin centres; width time_width, default their spacing),
    Rd_t [1/ns] of the whole surface (T,), or with r too Rd_rt
    [1/(cm2 ns)] of each ring (S, T).  With wavelengths [nm], a spectrum
    of rings or fibers: (W, S) or (W, F).  Fibers and time bins take the
    CPU engine (its derivatives).
    sigma: the data's standard errors (one value, or data's shape); None
    when data has a first axis of repeated measurements (their standard
    error of the mean is then used).
    layers: tmcml.run's rows [n, mua, mus, g, d] (free: 'mua', 'mus',
    'musp', 'g' of a layer); with wavelengths, dicts of n, d, g, blood,
    sto2, water, lipid, melanin, a and b (mus' = a (lambda/500 nm)^-b;
    free: those keys but n and d), the start of the fit.
    free: [(name, layer index), ...], the parameters fitted, in the order of
    FitResult.values; a tuple of layer indices makes them share one.  bounds: {(name, layer): (low, high)} (default:
    mua, mus, mus', a >= 0; g within +-0.99; fractions within 0..1; b
    within 0..10); the start must lie within them.
    photons, seed, engine, threads, n_above, n_below, session: every run's
    (tmcml.run's).  max_runs: at most this many model evaluations (runs,
    or runs of every wavelength); xtol, ftol: least_squares's (relative
    change of the parameters, of the cost) at which the fit stops.
    lut: a tmcml.LookupTable of the one layer (its n, g, d; n_above and
    n_below) whose Rd_r, interpolated, is the model instead of runs: Rd(r)
    in rings of the table's width, free 'mua' and 'musp' (or 'mus') within
    the table's range (docs/fit.md, "From a lookup table")."""
    start = time.perf_counter()
    if layers is None or free is None:
        raise ValueError("layers, free: the start of the fit and its free parameters are needed")
    where = measurement_of(r, ring_width, dr, fibers, t, time_width, dt)
    spectral = wavelengths is not None
    model, shape = _model_of(layers, free, bounds, wavelengths, where)
    if not model.free:
        raise ValueError("free: no free parameters")
    values, sigma = measurement(data, sigma, shape)
    if len(model.free) > values.size:
        raise ValueError("data: %d values for %d free parameters: fewer values than parameters "
                         "cannot determine them" % (values.size, len(model.free)))
    if lut is not None:
        simulate = _lut_model(lut, where, model, spectral, layers, n_above, n_below)
    else:
        runner = runner_of(photons, seed, engine, n_above, n_below, session, threads)

        def simulate(rows, stderr):
            return measure(rows, where, runner, stderr)
    evaluate = _Evaluator(model, spectral, simulate)
    solution = _solve(evaluate, values, sigma, model, max_runs, xtol, ftol)
    return _result(solution, evaluate, values, sigma, model, where, spectral,
                   time.perf_counter() - start)


def _model_of(layers, free, bounds, wavelengths, where):
    """The parameters' model (optical properties, or chromophores at the
    wavelengths) and the shape of the data it is compared with."""
    if wavelengths is None:
        return OpticsModel(layers, free, bounds), where.shape
    if getattr(where, "t", None) is not None:
        raise ValueError("t: time-resolved spectra are not fitted (yet): fit one wavelength's "
                         "Rd_t, or a spectrum of rings or fibers")
    lam = _array("wavelengths", wavelengths, (1,))
    return ChromophoreModel(layers, lam, free, bounds), (len(lam),) + where.shape


class _Evaluator:
    """The model's values and derivatives by the free parameters at
    parameters x, each x run once (least_squares asks for the values and
    then the Jacobian at the same point); with_stderr(x) adds the Monte
    Carlo errors, asked only at the solution: the same seed gives the same
    values and derivatives with or without them, and the errors' groups
    cost a GPU more than the photons of a short run."""

    def __init__(self, model, spectral, simulate):
        self.model, self.spectral, self.simulate = model, spectral, simulate
        self.runs = 0
        self._key = None

    def __call__(self, x):
        key = np.asarray(x, dtype=float).tobytes()
        if key != self._key:
            self._last = self._run(np.asarray(x, dtype=float), False)[:2]
            self._key = key
        return self._last

    def with_stderr(self, x):
        return self._run(np.asarray(x, dtype=float), True)

    def _run(self, x, stderr):
        self.runs += 1
        rows = self.model.layers(x)
        if self.spectral:
            v, j, s = self.simulate(rows, stderr)
        else:
            v, j, s = self.simulate([rows], stderr)
            v, j, s = v[0], j[0], (s[0] if stderr else None)
        return v, self.model.chain(j, x), s


def _lut_model(table, where, model, spectral, layers, n_above, n_below):
    """simulate(rows, stderr) from a lookup table, the fit's bounds
    narrowed to its range (the start must be inside)."""
    from .fit_data import Rings
    from .fit_lut import LutModel
    if spectral or not isinstance(where, Rings):
        raise ValueError("lut: a table gives Rd(r) in rings of one layer, not spectra, fibers "
                         "or time bins")
    for name, ours in (("n_above", n_above), ("n_below", n_below)):
        if not math.isclose(float(ours), float(getattr(table, name)), rel_tol=1e-9):
            raise ValueError("lut: %s is %g, the table's %g" % (name, ours,
                                                              float(getattr(table, name))))
    lut = LutModel(table, where, layers)
    for k, (name, _) in enumerate(model.free):
        if name not in ("mua", "musp"):
            raise ValueError("lut: %s is the table's; free mua and musp alone" % name)
        lo, hi = lut.bounds(name)
        if not lo <= model.start[k] <= hi:
            raise ValueError("lut: the start %s = %g is outside the table (%g..%g)"
                             % (name, model.start[k], lo, hi))
        model.low[k], model.high[k] = max(model.low[k], lo), min(model.high[k], hi)

    def simulate(rows, stderr):
        out = [lut.run(r, stderr) for r in rows]
        values, jacobians = np.array([o[0] for o in out]), np.array([o[1] for o in out])
        return values, jacobians, np.array([o[2] for o in out]) if stderr else None
    return simulate


def _solve(evaluate, values, sigma, model, max_runs, xtol, ftol):
    try:
        from scipy.optimize import least_squares
    except ImportError:
        raise ImportError("tmcml.fit needs scipy (Debian: apt-get install python3-scipy; pip: "
                          "pip install scipy)") from None
    flat_data, flat_sigma = values.ravel(), sigma.ravel()

    def residuals(x):
        return (evaluate(x)[0].ravel() - flat_data) / flat_sigma

    def jacobian(x):
        return evaluate(x)[1].reshape(flat_data.size, -1) / flat_sigma[:, None]

    return least_squares(residuals, model.start, jac=jacobian, bounds=(model.low, model.high),
                         method="trf", x_scale="jac", xtol=xtol, ftol=ftol, gtol=1e-10,
                         max_nfev=max_runs)


def _result(solution, evaluate, values, sigma, model, where, spectral, seconds):
    x = solution.x
    model_values, jac, mc_stderr = evaluate.with_stderr(x)
    names = [parameter_name(n, layers) for n, layers in model.free]
    a = jac.reshape(values.size, -1) / sigma.ravel()[:, None]
    cov, condition, degenerate = _covariance(a, (mc_stderr / sigma).ravel(), names)
    residuals = (model_values - values) / np.sqrt(sigma ** 2 + mc_stderr ** 2)
    checks = dict(
        converged=solution.status > 0, nfev=solution.nfev, solver=solution.message,
        at_bound=[names[k] for k in np.flatnonzero(solution.active_mask)],
        chi2=float(np.sum(residuals ** 2)), dof=values.size - len(x), condition=condition,
        degenerate=degenerate, mc_ratio=float(np.sqrt(np.mean((mc_stderr / sigma) ** 2))))
    checks["short"], shortfall = _short_of_minimum(
        a, ((model_values - values) / sigma).ravel(), np.sqrt(np.diag(cov)),
        solution.active_mask, names)
    problems = _problems(checks)
    result = FitResult(
        names=names, values=x, cov=cov, layers=model.fitted_layers(x), data=values,
        sigma=sigma, model=model_values, model_stderr=mc_stderr, residuals=residuals,
        chi2=checks["chi2"], dof=checks["dof"], converged=checks["converged"],
        at_bound=checks["at_bound"], condition=condition, mc_ratio=checks["mc_ratio"],
        shortfall=shortfall,
        success=not problems,
        message="; ".join(problems) if problems else "converged: " + solution.message,
        runs=evaluate.runs, seconds=seconds, r=getattr(where, "r", None),
        t=getattr(where, "t", None), channels=where.channels, kind=where.kind,
        wavelengths=model.wavelengths if spectral else None)
    if problems:
        warnings.warn(FitWarning("tmcml.fit: " + result.message), stacklevel=3)
    return result


def _short_of_minimum(a, residuals, stderr, active, names):
    """(name, standard errors) of the parameter farthest from where the
    solution's own derivatives put the minimum (the Gauss-Newton step, the
    parameters at a bound held), or None when every one is within one
    standard error; and that distance.  The model's Monte Carlo noise makes each evaluation a
    little rough: the solver can stop on a bump short of the minimum."""
    free = active == 0
    if not free.any() or not np.isfinite(stderr).all():
        return None, 0.0
    step = np.zeros(len(names))
    step[free] = -np.linalg.lstsq(a[:, free], residuals, rcond=None)[0]
    far = np.abs(step) / stderr
    k = int(np.argmax(far))
    return (names[k], float(far[k])) if far[k] > 1 else None, float(far[k])


def _covariance(a, mc_ratio, names):
    """The parameters' covariance: the data's, (A^T A)^-1 with A the
    data-weighted Jacobian, plus the model's Monte Carlo error propagated
    by the same map (a sandwich); the condition number of A with unit
    columns, and the names of the parameters of its weakest direction."""
    scale = np.linalg.norm(a, axis=0)
    if (scale == 0).any():
        flat = [names[k] for k in np.flatnonzero(scale == 0)]
        nan = np.full((len(names), len(names)), np.nan)
        return nan, math.inf, flat
    u, s, vt = np.linalg.svd(a / scale, full_matrices=False)
    condition = float(s[0] / s[-1]) if s[-1] > 0 else math.inf
    weak = np.abs(vt[-1])
    degenerate = [names[k] for k in np.argsort(-weak)[:2] if weak[k] > 0.3]
    if not math.isfinite(condition):
        nan = np.full((len(names), len(names)), np.nan)
        return nan, condition, degenerate
    inverse = (vt.T / s ** 2) @ vt / np.outer(scale, scale)
    lever = inverse @ a.T  # how each weighted datum moves the parameters
    return inverse + (lever * mc_ratio ** 2) @ lever.T, condition, degenerate


def _chi2_p(chi2, dof):
    from scipy.stats import chi2 as distribution
    return float(distribution.sf(chi2, dof))


def _problems(c):
    problems = []
    if not c["converged"]:
        problems.append("did not converge in %d evaluations (max_runs): %s"
                        % (c["nfev"], c["solver"]))
    if c["at_bound"]:
        problems.append("stopped at a bound: %s (widen the bounds, or fix the parameter)"
                        % ", ".join(c["at_bound"]))
    if c["short"]:
        problems.append("stopped short of the minimum: %s is %.1f standard errors from where "
                        "the model's derivatives put it (the model's Monte Carlo error is %.2g "
                        "times the data's: more photons)" % (c["short"] + (c["mc_ratio"],)))
    if c["dof"] > 0 and _chi2_p(c["chi2"], c["dof"]) < POOR_FIT:
        problems.append("the model does not match the data: chi2/dof %.3g over %d degrees of "
                        "freedom (p = %.2g): a wrong model, a sigma too small, or too few "
                        "photons for the derivatives (photons=)"
                        % (c["chi2"] / c["dof"], c["dof"], _chi2_p(c["chi2"], c["dof"])))
    if c["condition"] > ILL_CONDITIONED:
        problems.append("not identifiable from these data: %s move the model almost alike "
                        "(condition number %.3g)" % (" and ".join(c["degenerate"]) or
                                                     "the parameters", c["condition"]))
    return problems
