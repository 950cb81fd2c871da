#!/usr/bin/env python3
"""A lookup table from Python: the 100 problems of a lut .mci (bench/inputs:
lut100.mci, luthi100.mci) through tmcml.run_batch, call after call, beside
the same problems one tmcml.run at a time; every batched result's tallies
compared with its run alone (bit-identical or exit 1).

    python3 bench/python_batch.py bench/inputs/lut100.mci [--calls 5] [--engine gpu]

Prints the wall time of each run_batch call (the first opens the GPU and
loads the kernel) and of the loop of runs."""

import argparse
import os
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402

import tmcml  # noqa: E402


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mci")
    ap.add_argument("--calls", type=int, default=5)
    ap.add_argument("--engine", default="gpu", choices=("cpu", "gpu"))
    args = ap.parse_args(argv)
    if args.engine == "gpu" and not tmcml.devices():
        print("python_batch: skipped: no GPU here")
        return 77
    first = tmcml.run_mci(args.mci, photons=1, engine=args.engine, progress=False)
    grid = dict(dz=first[0].dz, dr=first[0].dr, nz=first[0].nz, nr=first[0].nr, na=first[0].na)
    layers = np.stack([r.layers for r in first])
    above = [r.n_above for r in first]
    below = [r.n_below for r in first]
    photons = 100000
    session = tmcml.Session()
    walls = []
    for _ in range(args.calls):
        t0 = time.perf_counter()
        batch = tmcml.run_batch(layers=layers, n_above=above, n_below=below, photons=photons,
                                engine=args.engine, progress=False, session=session, **grid)
        walls.append(time.perf_counter() - t0)
    print("python_batch: %d problems of %d photons, run_batch on the %s engine: %s s per call"
          % (len(layers), photons, args.engine, ", ".join("%.3f" % w for w in walls)))
    t0 = time.perf_counter()
    alone = [tmcml.run(layers=layers[b], n_above=above[b], n_below=below[b], photons=photons,
                       engine=args.engine, progress=False, session=session, **grid)
             for b in range(len(layers))]
    print("python_batch: the same problems one tmcml.run at a time: %.3f s"
          % (time.perf_counter() - t0))
    session.close()
    differ = [b for b in range(len(alone)) if alone[b].tallies_digest != batch[b].tallies_digest]
    if differ:
        print("python_batch: FAILED: problems %s differ from their runs alone" % differ[:10])
        return 1
    print("python_batch: every batched result equals its run alone (tallies digest)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
