"""Result.convolve (tmcml_result_convolve): tmcml conv's file byte for byte
from the .mco the command convolved; a run's own result against it within the
.mco's digits; the totals kept; the pencil for a zero radius; the
time-resolved arrays and the derivatives convolved too, the path lengths and
the detector dropped; bad beams refused naming the value."""

import math
import os
import subprocess

import numpy as np
import pytest

import tmcml

PHOTONS, SEED = 3000, 7
RING = ("Rd_r", "Tt_r", "A_rz", "Rd_ra", "Tt_ra")  # the arrays with an r axis
# The arrays of every optional group, there only in runs that ask for them.
OPTIONAL = (tmcml.PATH_ARRAYS + tmcml.TIME_ARRAYS + tmcml.DETECTOR_ARRAYS + tmcml.JACOBIAN_ARRAYS +
            tmcml.FX_ARRAYS + tmcml.MOD_ARRAYS + tmcml.XY_ARRAYS)


@pytest.fixture
def pencil(cli, root, tmp_path):
    mci = os.path.join(root, "examples", "mcml_example.mci")
    subprocess.run([cli, "run", mci, "-o", str(tmp_path), "-N", str(PHOTONS), "-S", str(SEED),
                    "--engine", "cpu", "-q"], check=True)
    run = tmcml.run_mci(mci, photons=PHOTONS, seed=SEED, engine="cpu", progress=False)[0]
    return tmp_path / "example.mco", run


@pytest.mark.parametrize("beam, arg", [(tmcml.GaussianBeam(0.05), "gaussian:0.05"),
                                       (tmcml.FlatBeam(0.1), "flat:0.1")])
def test_convolve_is_the_command(cli, pencil, tmp_path, beam, arg):
    mco, run = pencil
    subprocess.run([cli, "conv", str(mco), "--beam", arg, "-o", str(tmp_path / "cli.mco")],
                   check=True)
    mine = tmcml.load_mco(mco).convolve(beam)
    mine.save_mco(tmp_path / "py.mco")
    assert (tmp_path / "py.mco").read_bytes() == (tmp_path / "cli.mco").read_bytes()
    assert mine.tallies is None and "tmcml conv:" in mine.comment
    # From the run in memory: weighted means of unrounded values, so within the
    # .mco's rounding of the pencil and of the result (5e-5 each; A_l 4 digits).
    cli_back = tmcml.load_mco(tmp_path / "cli.mco")
    from_run = run.convolve(beam)
    for name in set(tmcml.ARRAYS) - set(OPTIONAL):
        rtol = 5e-4 if name == "A_l" else 1e-4
        np.testing.assert_allclose(getattr(from_run, name), getattr(cli_back, name), rtol=rtol,
                                   atol=0, err_msg=name)
        if name not in RING:
            np.testing.assert_array_equal(getattr(from_run, name), getattr(run, name))
    assert (from_run.Rd, from_run.A, from_run.Tt) == (run.Rd, run.A, run.Tt)


def test_totals_kept(pencil):
    _, run = pencil
    area = math.pi * run.dr ** 2 * (2 * np.arange(run.nr) + 1)
    for beam in (tmcml.GaussianBeam(0.02), tmcml.GaussianBeam(1.0), tmcml.FlatBeam(0.3)):
        c = run.convolve(beam)
        for name in RING:
            a, b = getattr(run, name), getattr(c, name)
            w0 = np.tensordot(area, a, axes=(0, 0))
            w1 = np.tensordot(area, b, axes=(0, 0))
            # rounding: 4 nr eps of each column's weight (tests/test_conv.c)
            np.testing.assert_allclose(w1, w0, rtol=4 * run.nr * np.finfo(float).eps, atol=0,
                                       err_msg="%r %s" % (beam, name))


def test_zero_radius_is_the_pencil(pencil):
    _, run = pencil
    for beam in (tmcml.GaussianBeam(0), tmcml.FlatBeam(0.0)):
        c = run.convolve(beam)
        for name in set(tmcml.ARRAYS) - set(OPTIONAL):
            np.testing.assert_array_equal(getattr(c, name), getattr(run, name))


def test_time_bins_and_derivatives_convolved():
    """The time-resolved escapes and the derivatives are linear in the
    pencil's escapes, so a broad beam's are their convolutions (issue 45):
    each ring-resolved one keeps its columns' weights, as Rd_r does; its
    totals (Rd_t, the Jacobians of Rd, Rd_a, Rd_t) are the pencil's; a zero
    radius gives the pencil's arrays.  The path lengths and a fiber's reading
    are not convolutions of the pencil's: the broad beam's result has none,
    and no detector."""
    layers = [[1.37, 1.0, 100.0, 0.9, 0.1], [1.37, 2.0, 10.0, 0.7, 0.2]]
    run = tmcml.run(layers=layers, photons=PHOTONS, seed=SEED, engine="cpu", progress=False,
                    dz=0.01, dr=0.01, nz=30, nr=40, na=4, jacobian=True, time_bins=(0.01, 6),
                    path_lengths=True, detector=tmcml.FiberDetector(0.05, 0.02, 0.5))
    area = math.pi * run.dr ** 2 * (2 * np.arange(run.nr) + 1)
    ringed = ("Rd_rt", "Tt_rt", "Rd_r_jacobian", "Tt_r_jacobian", "Rd_rt_jacobian",
              "Tt_rt_jacobian")
    totals = ("Rd_t", "Tt_t", "Rd_jacobian", "Tt_jacobian", "Rd_a_jacobian", "Tt_a_jacobian",
              "Rd_t_jacobian", "Tt_t_jacobian")
    c = run.convolve(tmcml.GaussianBeam(0.05))
    for name in ringed:
        a, b = getattr(run, name), getattr(c, name)
        assert b.shape == a.shape and not np.array_equal(a, b), name
        np.testing.assert_allclose(np.tensordot(area, b, axes=(0, 0)),
                                   np.tensordot(area, a, axes=(0, 0)),
                                   rtol=4 * run.nr * np.finfo(float).eps, atol=1e-300,
                                   err_msg=name)
    for name in totals:
        np.testing.assert_array_equal(getattr(c, name), getattr(run, name), err_msg=name)
    assert c.jacobian("Rd_r").shape == (run.nr, 2, 3)
    assert c.Rd_path is None and c.Rd_fiber is None and c.Rd_fiber_jacobian is None
    assert c.detector is None and run.detector is not None
    zero = run.convolve(tmcml.GaussianBeam(0))
    for name in ringed + totals:
        np.testing.assert_array_equal(getattr(zero, name), getattr(run, name), err_msg=name)


def test_convolved_is_not_convolved_again(pencil, tmp_path):
    """A convolved result names its beam as its source and refuses a second
    convolution, in memory and read back from its .mco (issue 42)."""
    _, run = pencil
    once = run.convolve(tmcml.GaussianBeam(0.05))
    assert isinstance(once.source, tmcml.GaussianBeam) and once.source.w == 0.05
    once.save_mco(tmp_path / "once.mco")
    back = tmcml.load_mco(tmp_path / "once.mco")
    assert isinstance(back.source, tmcml.GaussianBeam) and back.source.w == 0.05
    for result in (once, back):
        with pytest.raises(ValueError, match="already convolved"):
            result.convolve(tmcml.FlatBeam(0.1))


def test_bad_beams(pencil):
    _, run = pencil
    for bad in (-1, math.nan, math.inf, "0.1", True, None):
        with pytest.raises(ValueError, match=r"GaussianBeam(\(w\)|: give w)"):
            tmcml.GaussianBeam(bad)
        with pytest.raises(ValueError, match=r"FlatBeam\(r\)"):
            tmcml.FlatBeam(bad)
    with pytest.raises(TypeError, match="beam: expected"):
        run.convolve(0.1)
    assert repr(tmcml.GaussianBeam(0.25)) == "tmcml.GaussianBeam(0.25)"
