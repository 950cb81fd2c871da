"""tmcml run --npz (runtime/io/npz.c): NAME.npz, read with numpy.load, holds
every array of the library (tmcml.ARRAYS) bit for bit, the .mco's within the
digits it prints, the RAT, the grid and their units."""

import os
import subprocess
import zipfile

import numpy as np

import tmcml
from tmcml._lib import lib

PHOTONS, SEED = 3000, 5
# The arrays of every optional group, there only in runs that ask for them.
OPTIONAL = (tmcml.PATH_ARRAYS + tmcml.TIME_ARRAYS + tmcml.DETECTOR_ARRAYS + tmcml.JACOBIAN_ARRAYS +
            tmcml.FX_ARRAYS + tmcml.MOD_ARRAYS + tmcml.XY_ARRAYS)


def run_cli(cli, mci, out, *more):
    subprocess.run([cli, "run", mci, "-o", str(out), "-N", str(PHOTONS), "-S", str(SEED),
                    "--engine", "cpu", "-q", *more], check=True)


def test_npz_is_the_library_arrays(cli, root, tmp_path):
    mci = os.path.join(root, "examples", "mcml_example.mci")
    run_cli(cli, mci, tmp_path, "--npz")
    path = tmp_path / "example.npz"
    with zipfile.ZipFile(path) as z:  # every CRC right, nothing compressed
        assert z.testzip() is None
        assert {i.compress_type for i in z.infolist()} == {zipfile.ZIP_STORED}
    npz = np.load(path, allow_pickle=False)
    lib_result = tmcml.run_mci(mci, photons=PHOTONS, seed=SEED, engine="cpu", progress=False)[0]
    mco = tmcml.load_mco(tmp_path / "example.mco")
    units = dict(npz["units"])
    for i, name in enumerate(tmcml.ARRAYS):
        if name in OPTIONAL:
            # optional: not asked for, not written
            assert name not in npz.files and getattr(lib_result, name) is None
            continue
        a, want = npz[name], getattr(lib_result, name)
        assert a.dtype == np.dtype("<f8") and a.shape == want.shape, name
        np.testing.assert_array_equal(a, want, err_msg=name)
        # The .mco prints %12.4E (5 significant digits), A_l %12.4G (4).
        rtol = 5e-4 if name == "A_l" else 5e-5
        np.testing.assert_allclose(a, getattr(mco, name), rtol=rtol, atol=0, err_msg=name)
        assert units[name] == lib.tmcml_array_unit(i).decode(), name
    for name in ("Rsp", "Rd", "A", "Tt", "dr", "dz", "da", "r", "z", "a"):
        np.testing.assert_array_equal(npz[name], getattr(lib_result, name), err_msg=name)
    assert npz["Rd"].shape == () and npz["r"].shape == (lib_result.nr,)
    assert units["Rd"] == "-" and units["r"] == "cm" and units["da"] == "rad"
    assert set(units) == set(npz.files) - {"units"}


def test_npz_spatial_frequencies(cli, root, tmp_path):
    """--spatial-frequencies: fx, Rd_fx and Tt_fx in the .npz, the library's
    bit for bit (and fx in 1/cm), Rd_fx[0] the run's Rd."""
    mci = os.path.join(root, "examples", "mcml_example.mci")
    run_cli(cli, mci, tmp_path, "--npz", "--spatial-frequencies", "0:0.05:0.2/mm")
    npz = np.load(tmp_path / "example.npz", allow_pickle=False)
    r = tmcml.run_mci(mci, photons=PHOTONS, seed=SEED, engine="cpu", progress=False,
                      spatial_frequencies=[0, 0.5, 1, 1.5, 2])[0]
    np.testing.assert_array_equal(npz["fx"], [0, 0.5, 1, 1.5, 2])
    np.testing.assert_array_equal(npz["fx"], r.fx)
    for name in ("Rd_fx", "Tt_fx"):
        np.testing.assert_array_equal(npz[name], getattr(r, name), err_msg=name)
    assert npz["Rd_fx"][0] == npz["Rd"] and npz["Tt_fx"][0] == npz["Tt"]
    units = dict(npz["units"])
    assert units["fx"] == "1/cm" and units["Rd_fx"] == "-"


def test_npz_modulation(cli, root, tmp_path):
    """--modulation: modulation (Hz) and the frequency domain's arrays in the
    .npz, the library's bit for bit, with their units."""
    mci = os.path.join(root, "examples", "mcml_example.mci")
    run_cli(cli, mci, tmp_path, "--npz", "--modulation", "100:100:300MHz")
    npz = np.load(tmp_path / "example.npz", allow_pickle=False)
    r = tmcml.run_mci(mci, photons=PHOTONS, seed=SEED, engine="cpu", progress=False,
                      modulation=[1e8, 2e8, 3e8])[0]
    np.testing.assert_array_equal(npz["modulation"], [1e8, 2e8, 3e8])
    np.testing.assert_array_equal(npz["modulation"], r.modulation)
    for name in tmcml.MOD_ARRAYS:
        np.testing.assert_array_equal(npz[name], getattr(r, name), err_msg=name)
    assert npz["Rd_r_ac"].shape == (r.nr, 3) and npz["Rd_phase"].shape == (3,)
    units = dict(npz["units"])
    assert units["modulation"] == "Hz" and units["Rd_r_phase"] == "rad"
    assert units["Rd_r_ac"] == "1/cm2" and units["Rd_ac"] == "-"


def test_without_npz_nothing_more(cli, root, tmp_path):
    run_cli(cli, os.path.join(root, "examples", "mcml_example.mci"), tmp_path)
    assert sorted(os.listdir(tmp_path)) == ["example.json", "example.mco"]


def test_resume_writes_a_missing_npz(cli, root, tmp_path):
    """A finished run whose .npz is missing is simulated again for it."""
    mci = os.path.join(root, "examples", "mcml_example.mci")
    run_cli(cli, mci, tmp_path)
    before = (tmp_path / "example.mco").read_bytes()
    run_cli(cli, mci, tmp_path, "--npz", "--resume")
    assert (tmp_path / "example.mco").read_bytes() == before
    npz = np.load(tmp_path / "example.npz")
    assert npz["A_rz"].shape == (50, 40)
    # Now complete: skipped, nothing rewritten.
    stamp = os.stat(tmp_path / "example.npz").st_mtime_ns
    run_cli(cli, mci, tmp_path, "--npz", "--resume")
    assert os.stat(tmp_path / "example.npz").st_mtime_ns == stamp
