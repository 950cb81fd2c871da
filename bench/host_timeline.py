#!/usr/bin/env python3
"""Where a `tmcml run`'s whole-process time goes: every line it writes on
stderr with --verbose (the engine opened, input read, kernel variant and
module, each GPU's kernel time, the batch simulated and written, the engine
closed), stamped with the milliseconds since the process was started, then
when it exited.  The gaps between lines are the host's shares (the lock
files and checkpoints of a batch's runs, the source generated to find a
cached cubin, the driver's teardown after exit: docs/batches.md, "The
host's share").  The per-run report lines are left out.

usage: bench/host_timeline.py TMCML FILE.mci [--repeats N] [run options...]
  The run's outputs go to a temporary directory, removed after; --repeats
  runs it N times (the first warms the cubin cache and is not shown when
  N > 1)."""
import argparse
import shutil
import subprocess
import sys
import tempfile
import time


def stamped_run(tmcml, mci, options, out):
    start = time.monotonic()
    proc = subprocess.Popen([tmcml, "run", mci, "--verbose", "-o", out] + options,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            bufsize=1)
    lines = []
    for line in proc.stderr:
        # The progress meter rewrites its line with carriage returns.
        line = line.rstrip("\n").split("\r")[-1]
        if line and not (".mco:" in line and "photons in" in line):
            lines.append(((time.monotonic() - start) * 1e3, line))
    status = proc.wait()
    return lines, (time.monotonic() - start) * 1e3, status


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tmcml")
    parser.add_argument("mci")
    parser.add_argument("--repeats", type=int, default=2)
    args, options = parser.parse_known_args()
    for r in range(args.repeats):
        out = tempfile.mkdtemp(prefix="tmcml-timeline-")
        try:
            lines, whole, status = stamped_run(args.tmcml, args.mci, options, out)
        finally:
            shutil.rmtree(out, ignore_errors=True)
        if status != 0:
            for _, line in lines:
                print(line, file=sys.stderr)
            sys.exit("host_timeline: tmcml exited %d" % status)
        if args.repeats > 1 and r == 0:
            continue  # the cache warmed
        print("== run %d" % (r + 1))
        for ms, line in lines:
            print("%8.1f ms  %s" % (ms, line[:160]))
        print("%8.1f ms  exited" % whole)


if __name__ == "__main__":
    main()
