"""tmcml.chromophores (docs/chromophores.md): the spectra against values read
from the published tables (literal numbers copied from the sources, not from
the shipped files' parsing), physics the tables must show (the hemoglobin
isosbestic point near 800 nm, water's peak near 970 nm, melanin falling),
mua() linear in each fraction and built from basis(), the scattering power
law, and every bad argument refused by name."""

import math
import os

import numpy as np
import pytest

from tmcml import chromophores as chrom

# Whole blood as the docs state it: 150 g/L of hemoglobin, 64,500 g/mol.
PER_EPSILON = math.log(10.0) * 150.0 / 64500.0

# Prahl's OMLC table (Gratzer, Kollias): nm -> (eps HbO2, eps Hb) in cm-1/M.
HEMOGLOBIN = {500: (20932.8, 20862.0), 650: (368.0, 3750.12), 800: (816.0, 761.72),
              900: (1198.0, 761.84)}
# OMLC's segelstein81 absorption table (1/cm), a copy other than the shipped
# refractive index: its 800 and 971 nm rows are the index's 0.7998 and
# 0.9705 um rows.
WATER = {799.8: 0.019640, 970.5: 0.45345}
# van Veen's fat (OMLC fat.txt) in 1/m.
FAT = {500: 1.906, 930: 13.10, 1070: 5.065}


def test_hemoglobin_matches_the_table():
    nm = sorted(HEMOGLOBIN)
    b = chrom.basis(nm, ("oxy", "deoxy"))
    for i, w in enumerate(nm):
        oxy, deoxy = HEMOGLOBIN[w]
        assert b["oxy"][i] == pytest.approx(oxy * PER_EPSILON, rel=1e-12)
        assert b["deoxy"][i] == pytest.approx(deoxy * PER_EPSILON, rel=1e-12)
    # Whole blood at 800 nm absorbs about 4 /cm (a known magnitude).
    assert 3.5 < b["oxy"][nm.index(800)] < 5.0


def test_water_matches_the_table():
    nm = sorted(WATER)
    got = chrom.basis(nm, ("water",))["water"]
    for i, w in enumerate(nm):
        assert got[i] == pytest.approx(WATER[w], rel=1e-3)


def test_fat_matches_the_table():
    nm = sorted(FAT)
    got = chrom.basis(nm, ("lipid",))["lipid"]
    for i, w in enumerate(nm):
        assert got[i] == pytest.approx(FAT[w] / 100.0, rel=1e-12)


def test_melanin_is_jacques_power_law_and_falls():
    nm = np.arange(400.0, 1100.0, 5.0)
    m = chrom.basis(nm, ("melanin",))["melanin"]
    assert m[0] == pytest.approx(6.6e11 * 400.0 ** -3.33, rel=1e-12)
    assert np.all(np.diff(m) < 0)


def test_isosbestic_point_near_800_nm():
    nm = np.arange(780.0, 820.01, 0.5)
    b = chrom.basis(nm, ("oxy", "deoxy"))
    sign = np.sign(b["oxy"] - b["deoxy"])
    flips = np.nonzero(np.diff(sign))[0]
    assert len(flips) == 1
    # The table's rows: 796 nm 786.4 < 802.96, 798 nm 807.2 > 782.36.
    assert 796.0 <= nm[flips[0]] and nm[flips[0] + 1] <= 798.0


def test_deoxy_above_oxy_in_the_red_and_below_in_the_infrared():
    b = chrom.basis([650.0, 700.0, 900.0, 950.0], ("oxy", "deoxy"))
    assert np.all(b["deoxy"][:2] > 5 * b["oxy"][:2])
    assert np.all(b["oxy"][2:] > b["deoxy"][2:])


def test_water_peaks_between_960_and_980_nm():
    nm = np.arange(900.0, 1050.0, 0.5)
    w = chrom.basis(nm, ("water",))["water"]
    assert 960.0 <= nm[np.argmax(w)] <= 980.0


def test_mua_is_the_basis_mix():
    nm = np.linspace(450.0, 900.0, 46)
    b = chrom.basis(nm)
    mix = dict(blood=0.03, sto2=0.65, water=0.55, lipid=0.2, melanin=0.01)
    want = (0.03 * (0.65 * b["oxy"] + 0.35 * b["deoxy"]) + 0.55 * b["water"]
            + 0.2 * b["lipid"] + 0.01 * b["melanin"])
    np.testing.assert_allclose(chrom.mua(nm, **mix), want, rtol=1e-13)


@pytest.mark.parametrize("name", ["blood", "water", "lipid", "melanin"])
def test_mua_is_linear_in_each_fraction(name):
    nm = np.array([460.0, 560.0, 760.0, 880.0])
    base = dict(blood=0.0, sto2=0.8, water=0.0, lipid=0.0, melanin=0.0)
    one = chrom.mua(nm, **dict(base, **{name: 0.1}))
    three = chrom.mua(nm, **dict(base, **{name: 0.3}))
    np.testing.assert_allclose(three, 3 * one, rtol=1e-13)
    assert np.all(one > 0)


def test_saturation_moves_blood_between_deoxy_and_oxy():
    nm = [560.0, 660.0, 840.0]
    b = chrom.basis(nm, ("oxy", "deoxy"))
    np.testing.assert_allclose(chrom.mua(nm, blood=1, sto2=1), b["oxy"], rtol=1e-15)
    np.testing.assert_allclose(chrom.mua(nm, blood=1, sto2=0), b["deoxy"], rtol=1e-15)
    half = chrom.mua(nm, blood=1, sto2=0.5)
    np.testing.assert_allclose(half, (b["oxy"] + b["deoxy"]) / 2, rtol=1e-13)


def test_no_chromophore_no_absorption_and_shape_kept():
    assert chrom.mua(700.0).shape == ()
    np.testing.assert_array_equal(chrom.mua([[500.0, 600.0]]), np.zeros((1, 2)))


def test_ranges_cover_the_fit():
    r = chrom.ranges()
    assert r["oxy"] == r["deoxy"] == (250.0, 1000.0)
    assert r["water"] == (200.0, 2500.0)
    assert r["lipid"] == (429.0, 1098.0)
    for low, high in r.values():
        assert low <= 450.0 and high >= 900.0


def test_outside_a_table_names_chromophore_wavelength_and_range():
    with pytest.raises(ValueError, match=r"lipid: wavelength 1200 nm .* 429-1098 nm"):
        chrom.mua([800.0, 1200.0], lipid=0.2)
    with pytest.raises(ValueError, match=r"oxy: wavelength 1010 nm .* 250-1000 nm"):
        chrom.basis([1010.0])
    with pytest.raises(ValueError, match=r"melanin: wavelength 300 nm"):
        chrom.mua([300.0], melanin=0.1)
    # A chromophore absent from the mix imposes no range.
    assert chrom.mua([1200.0], water=1.0)[0] > 0


@pytest.mark.parametrize("kwargs, name", [
    (dict(blood=1.5), "blood"), (dict(blood=-0.01), "blood"), (dict(blood=float("nan")), "blood"),
    (dict(sto2=1.01), "sto2"), (dict(water=2), "water"), (dict(lipid=-1), "lipid"),
    (dict(melanin=float("inf")), "melanin"), (dict(water="a lot"), "water"),
])
def test_bad_fractions_are_named(kwargs, name):
    with pytest.raises(ValueError, match="^" + name):
        chrom.mua([600.0], **kwargs)


@pytest.mark.parametrize("nm", [[-500.0], [0.0], [float("nan")], ["red"]])
def test_bad_wavelengths_are_named(nm):
    with pytest.raises(ValueError, match="^wavelengths_nm"):
        chrom.mua(nm, water=0.5)
    with pytest.raises(ValueError, match="^wavelengths_nm"):
        chrom.musp(nm, 10.0, 1.0)


def test_unknown_names_are_refused():
    with pytest.raises(ValueError, match="^names: unknown chromophore 'bilirubin'"):
        chrom.basis([600.0], ("oxy", "bilirubin"))
    with pytest.raises(ValueError, match="unknown chromophore 'fat'"):
        chrom.table_range("fat")


def test_musp_power_law():
    got = chrom.musp([500.0, 1000.0, 250.0], a=20.0, b=1.5)
    np.testing.assert_allclose(got, [20.0, 20.0 * 2 ** -1.5, 20.0 * 2 ** 1.5], rtol=1e-15)
    for a in (0.0, -1.0, float("nan"), "x"):
        with pytest.raises(ValueError, match="^a"):
            chrom.musp([600.0], a, 1.0)
    with pytest.raises(ValueError, match="^b"):
        chrom.musp([600.0], 10.0, float("inf"))


def test_every_source_names_its_origin_and_licence():
    for name, source in chrom.SOURCES.items():
        for key in ("source", "taken_from", "licence"):
            assert source[key], (name, key)
        if source["file"]:
            with open(os.path.join(chrom.DATA, source["file"]), encoding="utf-8") as f:
                header = f.read(4000)
            for word in ("# Source:", "# Licence:", "# Units:", "# Range:"):
                assert word in header, (source["file"], word)
    covered = {c for s in chrom.SOURCES.values() for c in s["chromophores"]}
    assert covered == set(chrom.CHROMOPHORES)
