"""Numbers whatever the host's locale (issue 21): a program that calls
locale.setlocale(LC_ALL, "") on a German system gets, byte for byte, the
.mco and .mci files of a program in the C locale, valid JSON, its files
read, and its own locale back.  Skipped without a de_DE.UTF-8 locale
(tests/make_locale.sh makes one under $LOCPATH)."""

import json
import locale
import os

import numpy as np
import pytest

import tmcml
from conftest import EXAMPLE


@pytest.fixture
def german():
    try:
        locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")
    except locale.Error:
        pytest.skip("no de_DE.UTF-8 locale (LOCPATH=%s; tests/make_locale.sh makes one)"
                    % os.environ.get("LOCPATH", ""))
    if locale.localeconv()["decimal_point"] != ",":
        pytest.skip("de_DE.UTF-8 without a decimal comma")
    yield
    locale.setlocale(locale.LC_ALL, "C")


def write_all(where):
    """A CPU run saved as .mco (and JSON), its input saved as .mci."""
    where.mkdir()
    r = tmcml.run(**dict(EXAMPLE, photons=2000, engine="cpu", threads=1, progress=False))
    r.save_mco(where / "run.mco")
    tmcml.save_mci(where / "run.mci", photons=2000, out_name="run.mco", **EXAMPLE)
    return r


def test_german_locale_writes_and_reads_as_c(tmp_path, german):
    locale.setlocale(locale.LC_ALL, "C")
    c = write_all(tmp_path / "c")
    # The case: a result made in the C locale, saved in German.
    locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")
    (tmp_path / "again").mkdir()
    c.save_mco(tmp_path / "again" / "run.mco")  # the .mco names itself: same name
    assert (tmp_path / "again" / "run.mco").read_bytes() == (tmp_path / "c" / "run.mco").read_bytes()
    with open(tmp_path / "again" / "run.json") as f:
        assert json.load(f)["input"]["dz"] == 0.01
    de = write_all(tmp_path / "de")
    assert locale.localeconv()["decimal_point"] == ","  # the program's locale, kept
    for name in ("run.mco", "run.mci"):
        assert (tmp_path / "de" / name).read_bytes() == (tmp_path / "c" / name).read_bytes(), name
    with open(tmp_path / "de" / "run.json") as f:
        assert json.load(f)["input"]["dz"] == 0.01
    np.testing.assert_array_equal(de.A_rz, c.A_rz)
    back = tmcml.load_mco(tmp_path / "de" / "run.mco")
    assert back.dz == 0.01 and back.layers.tolist() == [list(map(float, l)) for l in
                                                        EXAMPLE["layers"]]
    (again,) = tmcml.run_mci(tmp_path / "de" / "run.mci", photons=2000, engine="cpu", threads=1,
                             progress=False)
    np.testing.assert_array_equal(again.A_rz, c.A_rz)
    assert locale.localeconv()["decimal_point"] == ","
