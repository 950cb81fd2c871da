"""The same seed gives what the run command gives: the .mco byte for byte,
the integer tallies bit for bit (the JSON summary's tallies_digest), and the
arrays equal to the digits the .mco prints."""

import json
import os
import subprocess

import tmcml
from conftest import EXAMPLE


def run_cli(cli, workdir, mci, *args):
    subprocess.run([cli, "run", mci, "-q", "--engine", "cpu"] + list(args), cwd=workdir,
                   check=True)


def test_run_equals_the_run_command(cli, tmp_path):
    args = dict(EXAMPLE, photons=4000)
    tmcml.save_mci(tmp_path / "slab.mci", **args)
    run_cli(cli, tmp_path, "slab.mci", "-S", "42", "--threads", "2")
    res = tmcml.run(**args, seed=42, engine="cpu", progress=False)
    out = tmp_path / "lib"
    out.mkdir()
    res.save_mco(out / "slab.mco")
    want = (tmp_path / "slab.mco").read_bytes()
    assert (out / "slab.mco").read_bytes() == want
    summary = json.loads((tmp_path / "slab.json").read_text())
    assert summary["tallies_digest"] == "fnv1a64:%016x" % res.tallies_digest
    assert json.loads((out / "slab.json").read_text())["tallies_digest"] == summary["tallies_digest"]
    # The arrays, printed as the .mco prints them, are the .mco's digits.
    back = tmcml.load_mco(tmp_path / "slab.mco")
    formats = dict(A_l="%12.4G", RAT="%-14.6G")
    for name in ("A_rz", "Rd_ra", "Tt_ra", "A_z", "Rd_r", "Rd_a", "Tt_r", "Tt_a", "A_l"):
        fmt = formats.get(name, "%12.4E")
        ours = [fmt % v for v in getattr(res, name).ravel()]
        theirs = [fmt % v for v in getattr(back, name).ravel()]
        assert ours == theirs, name
    for name in ("Rsp", "Rd", "A", "Tt"):
        assert formats["RAT"] % getattr(res, name) == formats["RAT"] % getattr(back, name)

def test_run_mci_equals_the_run_command(cli, tmp_path, root):
    mci = os.path.join(root, "examples", "mcml_example.mci")
    run_cli(cli, tmp_path, mci, "-A", "-S", "9", "-N", "3000")
    (res,) = tmcml.run_mci(mci, photons=3000, seed=9, absorption=False, engine="cpu",
                           progress=False)
    assert res.out_name == "example.mco" and res.photons == 3000
    out = tmp_path / "lib"
    out.mkdir()
    res.save_mco(out / "example.mco")
    assert (out / "example.mco").read_bytes() == (tmp_path / "example.mco").read_bytes()


def test_save_mci_reads_back(tmp_path):
    tmcml.save_mci(tmp_path / "two.mci", runs=[
        dict(EXAMPLE, photons=100, out_name="a.mco"),
        dict(layers=[[1.4, 0.1, 10.0, -0.5, 1.0]], photons=7, dz=0.1, dr=0.1, nz=5, nr=6, na=7),
    ])
    a, b = tmcml.run_mci(tmp_path / "two.mci", engine="cpu", progress=False)
    assert a.out_name == "a.mco" and b.out_name == "two_2.mco"
    assert b.photons == 7 and b.layers.tolist() == [[1.4, 0.1, 10.0, -0.5, 1.0]]
    assert (b.nz, b.nr, b.na) == (5, 6, 7)
