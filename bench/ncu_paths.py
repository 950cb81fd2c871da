"""Summarises Nsight Compute's SASS source page (bench/ncu_paths.sh).

usage: python3 bench/ncu_paths.py SASS.csv RUN.json

Per step (the run's photons x steps_per_photon, from its JSON summary):
warp-instructions, thread-instructions and active lanes; the share of
warp-instructions issued with >= 25, 10-25, 3-10 and < 3 active lanes; and
the hottest runs of consecutive instructions issued with fewer than 10
lanes (the divergent paths: a boundary crossing, a photon's launch).
"""
import csv
import json
import sys

BANDS = ((25, ">= 25 lanes"), (10, "10-25 lanes"), (3, "3-10 lanes"), (0, "< 3 lanes"))


def number(text):
    text = (text or "").replace(",", "")
    return float(text) if text else 0.0


def read_rows(path):
    rows = [r for r in csv.reader(open(path)) if r]
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Address")
    index = {name: i for i, name in enumerate(rows[head])}
    for r in rows[head + 1:]:
        warp = number(r[index["Instructions Executed"]])
        thread = number(r[index["Thread Instructions Executed"]])
        yield r[index["Address"]], r[index["Source"]].strip(), warp, thread


def divergent_runs(rows, steps):
    """Runs of consecutive instructions issued with fewer than 10 lanes."""
    runs, current = [], None
    for address, source, warp, thread in rows:
        lanes = thread / warp if warp else 32.0
        if warp and lanes < 10:
            if current is None:
                current = [address, source, 0.0, 0.0, 0]
            current[2] += warp
            current[3] += thread
            current[4] += 1
        elif current is not None:
            runs.append(current)
            current = None
    if current is not None:
        runs.append(current)
    runs.sort(key=lambda r: -r[2])
    return [(a, s, w / steps, t / w if w else 0, k) for a, s, w, t, k in runs]


def main():
    sass, summary = sys.argv[1], json.load(open(sys.argv[2]))
    steps = summary["photons"] * summary["steps_per_photon"]
    rows = list(read_rows(sass))
    warp = sum(r[2] for r in rows)
    thread = sum(r[3] for r in rows)
    print(f"{summary['input']['file']}: {summary['photons']} photons x "
          f"{summary['steps_per_photon']:.1f} steps")
    print(f"  {warp / steps:.2f} warp-instructions/step, {thread / steps:.1f} "
          f"thread-instructions/step, {thread / warp:.1f} active lanes")
    band = {label: 0.0 for _, label in BANDS}
    for _, _, w, t in rows:
        lanes = t / w if w else 0
        band[next(label for low, label in BANDS if lanes >= low)] += w
    for _, label in BANDS:
        print(f"  {label:12s} {100 * band[label] / warp:5.1f} % ({band[label] / steps:.2f}/step)")
    print("  hottest divergent runs (warp-instructions/step, lanes, length, first instruction):")
    for address, source, per_step, lanes, length in divergent_runs(rows, steps)[:6]:
        print(f"    {per_step:6.3f}  {lanes:4.1f}  {length:3d}  {address[-6:]} {source[:60]}")


if __name__ == "__main__":
    main()
