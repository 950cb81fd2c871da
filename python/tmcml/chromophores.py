"""Absorption of tissue from its chromophores (docs/chromophores.md): the
absorption coefficient of oxy- and deoxy-hemoglobin in whole blood, water,
fat and melanosomes, from published tabulations shipped in tmcml/data/, and
a scattering power law.

    from tmcml import chromophores
    nm = [500, 650, 800]
    mua = chromophores.mua(nm, blood=0.02, sto2=0.7, water=0.6, lipid=0.1)  # 1/cm
    musp = chromophores.musp(nm, a=20.0, b=1.2)                             # 1/cm
    spectra = chromophores.basis(nm)      # each chromophore's mua, per unit fraction

Wavelengths are in nm, absorption and scattering coefficients in 1/cm.
Tables are interpolated linearly and never extrapolated: a wavelength
outside a table's range raises ValueError."""

import functools
import math
import os

import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")

# Whole blood: 150 g of hemoglobin a litre, of molar mass 64,500 g/mol (the
# OMLC page's figures), so C = 150 / 64500 mol/L and mua = ln(10) eps C.
HEMOGLOBIN_G_PER_L = 150.0
HEMOGLOBIN_G_PER_MOL = 64500.0

# Jacques' power law for the interior of a (eu)melanosome: mua = A nm^-B.
MELANOSOME_A = 6.6e11
MELANOSOME_B = 3.33
# The law is a fit, not a table: tmcml applies it over the visible and near
# infrared, where it is used, and refuses it elsewhere (tmcml's choice; the
# source states no range).
MELANIN_RANGE = (400.0, 1100.0)

# The order of basis()'s dict and of the mix in mua().
CHROMOPHORES = ("oxy", "deoxy", "water", "lipid", "melanin")

_OMLC_TERMS = ("unclear: the OMLC page states no licence and the copies taken name none; "
               "shipped as measurements with their attribution")

SOURCES = {
    "hemoglobin": {
        "chromophores": ("oxy", "deoxy"),
        "file": "hemoglobin_prahl.txt",
        "source": "W. B. Gratzer (MRC Labs, London) and N. Kollias (Wellman Laboratories, "
                  "Harvard Medical School): molar extinction coefficients of HbO2 and Hb",
        "compilation": "S. Prahl, Oregon Medical Laser Center, "
                       "https://omlc.org/spectra/hemoglobin/summary.html",
        "taken_from": "github.com/droumis/spectra data/data_hb.csv at "
                      "8a06aaf73b07f6d0f7e88e1bb8755d5fbc665437 (equal to "
                      "github.com/hzeller/hemoglobin hem.data at 750f8e70)",
        "licence": _OMLC_TERMS,
    },
    "water": {
        "chromophores": ("water",),
        "file": "water_segelstein81.txt",
        "source": "D. J. Segelstein, The complex refractive index of water, M.S. thesis, "
                  "University of Missouri-Kansas City, 1981",
        "compilation": "Oregon Medical Laser Center, https://omlc.org/spectra/water/",
        "taken_from": "github.com/scottprahl/miepython miepython/data/segelstein81_index.txt "
                      "at faa9a019d345784b9af24a78c397a923cd87bf95",
        "licence": "MIT (miepython, Copyright 2017-2021 Scott Prahl; notice in the data file)",
    },
    "lipid": {
        "chromophores": ("lipid",),
        "file": "fat_vanveen.txt",
        "source": "R. L. P. van Veen, H. J. C. M. Sterenborg, A. Pifferi, A. Torricelli, "
                  "R. Cubeddu, OSA BIOMED Topical Meeting 2004 (J. Biomed. Opt. 10, "
                  "054004, 2005): absorption of mammalian fat",
        "compilation": "Oregon Medical Laser Center, https://omlc.org/spectra/fat/",
        "taken_from": "github.com/tre26/MCXTools spectra/lipids.txt at "
                      "c99cfaed4c168cefb96454bd09d0ed0b08d6d60e (equal to "
                      "github.com/mmigas/LiverRenderer liver/data/lipid_data.txt at e09b2d97)",
        "licence": _OMLC_TERMS,
    },
    "melanin": {
        "chromophores": ("melanin",),
        "file": None,
        "source": "S. L. Jacques, Skin optics summary, Oregon Medical Laser Center News, "
                  "January 1998 (https://omlc.org/news/jan98/skinoptics.html): "
                  "eumelanosome mua = 6.6e11 * nm^-3.33 1/cm",
        "compilation": None,
        "taken_from": "a formula, no table",
        "licence": "a published formula (no data shipped)",
    },
}


def _rows(name):
    """The numeric rows of a data file (its '#' header skipped)."""
    return np.loadtxt(os.path.join(DATA, name), comments="#", ndmin=2)


@functools.lru_cache(maxsize=None)
def _table(name):
    """(wavelengths in nm, mua per unit fraction in 1/cm) of a tabulated
    chromophore, read once."""
    if name in ("oxy", "deoxy"):
        rows = _rows(SOURCES["hemoglobin"]["file"])
        molar = HEMOGLOBIN_G_PER_L / HEMOGLOBIN_G_PER_MOL
        epsilon = rows[:, 1] if name == "oxy" else rows[:, 2]
        return rows[:, 0], math.log(10.0) * epsilon * molar
    if name == "water":
        rows = _rows(SOURCES["water"]["file"])
        micrometres, k = rows[:, 0], rows[:, 2]
        return micrometres * 1e3, 4.0 * math.pi * k / (micrometres * 1e-4)
    if name == "lipid":
        rows = _rows(SOURCES["lipid"]["file"])
        return rows[:, 0], rows[:, 1] / 100.0  # 1/m to 1/cm
    raise ValueError("tmcml.chromophores: %r has no table" % (name,))


def table_range(name):
    """(lowest, highest) wavelength in nm over which `name` (one of
    CHROMOPHORES) is defined."""
    if name == "melanin":
        return MELANIN_RANGE
    if name not in CHROMOPHORES:
        raise ValueError("tmcml.chromophores: unknown chromophore %r (known: %s)"
                         % (name, ", ".join(CHROMOPHORES)))
    nm = _table(name)[0]
    return float(nm[0]), float(nm[-1])


def ranges():
    """{chromophore: (lowest, highest) wavelength in nm}."""
    return {name: table_range(name) for name in CHROMOPHORES}


def _wavelengths(wavelengths_nm):
    """The wavelengths as a float array, refused when not finite and positive."""
    try:
        nm = np.asarray(wavelengths_nm, dtype=float)
    except (TypeError, ValueError):
        raise ValueError("wavelengths_nm: not numbers: %r" % (wavelengths_nm,)) from None
    bad = ~np.isfinite(nm) | (nm <= 0)
    if bad.any():
        raise ValueError("wavelengths_nm: %r is not a positive wavelength in nm"
                         % float(nm[bad].flat[0]))
    return nm


def _within(name, nm):
    """Refuses wavelengths outside the chromophore's range, naming both."""
    low, high = table_range(name)
    outside = (nm < low) | (nm > high)
    if outside.any():
        raise ValueError("tmcml.chromophores: %s: wavelength %g nm is outside its table's "
                         "range %g-%g nm" % (name, float(nm[outside].flat[0]), low, high))


def _spectrum(name, nm):
    """mua per unit fraction of one chromophore at the wavelengths, in 1/cm."""
    _within(name, nm)
    if name == "melanin":
        return MELANOSOME_A * nm ** -MELANOSOME_B
    table_nm, table_mua = _table(name)
    return np.interp(nm, table_nm, table_mua)


def basis(wavelengths_nm, names=CHROMOPHORES):
    """{name: mua in 1/cm per unit fraction} at the wavelengths, for each of
    `names` (all of CHROMOPHORES by default): "oxy" and "deoxy" per unit
    blood volume fraction, fully oxygenated and fully deoxygenated; "water",
    "lipid" and "melanin" the pure substance (melanin: melanosome interior).
    Then mua = blood * (sto2 * oxy + (1 - sto2) * deoxy) + water * w +
    lipid * l + melanin * m; the derivatives of mua are these spectra."""
    nm = _wavelengths(wavelengths_nm)
    unknown = [n for n in names if n not in CHROMOPHORES]
    if unknown:
        raise ValueError("names: unknown chromophore %r (known: %s)"
                         % (unknown[0], ", ".join(CHROMOPHORES)))
    return {name: _spectrum(name, nm) for name in names}


def _fraction(name, value):
    """A volume fraction or saturation: a finite number in [0, 1]."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ValueError("%s: not a number: %r" % (name, value)) from None
    if not 0.0 <= x <= 1.0:  # NaN fails too
        raise ValueError("%s: %r is outside [0, 1]" % (name, value))
    return x


def mua(wavelengths_nm, blood=0.0, sto2=0.0, water=0.0, lipid=0.0, melanin=0.0):
    """Absorption coefficient in 1/cm of a tissue mixing whole blood (volume
    fraction `blood`, oxygen saturation `sto2`), water, fat (`lipid`) and
    melanosomes (`melanin`), each fraction in [0, 1], at the wavelengths in
    nm.  Only the chromophores present (weight > 0) need cover the
    wavelengths."""
    weights = mixture(blood=blood, sto2=sto2, water=water, lipid=lipid, melanin=melanin)
    nm = _wavelengths(wavelengths_nm)
    present = [name for name in CHROMOPHORES if weights[name] > 0.0]
    spectra = basis(nm, present)
    total = np.zeros(nm.shape)
    for name in present:
        total += weights[name] * spectra[name]
    return total


def mixture(blood=0.0, sto2=0.0, water=0.0, lipid=0.0, melanin=0.0):
    """{chromophore: its weight in mua()}, the fractions checked."""
    blood = _fraction("blood", blood)
    sto2 = _fraction("sto2", sto2)
    return {"oxy": blood * sto2, "deoxy": blood * (1.0 - sto2),
            "water": _fraction("water", water), "lipid": _fraction("lipid", lipid),
            "melanin": _fraction("melanin", melanin)}


def musp(wavelengths_nm, a, b):
    """Reduced scattering coefficient a * (lambda / 500 nm)^-b in 1/cm: `a`
    (> 0) is mus' at 500 nm in 1/cm, `b` the scattering power."""
    nm = _wavelengths(wavelengths_nm)
    try:
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        raise ValueError("a, b: not numbers: %r, %r" % (a, b)) from None
    if not (math.isfinite(a) and a > 0):
        raise ValueError("a: %r is not a positive mus' at 500 nm in 1/cm" % a)
    if not math.isfinite(b):
        raise ValueError("b: %r is not a finite scattering power" % b)
    return a * (nm / 500.0) ** -b
