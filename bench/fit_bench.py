#!/usr/bin/env python3
"""tmcml.fit's validation cases of issue 46, timed (docs/fit.md).

    python3 bench/fit_bench.py ENGINE [--draws 20] [--photons N] [--spectral-photons N]

homogeneous: mua 0.5 /cm and mus' 10 /cm (g 0.8, n 1.4) from Rd(r) in 20 rings
over 0.05-1 cm; the data an independent run of the truth (another seed, ten
times the fit's photons) with 2 % noise.  Prints the first draw's fit and
time, then over --draws noise draws (each fit with its own seed) the spread
of the fitted values against the mean reported standard error.

spectral: an epidermis of 0.01 cm (melanin) over dermis (blood, StO2, water,
mus' = a (lambda/500 nm)^-b) from Rd(lambda) at 19 wavelengths over
450-900 nm in two rings (0.05-0.1 and 0.25-0.3 cm), 1 % noise; the free
parameters melanin, blood, StO2, a and b.  Prints the fit, its time and its
errors against the truth (StO2 in points, the rest in %), and over --draws
noise draws the spread against the reported errors.

table: the homogeneous case from a 9 x 9 tmcml.lut table made on the engine
(--photons a point): the table's time and the fit's.
Exit 77 when the engine is gpu and there is none."""

import argparse
import os
import sys
import time
import warnings

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import tmcml  # noqa: E402
from tmcml.fit_data import Rings  # noqa: E402

R = np.arange(1, 21) * 0.05
TRUTH = [[1.4, 0.5, 50.0, 0.8, 100.0]]
START = [[1.4, 0.3, 30.0, 0.8, 100.0]]

LAM = np.arange(450, 901, 25.0)
RINGS = np.array([0.075, 0.275])
EPIDERMIS = dict(n=1.4, d=0.01, g=0.8, melanin=0.03, water=0.2, a=40.0, b=1.3)
DERMIS = dict(n=1.4, d=100.0, g=0.8, blood=0.02, sto2=0.75, water=0.65, a=25.0, b=1.1)
SPECTRAL_FREE = [("melanin", 0), ("blood", 1), ("sto2", 1), ("a", 1), ("b", 1)]


def homogeneous(engine, photons, draws):
    rings = Rings(R)
    ref = tmcml.run(layers=TRUTH, photons=10 * photons, seed=99, engine=engine,
                    absorption=False, progress=False, stderr=True, **rings.grid())
    clean = rings.weights @ ref.Rd_r
    sigma = np.sqrt((0.02 * clean) ** 2 + rings.weights ** 2 @ ref.stderr("Rd_r") ** 2)
    fits = []
    for d in range(draws):
        data = clean * (1 + 0.02 * np.random.default_rng(100 + d).normal(size=clean.size))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tmcml.FitWarning)
            fits.append(tmcml.fit(data, R, START, [("mua", 0), ("musp", 0)], sigma=sigma,
                                  photons=photons, engine=engine, seed=1000 + d))
    first = fits[0]
    print("homogeneous, %s, %d photons a run:\n%r" % (engine, photons, first))
    print("  error against the truth: mua %+.2f %%, mus' %+.2f %%"
          % tuple(100 * (first.values / [0.5, 10.0] - 1)))
    times = [f.seconds for f in fits]
    print("  time a fit: first %.2f s, median %.2f s, max %.2f s; runs: median %d"
          % (times[0], np.median(times), max(times), np.median([f.runs for f in fits])))
    if draws > 1:
        values = np.array([f.values for f in fits])
        spread, reported = values.std(axis=0, ddof=1), np.array([f.stderr for f in fits]).mean(0)
        print("  %d draws: spread %s, mean reported error %s, ratio %s; mean chi2/dof %.3f; "
              "%d of %d succeeded" % (draws, spread, reported, spread / reported,
                                      np.mean([f.chi2_dof for f in fits]),
                                      sum(f.success for f in fits), draws))


def spectral(engine, photons, draws):
    layers = [EPIDERMIS, DERMIS]
    ref = tmcml.spectrum(layers, LAM, RINGS, ring_width=0.05, photons=10 * photons, seed=99,
                         engine=engine)
    sigma = np.sqrt((0.01 * ref.Rd) ** 2 + ref.Rd_stderr ** 2)
    start = [dict(EPIDERMIS, melanin=0.015), dict(DERMIS, blood=0.01, sto2=0.5, a=20.0, b=1.0)]
    truth = np.array([0.03, 0.02, 0.75, 25.0, 1.1])
    fits = []
    # Draw d's wavelength i runs with seed 1 + 1000 d + i: no two draws
    # share a seed (with seeds 1 + d, draw d + 1 would rerun draw d's
    # histories one wavelength over, and the draws would not be independent).
    for d in range(draws):
        data = ref.Rd * (1 + 0.01 * np.random.default_rng(3 + d).normal(size=ref.Rd.shape))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", tmcml.FitWarning)
            fits.append(tmcml.fit(data, RINGS, start, SPECTRAL_FREE, sigma=sigma,
                                  wavelengths=LAM, ring_width=0.05, photons=photons,
                                  engine=engine, seed=1 + 1000 * d))
    f = fits[0]
    print("spectral, %s, %d photons a run, %d wavelengths:\n%r" % (engine, photons, len(LAM), f))
    error = f.values / truth - 1
    print("  against the truth: melanin %+.1f %%, blood %+.1f %%, StO2 %+.1f points, a %+.1f %%, "
          "b %+.1f %%" % (100 * error[0], 100 * error[1], 100 * (f.values[2] - truth[2]),
                          100 * error[3], 100 * error[4]))
    print("  time %.2f s, %d evaluations (%d runs); mc_ratio %.2f, shortfall %.2f"
          % (f.seconds, f.runs, f.runs * len(LAM), f.mc_ratio, f.shortfall))
    if draws > 1:
        values = np.array([x.values for x in fits])
        ratio = values.std(axis=0, ddof=1) / np.array([x.stderr for x in fits]).mean(axis=0)
        worst = np.abs(values - truth).max(axis=0)
        print("  %d draws: spread / mean reported error %s; worst |error| melanin %.4f, blood "
              "%.4f, StO2 %.3f, a %.2f, b %.3f; time median %.2f s; %d of %d succeeded"
              % (draws, np.round(ratio, 2), *worst, np.median([x.seconds for x in fits]),
                 sum(x.success for x in fits), draws))


def from_table(engine, photons):
    """The homogeneous case from a 9 x 9 table (tmcml.lut) made on the engine."""
    rings = Rings(R)
    start = time.perf_counter()
    table = tmcml.lut(mua=np.geomspace(0.1, 2, 9), musp=np.geomspace(4, 25, 9), n=1.4, g=0.8,
                      d=100.0, nr=rings.nr, dr=rings.dr, photons=photons, engine=engine,
                      progress=False, stderr=True)
    made = time.perf_counter() - start
    ref = tmcml.run(layers=TRUTH, photons=10 * photons, seed=99, engine=engine,
                    absorption=False, progress=False, stderr=True, **rings.grid())
    clean = rings.weights @ ref.Rd_r
    sigma = np.sqrt((0.02 * clean) ** 2 + rings.weights ** 2 @ ref.stderr("Rd_r") ** 2)
    data = clean * (1 + 0.02 * np.random.default_rng(100).normal(size=clean.size))
    f = tmcml.fit(data, R, START, [("mua", 0), ("musp", 0)], sigma=sigma, lut=table)
    print("from a 9 x 9 table, %s, %d photons a point: table %.2f s, fit %.3f s\n%r"
          % (engine, photons, made, f.seconds, f))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine", choices=("cpu", "gpu"))
    ap.add_argument("--draws", type=int, default=20)
    ap.add_argument("--photons", type=int, default=10**6)
    ap.add_argument("--spectral-photons", type=int, default=10**5)
    ap.add_argument("--only", choices=("homogeneous", "spectral", "table"))
    args = ap.parse_args()
    if args.engine == "gpu" and not tmcml.devices():
        print("no GPU: skipped")
        return 77
    if args.only in (None, "homogeneous"):
        homogeneous(args.engine, args.photons, args.draws)
    if args.only in (None, "spectral"):
        spectral(args.engine, args.spectral_photons, args.draws)
    if args.only in (None, "table"):
        from_table(args.engine, args.photons)
    return 0


if __name__ == "__main__":
    sys.exit(main())
