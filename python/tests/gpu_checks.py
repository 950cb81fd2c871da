#!/usr/bin/env python3
"""The Python package on a GPU (ctest gpu_python, label gpu; exit 77 where
there is none):
  - tmcml.run on the GPU writes the run command's GPU .mco byte for byte
    and the same tallies (digest) for the same seed;
  - SIGINT during a long GPU run raises KeyboardInterrupt within seconds and
    the next run works, on the same session and module;
  - a loop that varies mua and mus keeps one kernel ('warm' after the first);
  - absorption sets run on the GPU (engine auto), without absorption and
    with it: the set equal to the per-layer minimum has the tallies of the
    plain run of the same mode."""

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

import tmcml  # noqa: E402
from conftest import EXAMPLE  # noqa: E402


def check(cond, what):
    if not cond:
        print("gpu_checks: FAILED: %s" % what)
        sys.exit(1)


def identity(cli, tmp):
    args = dict(EXAMPLE, photons=200000)
    tmcml.save_mci(os.path.join(tmp, "g.mci"), **args)
    subprocess.run([cli, "run", "g.mci", "-q", "--engine", "gpu", "-S", "5"], cwd=tmp, check=True)
    res = tmcml.run(**args, seed=5, engine="gpu", progress=False)
    check(res.engine == "gpu", "engine %s" % res.engine)
    os.mkdir(os.path.join(tmp, "lib"))
    res.save_mco(os.path.join(tmp, "lib", "g.mco"))
    with open(os.path.join(tmp, "g.mco"), "rb") as a, open(os.path.join(tmp, "lib", "g.mco"),
                                                          "rb") as b:
        check(a.read() == b.read(), "the GPU .mco differs from the run command's")
    with open(os.path.join(tmp, "g.json")) as f:
        digest = json.load(f)["tallies_digest"]
    check(digest == "fnv1a64:%016x" % res.tallies_digest, "tallies digest")
    print("gpu_checks: GPU .mco and tallies equal the run command's (%s)" % res.variant)


def interrupt():
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    start = time.monotonic()
    timer.start()
    try:
        tmcml.run(**EXAMPLE, photons=10**13, engine="gpu", progress=False)
        check(False, "the run was not interrupted")
    except KeyboardInterrupt:
        pass
    elapsed = time.monotonic() - start
    timer.join()
    check(elapsed < 10, "KeyboardInterrupt after %.1f s" % elapsed)
    res = tmcml.run(**EXAMPLE, photons=10000, engine="gpu", progress=False)
    check(res.photons == 10000, "a run after the interrupt")
    print("gpu_checks: SIGINT stopped a GPU run in %.2f s; the next run worked" % elapsed)


def loop():
    origins = []
    for i in range(10):
        layers = [row[:] for row in EXAMPLE["layers"]]
        layers[0][1] = 1.0 + 0.1 * i
        layers[1][2] = 10.0 + i
        res = tmcml.run(**dict(EXAMPLE, layers=layers), photons=50000, engine="gpu",
                        progress=False)
        origins.append(res.timings["kernel_origin"])
    check(all(o == "warm" for o in origins[1:]), "kernel origins %s" % origins)
    print("gpu_checks: a loop of 10 runs kept its kernel (%s first)" % origins[0])


def sets():
    own = [row[1] for row in EXAMPLE["layers"]]
    table = [own, [2 * m for m in own], [5 * m for m in own]]
    batch = tmcml.run(**EXAMPLE, photons=100000, seed=3, absorption=False, mua_sets=table,
                      progress=False)
    check(batch.engine == "gpu", "sets without absorption ran on %s" % batch.engine)
    check(batch.Rd.shape == (3,) and batch.Rd[0] > batch.Rd[1] > batch.Rd[2],
          "Rd of the sets %s" % (batch.Rd,))
    alone = tmcml.run(**EXAMPLE, photons=100000, seed=3, absorption=False, engine="gpu",
                      progress=False)
    check(batch[0].tallies_digest == alone.tallies_digest, "set 0 against the plain -A run")
    absorbed = tmcml.run(**EXAMPLE, photons=100000, seed=3, mua_sets=table, progress=False)
    check(absorbed.engine == "gpu", "sets with absorption ran on %s" % absorbed.engine)
    check(absorbed.A[0] < absorbed.A[1] < absorbed.A[2], "A of the sets %s" % (absorbed.A,))
    own = tmcml.run(**EXAMPLE, photons=100000, seed=3, engine="gpu", progress=False)
    check(absorbed[0].tallies_digest == own.tallies_digest, "set 0 against the plain run")
    print("gpu_checks: 3 absorption sets on the GPU, with and without absorption; set 0 is the "
          "plain run bit for bit")


def main():
    if not tmcml.devices():
        print("gpu_checks: skipped: no GPU here")
        return 77
    cli = os.environ.get("TMCML_CLI") or os.path.join(os.path.dirname(os.path.dirname(HERE)),
                                                      "build", "tmcml")
    with tempfile.TemporaryDirectory() as tmp:
        identity(cli, tmp)
    interrupt()
    loop()
    sets()
    return 0


if __name__ == "__main__":
    sys.exit(main())
