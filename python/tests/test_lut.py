"""tmcml lut (docs/lut.md): OUT.npz read with numpy.load holds the CSV's
numbers exactly, with the shapes, dtypes and units documented, and a point
of the runs strategy is tmcml.run of that point (seed S + its mua number),
bit for bit; a column of the sets strategy is tmcml.run with mua_sets."""

import subprocess

import numpy as np

import tmcml

SEED, PHOTONS = 11, 2000
MUA = [0.1, 0.5, 2.0]
MUSP = [5.0, 12.0]
LAYER = dict(n=1.37, g=0.8, d=0.5)
NR, DR = 6, 0.05


def make_table(cli, out, strategy):
    subprocess.run([cli, "lut", "--mua", ",".join(map(str, MUA)), "--musp",
                    ",".join(map(str, MUSP)), "--n", "1.37", "--g", "0.8", "--d", "0.5",
                    "--nr", str(NR), "--dr", str(DR), "-N", str(PHOTONS), "-S", str(SEED),
                    "--engine", "cpu", "--strategy", strategy, "-q", "-o", str(out)],
                   check=True)
    return np.load(str(out) + ".npz", allow_pickle=False)


def point(mua, musp, **kw):
    layer = [LAYER["n"], mua, musp / (1 - LAYER["g"]), LAYER["g"], LAYER["d"]]
    return tmcml.run([layer], photons=PHOTONS, dz=DR, dr=DR, nz=1, nr=NR, na=1, engine="cpu",
                     absorption=False, progress=False, **kw)


def test_npz_and_csv(cli, tmp_path):
    t = make_table(cli, tmp_path / "lut", "runs")
    assert t["Rd"].shape == (2, 3) and t["Rd_r"].shape == (2, 3, NR)
    assert t["Rd"].dtype == np.dtype("<f8")
    np.testing.assert_array_equal(t["mua"], MUA)
    np.testing.assert_array_equal(t["musp"], MUSP)
    np.testing.assert_allclose(t["r"], (np.arange(NR) + 0.5) * DR, rtol=1e-15)
    assert t["photons"].dtype == np.dtype("<u8") and int(t["photons"]) == PHOTONS
    assert int(t["seed"]) == SEED and str(t["strategy"]) == "runs"
    assert str(t["engine"]) == "cpu" and str(t["version"]).startswith("tmcml ")
    units = dict(t["units"])
    assert units["Rd_r"] == "1/cm2" and units["mua"] == "1/cm" and units["Rd"] == "-"
    csv = np.genfromtxt(str(tmp_path / "lut.csv"), delimiter=",", names=True, comments="#")
    assert len(csv) == 6
    np.testing.assert_array_equal(csv["musp"], np.repeat(MUSP, 3))
    np.testing.assert_array_equal(csv["mua"], np.tile(MUA, 2))
    np.testing.assert_array_equal(csv["Rd"], t["Rd"].ravel())
    rings = np.stack([csv["Rd_r_%d" % i] for i in range(NR)], axis=1)
    np.testing.assert_array_equal(rings, t["Rd_r"].reshape(6, NR))


def test_runs_point_is_a_run(cli, tmp_path):
    t = make_table(cli, tmp_path / "runs", "runs")
    for i, mua in enumerate(MUA):
        r = point(mua, MUSP[1], seed=SEED + i)
        assert t["Rd"][1, i] == r.Rd
        np.testing.assert_array_equal(t["Rd_r"][1, i], r.Rd_r)


def test_sets_column_is_a_run_with_sets(cli, tmp_path):
    t = make_table(cli, tmp_path / "sets", "sets")
    assert str(t["strategy"]) == "sets"
    b = point(MUA[0], MUSP[0], seed=SEED, mua_sets=np.array(MUA).reshape(3, 1))
    np.testing.assert_array_equal(t["Rd"][0], b.Rd)
    np.testing.assert_array_equal(t["Rd_r"][0], b.Rd_r)
