"""python -m tmcml fit MODEL DATA (docs/fit.md, "The command"): a TOML
model and a CSV of Rd(r) fitted, the parameters printed with their errors,
the JSON and plot written into -o; repeated measurements for sigma; a
spectrum's long rows; bad files refused naming the file, row or key,
nothing written."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tmcml
from tmcml.fit_command import read_data, read_model

MODEL = """photons = 20000
engine = "cpu"
seed = 3
[[layers]]
n = 1.4
mua = 0.3
musp = 6.0
g = 0.8
d = "inf"
free = ["mua", "musp"]
bounds = { mua = [0.0, 5.0] }
"""


def command(tmp_path, *args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-m", "tmcml", "fit", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def rd_csv(tmp_path_factory):
    """Rd(r) of mua 0.5, mus' 10 (another seed), with 2 % sigma."""
    r = np.arange(1, 11) * 0.1
    res = tmcml.run(layers=[[1.4, 0.5, 50.0, 0.8, 100.0]], photons=10**5, seed=9,
                    engine="cpu", absorption=False, progress=False, dr=0.05, nr=22, nz=1, na=1)
    # The rings 0.05-0.15, 0.15-0.25, ... cm: two of the run's each, of
    # areas in the ratio (2k + 1) : (2k + 3).
    k = np.arange(1, 21, 2)
    rd = (res.Rd_r[k] * (2 * k + 1) + res.Rd_r[k + 1] * (2 * k + 3)) / (4 * k + 4)
    path = tmp_path_factory.mktemp("data") / "skin.csv"
    with open(path, "w") as f:
        f.write("# r [cm], Rd [1/cm2], sigma\nr,Rd,sigma\n")
        for x, y in zip(r, rd):
            f.write("%g,%.6g,%.6g\n" % (x, y, 0.02 * y))
    return path


def test_fits_and_writes(tmp_path, rd_csv):
    (tmp_path / "model.toml").write_text(MODEL)
    done = command(tmp_path, "model.toml", str(rd_csv), "-o", "out")
    assert done.returncode in (0, 1), done.stderr
    assert "mua[0]" in done.stdout and "+-" in done.stdout, done.stdout
    saved = json.loads((tmp_path / "out" / "skin.fit.json").read_text())
    assert saved["names"] == ["mua[0]", "musp[0]"] and len(saved["stderr"]) == 2
    assert abs(saved["values"][0] - 0.5) < 5 * saved["stderr"][0]
    assert (tmp_path / "out" / "skin.fit.png").stat().st_size > 1000


def test_model_reads_as_fit_takes_it(tmp_path):
    (tmp_path / "m.toml").write_text(MODEL)
    model = read_model(str(tmp_path / "m.toml"))
    assert model["free"] == [("mua", 0), ("musp", 0)]
    assert model["bounds"] == {("mua", 0): (0.0, 5.0)}
    assert model["layers"][0][2] == pytest.approx(30.0) and model["layers"][0][4] == np.inf
    assert model["run"] == {"photons": 20000, "engine": "cpu", "seed": 3}
    assert model["fiber"] is None
    (tmp_path / "m.json").write_text(json.dumps({"layers": [
        {"n": 1.4, "d": 0.01, "g": 0.8, "melanin": 0.02, "a": 40, "b": 1.2, "free": ["melanin"]},
        {"n": 1.4, "d": 100, "g": 0.8, "blood": 0.02, "sto2": 0.7, "a": 20, "b": 1}]}))
    model = read_model(str(tmp_path / "m.json"))
    assert model["spectral"] and model["layers"][1]["blood"] == 0.02
    assert model["free"] == [("melanin", 0)]
    (tmp_path / "s.toml").write_text('free = [["b", [0, 1]]]\n' + MODEL)
    assert read_model(str(tmp_path / "s.toml"))["free"] == [("b", (0, 1)), ("mua", 0),
                                                            ("musp", 0)]


def test_repeats_and_spectra(tmp_path):
    (tmp_path / "rep.csv").write_text("r,Rd,Rd,Rd\n0.1,1,1.1,0.9\n0.2,0.5,0.6,0.4\n")
    data = read_data(str(tmp_path / "rep.csv"), False)
    assert data["sigma"] is None and data["data"].shape == (3, 2)
    (tmp_path / "s.csv").write_text("wavelength,r,Rd,sigma\n500,0.2,1,0.1\n500,0.1,2,0.1\n"
                                    "600,0.1,3,0.1\n600,0.2,4,0.1\n")
    data = read_data(str(tmp_path / "s.csv"), True)
    assert data["data"].tolist() == [[2, 1], [3, 4]]
    assert data["wavelengths"].tolist() == [500, 600] and data["r"].tolist() == [0.1, 0.2]
    (tmp_path / "f.csv").write_text("separation,Rd,sigma\n0.6,1,0.1\n0.3,2,0.2\n")
    data = read_data(str(tmp_path / "f.csv"), False, {"radius": 0.1, "na": 0.5})
    assert data["data"].tolist() == [2, 1] and data["sigma"].tolist() == [0.2, 0.1]
    assert data["fibers"] == [tmcml.FiberDetector(0.3, 0.1, 0.5),
                              tmcml.FiberDetector(0.6, 0.1, 0.5)]
    (tmp_path / "t.csv").write_text("r,t,Rd,sigma\n0.1,0.05,1,1\n0.1,0.15,2,1\n"
                                    "0.3,0.05,3,1\n0.3,0.15,4,1\n")
    data = read_data(str(tmp_path / "t.csv"), False)
    assert data["data"].tolist() == [[1, 2], [3, 4]] and data["t"].tolist() == [0.05, 0.15]


@pytest.mark.parametrize("model, data, message", [
    ("photns = 3\n" + MODEL, "r,Rd,sigma\n0.1,1,0.1\n", "model.toml: unknown key 'photns'"),
    (MODEL + "mu = 3\n", "r,Rd,sigma\n0.1,1,0.1\n", "model.toml: layer 0: unknown key 'mu'"),
    (MODEL.replace("musp = 6.0", ""), "r,Rd,sigma\n0.1,1,0.1\n",
     "model.toml: layer 0: needs n, mua, g, d and one of mus or musp"),
    ("layers = 3", "r,Rd,sigma\n0.1,1,0.1\n", "model.toml: expected a list of layers"),
    ("[[layers", "r,Rd,sigma\n0.1,1,0.1\n", "model.toml: not valid TOML"),
    (MODEL, "r,Rd,sigma\n0.1,1,0.1\n0.2,x,0.1\n", "data.csv: row 3: not a number"),
    (MODEL, "r,Rd,sigma\n0.1,1,0.1\n0.2,1\n", "data.csv: row 3 has 2 values for 3 columns"),
    (MODEL, "r,R,sigma\n0.1,1,0.1\n", "data.csv: no Rd column"),
    (MODEL, "separation,Rd,sigma\n0.1,1,0.1\n", "data.csv: a separation column, but the "
     "model has no fiber"),
    (MODEL, "r,Rd,sigma\n0.1,1,0.1\n0.1,2,0.1\n", "data.csv: 2 rows for a grid of 1 points"),
    ("fiber = { radius = 0.1 }\n" + MODEL, "r,Rd,sigma\n0.1,1,0.1\n",
     "model.toml: fiber: expected { radius = cm, na = numerical aperture }"),
    (MODEL, "r,Rd\n0.1,1\n0.2,1\n", "data.csv: no sigma column and one Rd column"),
    (MODEL.replace('["mua", "musp"]', '["mub"]'), "r,Rd,sigma\n0.1,1,0.1\n0.2,1,.1\n",
     "'mub' is not a parameter"),
])
def test_bad_files_are_named(tmp_path, model, data, message):
    (tmp_path / "model.toml").write_text(model)
    (tmp_path / "data.csv").write_text(data)
    done = command(tmp_path, "model.toml", "data.csv", "-o", "out")
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()
