#!/usr/bin/env python3
"""Fits mua and mus' of a semi-infinite medium to a "measured" diffuse
reflectance Rd(r), as optical-property fitting does with MCML: the
measurement is made with tmcml at known values plus 2 % noise, and the fit
runs tmcml in a loop (one session: on a GPU, one kernel compile for all of
it).

    python3 examples/fit_optical_properties.py [--quick] [--engine cpu|gpu|auto]

The fit compares log Rd(r) over 0.05-1 cm.  Every model run uses the same
seed (common random numbers), so that the misfit changes with the
parameters rather than with the noise of each run.  With scipy, Nelder-Mead
in (log mua, log mus') starts from a coarse grid's best point; without it,
a coarse-to-fine grid search narrows a 5 x 5 grid around the best point
at each level.  --quick (the test's mode: a few seconds on two cores) uses
fewer photons and levels.  Prints the values recovered and the runs made."""

import argparse
import math
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import tmcml  # noqa: E402

N, G = 1.4, 0.8  # refractive index and anisotropy, known
TRUE_MUA, TRUE_MUSP = 0.5, 10.0  # 1/cm: what the fit should recover
GRID = dict(dz=0.05, dr=0.05, nz=1, nr=20, na=1)
THICK = 100.0  # cm: semi-infinite for these coefficients
FIT_BINS = slice(1, 20)  # r from 0.05 to 1 cm


class Model:
    def __init__(self, photons, engine):
        self.photons, self.engine, self.runs = photons, engine, 0
        self.session = tmcml.Session()

    def rd(self, mua, musp, photons=None, seed=1):
        self.runs += 1
        layer = [N, mua, musp / (1 - G), G, THICK]
        res = tmcml.run(layers=[layer], n_above=1.0, n_below=1.0, photons=photons or self.photons,
                        seed=seed, engine=self.engine, progress=False, absorption=False,
                        session=self.session, **GRID)
        return res.Rd_r

    def misfit(self, log_params, measured):
        mua, musp = np.exp(log_params)
        model = self.rd(mua, musp)[FIT_BINS]
        if (model <= 0).any():
            return 1e3
        return float(np.mean((np.log(model) - np.log(measured)) ** 2))


def grid_search(model, measured, levels, centre, span):
    """Coarse to fine: a 5 x 5 grid in (log mua, log mus'), each level a third
    as wide around the best point of the last."""
    best = np.array(centre)
    for _ in range(levels):
        axis = np.linspace(-span, span, 5)
        trials = [(model.misfit(best + (a, b), measured), a, b) for a in axis for b in axis]
        cost, a, b = min(trials)
        best = best + (a, b)
        span /= 3
    return best, cost


def fit(model, measured, quick):
    start = np.log([1.0, 5.0])  # a guess well off the truth
    try:
        from scipy.optimize import minimize
    except ImportError:
        return grid_search(model, measured, 3 if quick else 5, start, 1.5), "grid search"
    best, _ = grid_search(model, measured, 1, start, 1.5)
    res = minimize(model.misfit, best, args=(measured,), method="Nelder-Mead",
                   options={"xatol": 0.01, "fatol": 1e-5, "maxfev": 40 if quick else 150})
    return (res.x, res.fun), "scipy Nelder-Mead"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer photons and levels (tests)")
    ap.add_argument("--engine", default="cpu", choices=("cpu", "gpu", "auto"))
    args = ap.parse_args(argv)
    photons = 3000 if args.quick else 100000
    model = Model(photons, args.engine)
    measured = model.rd(TRUE_MUA, TRUE_MUSP, photons=20 * photons, seed=12345)[FIT_BINS]
    measured = measured * (1 + 0.02 * np.random.default_rng(0).standard_normal(measured.size))
    model.runs = 0
    (log_params, cost), method = fit(model, measured, args.quick)
    mua, musp = np.exp(log_params)
    print("fit_optical_properties: %s, %d photons a run on the %s engine"
          % (method, photons, args.engine))
    print("  true:      mua %.4f /cm  mus' %.3f /cm" % (TRUE_MUA, TRUE_MUSP))
    print("  recovered: mua %.4f /cm  mus' %.3f /cm  (%+.1f %%, %+.1f %%; rms log misfit %.3g)"
          % (mua, musp, 100 * (mua / TRUE_MUA - 1), 100 * (musp / TRUE_MUSP - 1),
             math.sqrt(cost)))
    print("  runs: %d (session: %s)" % (model.runs, model.session.stats()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
