"""tmcml.run(..., source=...): every source runs on the CPU engine and is
recorded (Result.source, the .mco's Source line that load_mco reads back);
bad values raise naming them; run_batch and
run_mci take the keyword too; a beam's totals are the flat beam's bit for
bit (a beam moves each history sideways)."""

import pytest

import tmcml
from conftest import EXAMPLE


def run(**kw):
    args = dict(EXAMPLE, photons=2000, engine="cpu", seed=5, progress=False)
    args.update(kw)
    return tmcml.run(**args)


@pytest.mark.parametrize("source", [tmcml.GaussianBeam(0.05), tmcml.FlatBeam(0.05),
                                    tmcml.IsotropicPoint(0.05), tmcml.FiberSource(0.02, 0.3)])
def test_each_source(source, tmp_path):
    r = run(source=source)
    assert repr(r.source) == repr(source)
    path = tmp_path / "s.mco"
    r.save_mco(str(path))
    assert "# Source:" in path.read_text()
    back = tmcml.load_mco(str(path))
    assert repr(back.source) == repr(source) and back.Rd == pytest.approx(r.Rd, rel=1e-5)
    if isinstance(source, tmcml.IsotropicPoint):
        assert r.Rsp == 0.0


def test_pencil_is_default(tmp_path):
    r = run()
    assert r.source is None
    r.save_mco(str(tmp_path / "p.mco"))
    assert "# Source" not in (tmp_path / "p.mco").read_text()


def test_beams_move_histories_sideways():
    g, f = run(source=tmcml.GaussianBeam(0.05)), run(source=tmcml.FlatBeam(0.05))
    assert (g.Rd, g.A, g.Tt) == (f.Rd, f.A, f.Tt)
    assert (g.A_z == f.A_z).all()


@pytest.mark.parametrize("source, word", [(tmcml.IsotropicPoint(0.1), "boundary"),
                                          (tmcml.IsotropicPoint(5.0), "not inside"),
                                          (tmcml.FiberSource(0.0, 1.2), "NA"),
                                          (tmcml.GaussianBeam(0.0), "W must be")])
def test_bad_values(source, word):
    with pytest.raises(tmcml.TmcmlArgumentError, match=word):
        run(source=source)


def test_bad_arguments():
    with pytest.raises(ValueError, match="source"):
        run(source="gaussian:0.1")
    with pytest.raises(ValueError, match="z0"):
        tmcml.IsotropicPoint(-1)
    with pytest.raises(ValueError, match="na"):
        tmcml.FiberSource(0.1, float("nan"))


def test_batch_and_mci(tmp_path):
    b = tmcml.run_batch([EXAMPLE["layers"]] * 2, photons=1000, engine="cpu", progress=False,
                        nz=EXAMPLE["nz"], nr=EXAMPLE["nr"], dz=EXAMPLE["dz"], dr=EXAMPLE["dr"],
                        na=EXAMPLE["na"], source=tmcml.IsotropicPoint(0.05))
    assert all(isinstance(r.source, tmcml.IsotropicPoint) for r in b)
    mci = tmp_path / "x.mci"
    tmcml.save_mci(str(mci), **dict(EXAMPLE, photons=1000))
    (r,) = tmcml.run_mci(str(mci), engine="cpu", progress=False, source=tmcml.FlatBeam(0.1))
    assert repr(r.source) == "tmcml.FlatBeam(0.1)"


def test_sizes_in_the_other_codes_words():
    """Issue 47: PyXOpto and MCX give a Gaussian beam by sigma and a fiber by
    its diameter; tmcml takes those keywords too, converted, and refuses a
    size given twice or not at all."""
    assert tmcml.GaussianBeam(sigma=0.05).w == 0.1
    assert tmcml.GaussianBeam(w=0.1).w == tmcml.GaussianBeam(0.1).w == 0.1
    assert tmcml.FiberSource(diameter=0.04, na=0.22).radius == 0.02
    assert tmcml.FiberDetector(0.3, diameter=0.2, na=0.5) == tmcml.FiberDetector(0.3, 0.1, 0.5)
    for make, message in ((lambda: tmcml.GaussianBeam(w=0.1, sigma=0.05), "one of them"),
                          (lambda: tmcml.GaussianBeam(), "give w"),
                          (lambda: tmcml.FiberSource(0.02, 0.22, diameter=0.04), "one of them"),
                          (lambda: tmcml.FiberSource(diameter=0.04), "na"),
                          (lambda: tmcml.FiberDetector(0.3, na=0.5), "radius or diameter"),
                          (lambda: tmcml.GaussianBeam(sigma=-1), "GaussianBeam\\(sigma\\)")):
        with pytest.raises(ValueError, match=message):
            make()
