#!/usr/bin/env python3
"""Fits mua and mus' of a semi-infinite medium to a "measured" diffuse
reflectance Rd(r) with tmcml.fit (docs/fit.md), and prints them with their
standard errors.  The measurement is made with tmcml at known values (another
seed, more photons) plus 2 % noise.

    python3 examples/fit_optical_properties.py [--quick] [--engine cpu|gpu|auto]

Rd(r) is averaged over 20 rings of 0.05 cm from 0.025 to 1.025 cm.  The fit
is scipy's least squares on runs with the derivatives, one run an
evaluation, every run with the same seed.  --quick (the test's mode: a few
seconds on two cores) uses fewer photons.  Needs scipy (Debian:
python3-scipy)."""

import argparse
import os
import sys

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import tmcml  # noqa: E402
from tmcml.fit_data import Rings  # noqa: E402

N, G = 1.4, 0.8  # refractive index and anisotropy, known
TRUE_MUA, TRUE_MUSP = 0.5, 10.0  # 1/cm: what the fit should recover
THICK = 100.0  # cm: semi-infinite for these coefficients
R = np.arange(1, 21) * 0.05  # the rings' centres [cm]


def layer(mua, musp):
    return [[N, mua, musp / (1 - G), G, THICK]]


def measure(photons, engine):
    """Rd of the rings at the true values (seed 12345), with 2 % noise:
    the data and their standard errors (the noise's and the measuring
    run's own)."""
    rings = Rings(R)
    res = tmcml.run(layers=layer(TRUE_MUA, TRUE_MUSP), photons=photons, seed=12345,
                    engine=engine, absorption=False, progress=False, stderr=True,
                    **rings.grid())
    clean = rings.weights @ res.Rd_r
    own = np.sqrt(rings.weights ** 2 @ res.stderr("Rd_r") ** 2)
    noise = 1 + 0.02 * np.random.default_rng(0).standard_normal(clean.size)
    return clean * noise, np.sqrt((0.02 * clean) ** 2 + own ** 2)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer photons (tests)")
    ap.add_argument("--engine", default="cpu", choices=("cpu", "gpu", "auto"))
    args = ap.parse_args(argv)
    photons = 50000 if args.quick else 200000
    data, sigma = measure(20 * photons, args.engine)
    f = tmcml.fit(data, R, layer(1.0, 5.0), free=[("mua", 0), ("musp", 0)], sigma=sigma,
                  photons=photons, engine=args.engine)
    (mua, musp), (e_mua, e_musp) = f.values, f.stderr
    print("fit_optical_properties: %d photons a run on the %s engine" % (photons, args.engine))
    print("  true:      mua %.4f /cm  mus' %.3f /cm" % (TRUE_MUA, TRUE_MUSP))
    print("  recovered: mua %.4f /cm  mus' %.3f /cm  (%+.1f %%, %+.1f %%)"
          % (mua, musp, 100 * (mua / TRUE_MUA - 1), 100 * (musp / TRUE_MUSP - 1)))
    print("  errors:    mua %.4f /cm  mus' %.3f /cm; chi2/dof %.2f; %s"
          % (e_mua, e_musp, f.chi2_dof, f.message))
    print("  runs: %d, %.1f s" % (f.runs, f.seconds))
    return 0 if f.success else 1


if __name__ == "__main__":
    sys.exit(main())
