"""load_mco on MCML 1.2.2's own output files (tests/data/reference)."""

import os

import numpy as np
import pytest

import tmcml


def test_mcml_example(reference_dir):
    r = tmcml.load_mco(os.path.join(reference_dir, "mcml_example_1e6.mco"))
    assert r.photons == 1000000 and r.tallies is None and r.seed is None
    assert (r.nz, r.nr, r.na) == (40, 50, 1) and r.A_rz.shape == (50, 40)
    assert r.layers.tolist() == [[1.37, 1, 100, 0.9, 0.1], [1.37, 1, 10, 0, 0.1],
                                 [1.37, 2, 10, 0.7, 0.2]]
    assert "User time" in r.comment
    assert r.timings["wall"] > 0
    assert r.Rsp + r.Rd + r.A + r.Tt == pytest.approx(1.0, abs=2e-3)
    assert r.A == pytest.approx(r.A_l.sum(), rel=1e-3)


def test_skin_and_contrast(reference_dir):
    for name in ("mcml_skin7_600nm_1e8.mco", "mcml_ran3_contrast_1e7_a.mco",
                 "mcml_splitmix_contrast_1e7_a.mco"):
        r = tmcml.load_mco(os.path.join(reference_dir, name))
        assert r.A_rz.shape == (r.nr, r.nz) and r.Rd_ra.shape == (r.nr, r.na)
        assert np.isfinite(r.A_rz).all() and (r.Rd_r >= 0).all()
        assert r.Rd == pytest.approx(r.Rd_a.sum() * 0 + r.Rd)


def test_written_again_reads_the_same(reference_dir, tmp_path):
    r = tmcml.load_mco(os.path.join(reference_dir, "mcml_example_1e6.mco"))
    r.save_mco(tmp_path / "again.mco")
    back = tmcml.load_mco(tmp_path / "again.mco")
    for name in ("A_rz", "Rd_ra", "Tt_ra", "A_z", "Rd_r", "A_l"):
        np.testing.assert_array_equal(getattr(back, name), getattr(r, name))
    assert back.comment == r.comment


def test_corrupt_file_names_the_line(tmp_path):
    bad = tmp_path / "bad.mco"
    bad.write_text("A1\nnot an mco\n")
    with pytest.raises(tmcml.TmcmlFileError) as e:
        tmcml.load_mco(bad)
    assert "bad.mco:" in str(e.value)
