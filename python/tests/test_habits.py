"""Python habits of the field (issue 24): a Result that reads like a dict
(pmcx's results are dicts), counts given as integral floats (photons=1e6),
d=inf for a semi-infinite last layer, and Result.plot() drawing `tmcml
plot`'s figure with the same code."""

import math
import os
import subprocess

import numpy as np
import pytest

import tmcml
from conftest import EXAMPLE, ROOT

GRID = {k: EXAMPLE[k] for k in ("dz", "dr", "nz", "nr", "na")}


def run(**kw):
    args = dict(EXAMPLE, photons=2000, engine="cpu", seed=5, progress=False, threads=2)
    args.update(kw)
    return tmcml.run(**args)


def test_result_reads_like_a_dict():
    r = run()
    optional = (tmcml.PATH_ARRAYS + tmcml.TIME_ARRAYS + tmcml.DETECTOR_ARRAYS +
                tmcml.JACOBIAN_ARRAYS + tmcml.FX_ARRAYS + tmcml.MOD_ARRAYS +
                tmcml.XY_ARRAYS)
    names = (["Rsp", "Rd", "A", "Tt"] + [a for a in tmcml.ARRAYS if a not in optional] +
             ["r", "z", "a", "fluence"])
    assert r.keys() == names and list(r) == names and len(r) == len(names)
    assert r["Rd"] == r.Rd and r["A_rz"] is r.A_rz and r["A_rz"].shape == (50, 40)
    assert "Rd_r" in r and "Rd" in r and "nope" not in r and "t" not in r
    assert r.get("nope") is None and r.get("Tt") == r.Tt
    d = r.to_dict()
    assert list(d) == names and d["Tt_ra"] is r.Tt_ra and isinstance(d["A"], float)
    assert [k for k, _ in r.items()] == names and r.values()[1] == r.Rd
    with pytest.raises(KeyError) as e:
        r["flux"]
    assert "flux" in str(e.value) and "A_rz" in str(e.value)


def test_dict_view_has_the_grid_units_and_fluence():
    """Issue 47: the bins' centres, the fluence and every key's unit in the
    dict view (the library's unit table), time bins' centres when asked;
    no fluence without absorption scored."""
    r = run(time_bins=(0.01, 5))
    np.testing.assert_array_equal(r["r"], r.r)
    assert r["z"][0] == 0.5 * r.dz and r["t"].tolist() == r.t.tolist() and len(r["t"]) == 5
    np.testing.assert_array_equal(r["fluence"], r.fluence())
    assert set(r.units) == set(r.keys())
    assert (r.units["Rd"], r.units["A_rz"], r.units["Rd_r"], r.units["fluence"],
            r.units["r"], r.units["a"], r.units["t"], r.units["Rd_rt"]) == \
        ("-", "1/cm3", "1/cm2", "1/cm2", "cm", "rad", "ns", "1/(cm2 ns)")
    assert "fluence" in r.to_dict() and "t" in r.to_dict()
    assert "fluence" not in run(absorption=False) and "t" not in run()
    e = run(stderr=True)
    assert e.units["Rd_r_stderr"] == "1/cm2"


def test_batch_dict_view_has_the_grid():
    sets = [EXAMPLE["layers"], [[1.37, 0.5, 50.0, 0.8, 0.1]] * 3]
    batch = tmcml.run_batch(layers=sets, photons=500, seed=3, engine="cpu", progress=False,
                            threads=2, **GRID)
    np.testing.assert_array_equal(batch["r"], batch[0].r)
    assert batch["fluence"].shape == (2, 50, 40) and batch.units["fluence"] == "1/cm2"


def test_batch_reads_like_a_dict():
    sets = [EXAMPLE["layers"], [[1.37, 0.5, 50.0, 0.8, 0.1]] * 3]
    batch = tmcml.run_batch(layers=sets, photons=1000, seed=3, engine="cpu", progress=False,
                            threads=2, **GRID)
    assert batch[1]["Rd"] == batch.Rd[1] and batch[0].keys() == batch.keys()
    d = batch.to_dict()
    assert list(d) == batch.keys() and d["A_rz"].shape == (2, 50, 40) and d["Rd"].shape == (2,)
    np.testing.assert_array_equal(batch["A_z"][1], batch[1]["A_z"])
    with pytest.raises(KeyError):
        batch["flux"]


def test_counts_as_integral_floats():
    r = run(photons=2e3, nr=50.0, nz=np.float64(40), na=1.0, seed=5.0, threads=2.0)
    assert r.photons == 2000 and (r.nr, r.nz, r.na) == (50, 40, 1)
    assert r.tallies_digest == run().tallies_digest
    # threads=0 is every core, as the library's and `tmcml run --threads 0`
    assert run(threads=0).tallies_digest == run().tallies_digest
    runs = tmcml.run_mci(os.path.join(ROOT, "examples", "mcml_example.mci"), photons=1e3,
                         engine="cpu", progress=False, threads=2)
    assert runs[0].photons == 1000
    with pytest.raises(ValueError) as e:
        run(photons=1.5e3 + 0.5)
    assert str(e.value).startswith("photons: expected a whole number (got 1500.5")
    for name, value in (("nr", 2.5), ("photons", math.nan), ("photons", math.inf),
                        ("seed", 1e30), ("threads", 0.5), ("photons", True)):
        with pytest.raises(ValueError) as e:
            run(**{name: value})
        assert str(e.value).startswith(name + ":")


@pytest.mark.parametrize("inf", [float("inf"), math.inf, np.inf])
def test_semi_infinite_last_layer(inf, tmp_path):
    layers = [list(row) for row in EXAMPLE["layers"]]
    layers[2][4] = inf
    r = run(layers=layers)
    assert r.layers[2][4] == 1e8 and r.Tt == 0
    layers[2][4] = 1e8
    assert r.tallies_digest == run(layers=layers).tallies_digest
    r.save_mco(tmp_path / "semi.mco")
    text = (tmp_path / "semi.mco").read_text()
    inparm = text[text.index("InParm"):text.index("RAT #")]
    assert "1.37\t2\t10\t0.7\t1E+08\t# layer 3" in inparm


def test_inf_refused_but_for_the_last_layer():
    layers = [list(row) for row in EXAMPLE["layers"]]
    layers[1][4] = math.inf
    with pytest.raises(ValueError) as e:
        run(layers=layers)
    assert "layers[1][4]" in str(e.value) and "last layer" in str(e.value)
    layers[1][4], layers[2][4] = 0.1, -math.inf
    with pytest.raises(ValueError) as e:
        run(layers=layers)
    assert "layers[2][4]" in str(e.value)
    layers[2][4], layers[2][2] = 0.2, math.inf  # mus
    with pytest.raises(ValueError) as e:
        run(layers=layers)
    assert "not a finite number" in str(e.value)


def png_size(data):
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def test_plot_is_the_commands_figure(cli, tmp_path):
    r = run()
    mco = tmp_path / "x.mco"
    r.save_mco(mco)
    subprocess.run([cli, "plot", str(mco), "-o", str(tmp_path / "cli.png")], check=True)
    want = (tmp_path / "cli.png").read_bytes()
    # Read back from the .mco the command plotted: the same bytes.
    back = tmcml.load_mco(mco).plot(tmp_path / "back.png", name="x.mco")
    assert back.path == str(tmp_path / "back.png") and back.data == want
    # From the run itself: the same figure, values unrounded.
    fig = r.plot(tmp_path / "run.png")
    assert png_size(fig.data) == png_size(want)
    # No path: a temporary file, shown inline by Jupyter.
    fig = r.plot()
    try:
        assert png_size(fig._repr_png_()) == png_size(want) and os.fspath(fig) == fig.path
    finally:
        os.unlink(fig.path)
    with pytest.raises(tmcml.TmcmlFileError) as e:
        r.plot(tmp_path / "no" / "such" / "dir.png")
    assert "dir.png" in str(e.value)


def test_run_takes_a_config_dict():
    """Issue 47: tmcml.run(cfg), a dict of its keywords, as pmcx.run takes
    one: the same run bit for bit; a key it does not know, or a keyword
    given in cfg and beside it, refused."""
    cfg = dict(EXAMPLE, photons=2000, engine="cpu", seed=5, progress=False, threads=2)
    assert tmcml.run(cfg).tallies_digest == run().tallies_digest
    with pytest.raises(TypeError, match="'photon' is not a keyword of tmcml.run"):
        tmcml.run(dict(cfg, photon=3))
    with pytest.raises(TypeError, match="'seed' given in cfg and as a keyword"):
        tmcml.run(cfg, seed=7)
    with pytest.raises(TypeError, match="cfg has no 'layers'"):
        tmcml.run({"photons": 100})
