"""`python -m tmcml fit MODEL DATA`: tmcml.fit from a model file (TOML or
JSON) and a CSV of measurements; prints the parameters with their errors
and writes the fit's JSON and plot (docs/fit.md, "The command")."""

import argparse
import csv
import json
import math
import os
import sys

import numpy as np

from .detector import FiberDetector
from .fit import fit

# The model file's keys beside layers: tmcml.fit's keywords.
RUN_KEYS = {"photons": int, "seed": int, "engine": str, "threads": int, "n_above": float,
            "n_below": float, "ring_width": float, "dr": float, "time_width": float,
            "dt": float, "max_runs": int}
OPTICS_KEYS = ("n", "mua", "mus", "musp", "g", "d")
# A layer with any of these is a chromophore layer (tmcml.fit's dicts).
SPECTRAL_ONLY = {"blood", "sto2", "water", "lipid", "melanin", "a", "b"}


def main(argv):
    args = _parser().parse_args(argv)
    try:
        model = read_model(args.model)
        data = read_data(args.data, model["spectral"], model["fiber"])
        result = fit(layers=model["layers"], free=model["free"], bounds=model["bounds"],
                     **data, **model["run"])
    except (ValueError, OSError) as e:
        print("tmcml fit: %s" % e, file=sys.stderr)
        return 2
    print(result)
    return _write(result, args)


def _parser():
    p = argparse.ArgumentParser(prog="python -m tmcml fit", description=(
        "Fits the free parameters of the layers in MODEL (TOML or JSON) to the reflectance "
        "in DATA (CSV with a header: r,Rd,sigma for rings; separation,Rd,sigma for fibers "
        "(the model's fiber = {radius, na}); t,Rd,sigma or r,t,Rd,sigma time-resolved; "
        "wavelength first for spectra; several Rd columns and no sigma: repeated "
        "measurements).  docs/fit.md."))
    p.add_argument("model", help="the model: layers, free parameters, run settings")
    p.add_argument("data", help="the measurements, CSV")
    p.add_argument("-o", "--output", default=".", help="directory of NAME.fit.json and "
                   "NAME.fit.png (NAME: DATA's name without .csv; created if missing; files "
                   "of those names are replaced, as `tmcml run` replaces its .mco)")
    p.add_argument("--no-plot", action="store_true", help="no NAME.fit.png")
    return p


def _write(result, args):
    os.makedirs(args.output, exist_ok=True)
    stem = os.path.join(args.output, os.path.splitext(os.path.basename(args.data))[0])
    result.save_json(stem + ".fit.json")
    print("wrote %s.fit.json" % stem)
    if not args.no_plot:
        try:
            result.plot(stem + ".fit.png")
            print("wrote %s.fit.png" % stem)
        except ImportError as e:
            print("tmcml fit: no plot: %s" % e, file=sys.stderr)
    return 0 if result.success else 1


def read_model(path):
    """The model file as {'layers', 'free', 'bounds', 'spectral', 'run'}:
    each layer a table of its properties with `free` (a list of names) and
    `bounds` ({name: [low, high]}); the run's settings at the top."""
    text = _read_text(path)
    try:
        if path.endswith(".toml"):
            import tomllib
            raw = tomllib.loads(text)
        else:
            raw = json.loads(text)
    except ValueError as e:
        raise ValueError("%s: not valid %s: %s" % (path, "TOML" if path.endswith(".toml")
                                                   else "JSON", e)) from None
    if not isinstance(raw, dict) or not isinstance(raw.get("layers"), list) or \
            not raw["layers"]:
        raise ValueError("%s: expected a list of layers ([[layers]] in TOML)" % path)
    unknown = sorted(set(raw) - set(RUN_KEYS) - {"layers", "fiber", "free"})
    if unknown:
        raise ValueError("%s: unknown key %r (known: layers, fiber, free, %s)"
                         % (path, unknown[0], ", ".join(RUN_KEYS)))
    run = {k: _typed(path, k, v, RUN_KEYS[k]) for k, v in raw.items()
           if k not in ("layers", "fiber", "free")}
    fiber = _fiber(path, raw.get("fiber"))
    spectral = any(set(layer) & SPECTRAL_ONLY for layer in raw["layers"]
                   if isinstance(layer, dict))
    layers, free, bounds = [], _shared(path, raw.get("free", [])), {}
    for i, layer in enumerate(raw["layers"]):
        if not isinstance(layer, dict):
            raise ValueError("%s: layer %d: expected a table of properties" % (path, i))
        layer = dict(layer)
        for name in layer.pop("free", []):
            free.append((name, i))
        for name, interval in layer.pop("bounds", {}).items():
            bounds[(name, i)] = tuple(interval)
        layers.append(layer if spectral else _optics_row(path, i, layer))
    return {"layers": layers, "free": free, "bounds": bounds, "spectral": spectral, "run": run,
            "fiber": fiber}


def _shared(path, free):
    """The model's top-level free = [[name, [layers]], ...]: parameters that
    layers share (tmcml.fit's ("b", (0, 1)))."""
    if not isinstance(free, list) or not all(isinstance(p, list) and len(p) == 2 and
                                             isinstance(p[0], str) for p in free):
        raise ValueError("%s: free: expected a list of [name, layer or [layers]] (got %r)"
                         % (path, free))
    return [(name, tuple(layer) if isinstance(layer, list) else layer) for name, layer in free]


def _fiber(path, fiber):
    """The model's fiber = { radius, na } (cm, numerical aperture), or None."""
    if fiber is None:
        return None
    if not isinstance(fiber, dict) or set(fiber) != {"radius", "na"}:
        raise ValueError("%s: fiber: expected { radius = cm, na = numerical aperture } (got %r)"
                         % (path, fiber))
    return {k: _typed(path, "fiber." + k, v, float) for k, v in fiber.items()}


def _typed(path, key, value, kind):
    if isinstance(value, bool) or (kind is not str and not isinstance(value, (int, float))) or \
            (kind is str and not isinstance(value, str)):
        raise ValueError("%s: %s: expected a %s (got %r)"
                         % (path, key, {int: "whole number", float: "number", str: "string"}[kind],
                            value))
    if kind is int:
        if float(value) != int(value):
            raise ValueError("%s: %s: expected a whole number (got %r)" % (path, key, value))
        return int(value)
    return kind(value)


def _optics_row(path, i, layer):
    """An optical-property layer as tmcml.run's row [n, mua, mus, g, d];
    mus' may stand for mus (mus = mus' / (1 - g))."""
    unknown = sorted(set(layer) - set(OPTICS_KEYS))
    if unknown:
        raise ValueError("%s: layer %d: unknown key %r (a layer has n, mua, mus or musp, g, d, "
                         "free and bounds; or, of chromophores, n, d, g, blood, sto2, water, "
                         "lipid, melanin, a and b)" % (path, i, unknown[0]))
    missing = [k for k in ("n", "mua", "g", "d") if k not in layer]
    if missing or ("mus" in layer) == ("musp" in layer):
        raise ValueError("%s: layer %d: needs n, mua, g, d and one of mus or musp (missing: %s)"
                         % (path, i, ", ".join(missing) or "mus or musp"))
    d = layer["d"]
    d = math.inf if d == "inf" else d
    mus = layer["mus"] if "mus" in layer else layer["musp"] / (1 - layer["g"])
    return [layer["n"], layer["mua"], mus, layer["g"], d]


def read_data(path, spectral, fiber=None):
    """The CSV as tmcml.fit's keywords (data, sigma and where: r, fibers or
    t; wavelengths).  Columns: Rd and sigma (several Rd columns without
    sigma: repeated measurements), and where each value is: r (a ring), or
    separation (a fiber of the model's `fiber`), or t (a time bin; with r,
    of that ring); wavelength first for a spectrum.  A row a value."""
    rows, header = _csv_rows(path)
    columns = {name: np.array([row[k] for row in rows]) for k, name in enumerate(header)}
    rd = [k for k, name in enumerate(header) if name == "Rd"]
    if not rd:
        raise ValueError("%s: no Rd column (the header has %s)" % (path, ", ".join(header)))
    values = np.array([[row[k] for row in rows] for k in rd])  # (repeats, rows)
    sigma = columns.get("sigma")
    if sigma is None and len(rd) < 2:
        raise ValueError("%s: no sigma column and one Rd column: give each value's standard "
                         "error (sigma), or several Rd columns of repeated measurements" % path)
    axes = _axes(path, columns, spectral, fiber)
    data, sigma, ticks = _on_axes(path, [columns[a] for a in axes], values, sigma)
    out = {"data": data, "sigma": sigma}
    for name, tick in zip(axes, ticks):
        if name == "separation":
            out["fibers"] = [FiberDetector(x, fiber["radius"], fiber["na"]) for x in tick]
        else:
            out[{"wavelength": "wavelengths"}.get(name, name)] = tick
    return out


def _axes(path, columns, spectral, fiber):
    """The columns that say where each value is, in the data's axis order."""
    first = ["wavelength"] if spectral else []
    if "t" in columns:
        if spectral:
            raise ValueError("%s: a t column with a spectrum's model: time-resolved spectra "
                             "are not fitted (yet)" % path)
        return ["r", "t"] if "r" in columns else ["t"]
    if "separation" in columns:
        if fiber is None:
            raise ValueError("%s: a separation column, but the model has no fiber = { radius, "
                             "na }" % path)
        return first + ["separation"]
    missing = [c for c in first + ["r"] if c not in columns]
    if missing:
        raise ValueError("%s: no %s column (the header has %s)"
                         % (path, ", ".join(missing), ", ".join(columns)))
    return first + ["r"]


def _on_axes(path, where, values, sigma):
    """Rows of values at coordinates `where` (one array a column) as arrays
    on the grid of the distinct coordinates: every point once."""
    ticks = [np.unique(w) for w in where]
    shape = tuple(len(t) for t in ticks)
    at = np.ravel_multi_index([np.searchsorted(t, w) for t, w in zip(ticks, where)], shape)
    if len(at) != int(np.prod(shape)) or len(set(at.tolist())) != len(at):
        raise ValueError("%s: %d rows for a grid of %s points: every combination of the "
                         "coordinates needs one row, once" % (path, len(at), " x ".join(
                             str(n) for n in shape)))
    grid = np.empty((values.shape[0],) + shape)
    grid.reshape(values.shape[0], -1)[:, at] = values
    if sigma is None:
        return grid, None, ticks
    sig = np.empty(shape)
    sig.reshape(-1)[at] = sigma
    return grid[0], sig, ticks


def _csv_rows(path):
    with open(path, newline="") as f:
        lines = [line for line in csv.reader(f) if line and not line[0].startswith("#")]
    if len(lines) < 2:
        raise ValueError("%s: expected a header row and data rows" % path)
    header = [h.strip() for h in lines[0]]
    rows = []
    for n, line in enumerate(lines[1:], 2):
        if len(line) != len(header):
            raise ValueError("%s: row %d has %d values for %d columns" % (path, n, len(line),
                                                                          len(header)))
        try:
            rows.append([float(x) for x in line])
        except ValueError:
            raise ValueError("%s: row %d: not a number in %r" % (path, n, ",".join(line))) \
                from None
    return rows, header


def _read_text(path):
    with open(path, encoding="utf-8") as f:
        return f.read()
