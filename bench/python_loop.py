#!/usr/bin/env python3
"""A loop of runs from Python that varies mua and mus, as an optical-property
fit does: what each call costs beyond its photons.

    python3 bench/python_loop.py gpu [--runs 100] [--photons 100000] [--check]

Prints the kernels compiled and loaded for the whole loop, and the median
per call of: the Python call's wall time, the kernel time (the launches and
their tally downloads; the CPU engine's work), and the overhead (the
library's wall time less compile and kernel time: engine start, module load,
uploads, allocation, normalisation) and the Python layer's own share.
--check: exit 1 unless the loop compiled and loaded one kernel (GPU; the
cubin cache is a fresh directory then) - ctest's gpu_python_loop.
Exit 77 when the engine is gpu and this machine has none."""

import argparse
import os
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "python"))

import tmcml  # noqa: E402

# MCML's three-layer example on its grid (examples/mcml_example.mci).
LAYERS = [[1.37, 1.0, 100.0, 0.90, 0.1], [1.37, 1.0, 10.0, 0.0, 0.1],
          [1.37, 2.0, 10.0, 0.70, 0.2]]
GRID = dict(dz=0.01, dr=0.01, nz=40, nr=50, na=1)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("engine", choices=("cpu", "gpu"))
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--photons", type=int, default=100000)
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    if args.engine == "gpu" and not tmcml.devices():
        print("python_loop: skipped: no GPU here")
        return 77
    cache = tempfile.TemporaryDirectory(prefix="tmcml_loop_cache_") if args.check else None
    session = tmcml.Session()
    calls, kernels, overheads, python_share, origins = [], [], [], [], []
    for i in range(args.runs):
        layers = [row[:] for row in LAYERS]
        layers[0][1] = 0.5 + 0.02 * i  # mua of layer 1
        layers[1][2] = 5.0 + 0.1 * i  # mus of layer 2
        res = tmcml.run(layers=layers, photons=args.photons, seed=i + 1, engine=args.engine,
                        progress=False, session=session,
                        cache_dir=cache.name if cache else None, **GRID)
        t = res.timings
        calls.append(t["python"])
        kernels.append(t["kernel"])
        overheads.append(t["overhead"])
        python_share.append(t["python"] - t["wall"])
        origins.append(t["kernel_origin"])
    st = session.stats()
    session.close()
    ms = 1e3
    print("python_loop: %d runs of %d photons on the %s engine" % (args.runs, args.photons,
                                                                    args.engine))
    print("  kernels compiled %d, loaded %d, variants chosen %d" % (st["compiles"],
                                                                    st["module_loads"],
                                                                    st["plans"]))
    print("  kernel origins: %s" % ", ".join("%s %d" % (o, origins.count(o))
                                             for o in sorted(set(origins), key=str)))
    print("  median per call: wall %.3f ms, kernel %.3f ms, overhead %.3f ms "
          "(library %.3f ms + Python %.3f ms)" % (
              statistics.median(calls) * ms, statistics.median(kernels) * ms,
              statistics.median([o + p for o, p in zip(overheads, python_share)]) * ms,
              statistics.median(overheads) * ms, statistics.median(python_share) * ms))
    print("  warm calls (after the first): median overhead %.3f ms" % (
        statistics.median([o + p for o, p in zip(overheads[1:], python_share[1:])]) * ms
        if args.runs > 1 else float("nan")))
    if cache:
        cache.cleanup()
    if args.check and args.engine == "gpu" and (st["compiles"] != 1 or st["module_loads"] != 1):
        print("python_loop: FAILED: expected one compile and one module load")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
