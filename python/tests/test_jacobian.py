"""tmcml.run(..., jacobian=True): the derivatives of the escapes by each
layer's mua, mus and g (docs/physics.md, "Derivatives") as arrays of the
Result (Rd_jacobian [L, 3], Rd_r_jacobian [nr, L, 3], ...) and through
Result.jacobian(name), None without the keyword; the last axis mua, mus, g;
the mua column the path tallies' sum (-Rd_path_total * Rd); those of the
time-resolved escapes and the fiber detector only with time bins and a
detector, summing over time to the totals'; standard errors only when asked;
in run_batch (BatchResult.jacobian), with mua_sets and in run_mci; the GPU
engine refused for a batch, bad values refused; `tmcml run --jacobian
--npz`'s the same."""

import ctypes
import math
import os
import subprocess

import numpy as np
import pytest

import tmcml
from conftest import EXAMPLE
from tmcml._lib import lib

GRID = {k: EXAMPLE[k] for k in ("dz", "dr", "nz", "nr", "na")}
# The quantities with a Jacobian, by the name Result.jacobian takes: those
# of every run, of a run with time bins, of one with a detector.
OF = ("Rd", "Rd_r", "Rd_a", "Tt", "Tt_r", "Tt_a")
TIMED = ("Rd_rt", "Rd_t", "Tt_rt", "Tt_t")
FIBER = ("Rd_fiber",)
ALL = OF + TIMED + FIBER
# Rounding of the same integer sums normalised two ways (a few operations
# in double each): far above 1e-16, far below any statistical difference.
RTOL = 1e-9


def run(**kw):
    args = dict(EXAMPLE, photons=3000, engine="cpu", seed=5, progress=False, threads=2)
    args.update(kw)
    return tmcml.run(**args)


def raw(result, name):
    """The library's own array, read with tmcml_result_array alone."""
    n = ctypes.c_size_t()
    ptr = lib.tmcml_result_array(result._handle, tmcml.ARRAYS.index(name), ctypes.byref(n))
    return np.ctypeslib.as_array(ptr, (n.value,)).copy()


def test_arrays_shapes_and_names():
    r = run(jacobian=True)
    L = len(r.layers)
    assert r.has_jacobian and tmcml.JACOBIAN_PARAMS == ("mua", "mus", "g")
    assert tmcml.JACOBIAN_ARRAYS == tuple(name + "_jacobian" for name in ALL)
    for name in OF:
        j = r.jacobian(name)
        assert j is getattr(r, name + "_jacobian") and j is r[name + "_jacobian"]
        assert j.shape == np.shape(getattr(r, name)) + (L, 3), name
        # the library's array, entry for entry, in its order (C, last axis fastest)
        np.testing.assert_array_equal(j.ravel(), raw(r, name + "_jacobian"), err_msg=name)
    assert r.jacobian("Rd").shape == (L, 3) and r.jacobian("Rd_r").shape == (r.nr, L, 3)
    assert r.jacobian("Tt_a").shape == (r.na, L, 3)
    quantities = [k for k in r.keys() if k not in tmcml.result.COORDINATES + ("fluence",)]
    assert quantities[-len(OF):] == [name + "_jacobian" for name in OF]
    assert {name + "_jacobian" for name in OF} <= set(r.to_dict())
    # The escapes only fall with more absorption: the mua column is -S <= 0.
    for name in OF:
        assert (r.jacobian(name)[..., 0] <= 0).all(), name
    # Rings and angles add up to the totals as the escapes do.
    area = 2 * math.pi * (np.arange(r.nr) + 0.5) * r.dr ** 2
    solid = 2 * math.pi * np.sin(r.a) * r.da
    for total, ring, angle in (("Rd", "Rd_r", "Rd_a"), ("Tt", "Tt_r", "Tt_a")):
        want = r.jacobian(total)[:, 0]
        np.testing.assert_allclose(area @ r.jacobian(ring)[:, :, 0], want, rtol=RTOL, atol=0)
        np.testing.assert_allclose(solid @ r.jacobian(angle)[:, :, 0], want, rtol=RTOL, atol=0)


def test_last_axis_is_mua_mus_g():
    """A glass layer has no mus or g derivative, a layer of g = 1 no g
    derivative (NaN): which entries are NaN tells the order apart."""
    layers = [[1.5, 0.0, 0.0, 0.0, 0.02],  # glass
              [1.37, 1.0, 100.0, 1.0, 0.01],  # forward only: no g derivative
              [1.37, 1.0, 100.0, 0.9, 0.1]]
    r = tmcml.run(layers=layers, photons=2000, seed=3, engine="cpu", progress=False, nr=10,
                  nz=5, na=2, dz=0.05, dr=0.05, jacobian=True)
    for name in OF:
        nan = np.isnan(r.jacobian(name))
        per_layer = nan.reshape(-1, 3, 3).any(axis=0)
        assert per_layer.tolist() == [[False, True, True], [False, False, True],
                                      [False, False, False]], name
        assert nan.reshape(-1, 3, 3).all(axis=0).tolist() == per_layer.tolist(), name


def test_mua_column_is_the_path_sums():
    """-dRd/dmua_i is the mean path in layer i of the reflected weight times
    Rd (Rd_path_total * Rd), per ring too (Rd_path * Rd_r): both divide the
    same integer sums, those of a run with path_lengths=True and the same
    seed and photons."""
    j = run(jacobian=True)
    p = run(path_lengths=True)
    both = run(jacobian=True, path_lengths=True)
    for escape in ("Rd", "Tt"):
        total = getattr(p, escape + "_path_total") * getattr(p, escape)
        np.testing.assert_allclose(-j.jacobian(escape)[:, 0], total, rtol=RTOL, atol=0,
                                   err_msg=escape)
        ring = getattr(p, escape + "_path") * getattr(p, escape + "_r")[:, None]
        np.testing.assert_allclose(-j.jacobian(escape + "_r")[:, :, 0], ring, rtol=RTOL, atol=0,
                                   err_msg=escape)
        assert (total > 0).all()
    for name in tmcml.JACOBIAN_ARRAYS:
        np.testing.assert_array_equal(getattr(both, name), getattr(j, name), err_msg=name)
    for name in tmcml.PATH_ARRAYS:
        np.testing.assert_array_equal(getattr(both, name), getattr(p, name), err_msg=name)


def test_without_it():
    plain = run()
    j = run(jacobian=True)
    assert not plain.has_jacobian
    for name in tmcml.JACOBIAN_ARRAYS:
        assert getattr(plain, name) is None and name not in plain
    with pytest.raises(ValueError) as e:
        plain.jacobian("Rd_r")
    assert "no derivatives" in str(e.value) and "jacobian=True" in str(e.value)
    # The other arrays are the plain run's, bit for bit.
    for name in plain.keys():
        np.testing.assert_array_equal(j[name], plain[name], err_msg=name)
    # and their integer tallies (the digest covers the derivative tallies too)
    assert set(j.tallies) == set(plain.tallies)
    for name in plain.tallies:
        np.testing.assert_array_equal(j.tallies[name], plain.tallies[name], err_msg=name)


def test_names_without_a_jacobian():
    r = run(jacobian=True, photons=500)
    for name in ("A_z", "A_rz", "A", "Rd_ra", "Tt_ra", "Rd_jacobian", "rd", "Rd_path"):
        with pytest.raises(KeyError) as e:
            r.jacobian(name)
        assert repr(name) in str(e.value) and \
            "Rd, Rd_r, Rd_a, Tt, Tt_r, Tt_a, Rd_rt, Rd_t, Tt_rt, Tt_t, Rd_fiber" in str(e.value)


def test_time_bins_and_detector():
    """With time bins and a detector, the Jacobians of the time-resolved
    escapes [nr, nt, L, 3], [nt, L, 3] and of the fiber [1, L, 3]: summed
    over time (times dt, the last bin collecting the later escapes) those of
    Rd, Tt, Rd_r and Tt_r, to rounding, NaN where they are (the glass
    layer's mus and g); every other array the run's without them."""
    dt, nt = 0.004, 30
    layers = [[1.5, 0.0, 0.0, 0.0, 0.02],  # glass: no mus or g derivative
              [1.37, 1.0, 100.0, 0.9, 0.1],
              [1.37, 2.0, 10.0, 0.7, 0.2]]
    fiber = tmcml.FiberDetector(0.05, 0.05, 0.5)
    r = run(layers=layers, jacobian=True, stderr=True, time_bins=(dt, nt), detector=fiber)
    plain = run(layers=layers, time_bins=(dt, nt), detector=fiber)
    L = len(layers)
    assert [k for k in r.keys() if k.endswith("_jacobian")] == \
        [name + "_jacobian" for name in ALL]
    for name in ALL:
        j = r.jacobian(name)
        assert j is getattr(r, name + "_jacobian") and j is r[name + "_jacobian"]
        assert j.shape == np.shape(getattr(r, name)) + (L, 3), name
        np.testing.assert_array_equal(j.ravel(), raw(r, name + "_jacobian"), err_msg=name)
        assert r.stderr(name + "_jacobian").shape == j.shape, name
        assert np.isnan(j[..., 0, 1:]).all() and not np.isnan(j[..., 1:, :]).any(), name
    assert r.jacobian("Rd_t").shape == (nt, L, 3) and r.jacobian("Tt_rt").shape == (r.nr, nt, L, 3)
    assert r.jacobian("Rd_fiber").shape == (L, 3) and type(r.Rd_fiber) is float
    for escape in ("Rd", "Tt"):
        np.testing.assert_allclose(r.jacobian(escape + "_t").sum(0) * dt, r.jacobian(escape),
                                   rtol=RTOL, atol=0, err_msg=escape)
        np.testing.assert_allclose(r.jacobian(escape + "_rt").sum(1) * dt,
                                   r.jacobian(escape + "_r"), rtol=RTOL, atol=0, err_msg=escape)
    # The fiber collects light here: its mua column is minus a path sum.
    assert r.Rd_fiber > 0 and (r.jacobian("Rd_fiber")[:, 0] <= 0).all()
    assert r.jacobian("Rd_fiber")[1, 0] < 0
    for name in plain.keys():
        np.testing.assert_array_equal(r[name], plain[name], err_msg=name)


def test_time_and_fiber_ones_need_their_run():
    """A run without time bins or a detector has none of their Jacobians
    (None, not among keys()), and asking says which keyword scores them."""
    r = run(jacobian=True, photons=500)
    for name in TIMED + FIBER:
        assert getattr(r, name + "_jacobian") is None and name + "_jacobian" not in r.keys()
    for name in TIMED:
        with pytest.raises(ValueError) as e:
            r.jacobian(name)
        assert str(e.value) == ("Result.jacobian(%r): this run has no time bins, so no %s nor "
                                "its derivatives: run it with time_bins=(dt, nt) and "
                                "jacobian=True" % (name, name))
    with pytest.raises(ValueError) as e:
        r.jacobian("Rd_fiber")
    assert "this run has no detector, so no Rd_fiber nor its derivatives" in str(e.value)
    assert "detector=tmcml.FiberDetector(separation, radius, na)" in str(e.value)
    # Time bins alone: the time-resolved ones, not the fiber's.
    t = run(jacobian=True, photons=500, time_bins=(0.01, 5))
    assert t.jacobian("Rd_t").shape == (5, len(t.layers), 3) and t.Rd_fiber_jacobian is None
    with pytest.raises(ValueError, match="no detector"):
        t.jacobian("Rd_fiber")
    # A batch stacks those its results have.
    b = tmcml.run_batch([EXAMPLE["layers"]] * 2, photons=500, seed=5, engine="cpu",
                        progress=False, threads=2, jacobian=True, **GRID)
    assert b.Rd_t_jacobian is None and "Rd_t_jacobian" not in b.keys()
    with pytest.raises(ValueError, match="no time bins"):
        b.jacobian("Rd_t")


def test_standard_errors_only_when_asked():
    r = run(jacobian=True, stderr=True)
    plain = run(jacobian=True)
    scored = [name + "_jacobian" for name in OF]
    assert set(scored) <= set(r.stderr_keys())
    # those of the time bins and the detector are not this run's
    for name in TIMED + FIBER:
        assert name + "_jacobian" not in r.stderr_keys() and name not in r.stderr_keys()
        assert name + "_jacobian_stderr" not in r.keys()
        with pytest.raises(KeyError):
            r.stderr(name + "_jacobian")
    for name in scored:
        se = r.stderr(name)
        assert se.shape == getattr(r, name).shape and name + "_stderr" in r.keys(), name
        assert r[name + "_stderr"] is se
        # the derivatives themselves are the run's without errors, bit for bit
        np.testing.assert_array_equal(r[name], plain[name], err_msg=name)
        assert name + "_stderr" not in plain.keys()
        with pytest.raises(ValueError):
            plain.stderr(name)
    # Every layer scatters here: finite errors, above 0 where light escapes.
    assert np.isfinite(r.stderr("Rd_jacobian")).all() and (r.stderr("Rd_jacobian") > 0).all()


def test_gpu_refused_for_a_batch_auto_takes_the_cpu():
    # The GPU scores the derivatives one problem a call, with time bins and
    # detectors too (tests/test_jacobian_gpu.c, test_timed_sets_gpu.c); those
    # of a batch of several problems not.
    layers = [EXAMPLE["layers"]] * 2
    kw = dict(GRID, photons=500, seed=5, progress=False, jacobian=True, time_bins=(0.01, 7))
    with pytest.raises(ValueError) as e:
        tmcml.run_batch(layers, engine="gpu", **kw)
    assert "derivatives" in str(e.value) and "CPU" in str(e.value)
    assert tmcml.run_batch(layers, engine="auto", **kw)[0].engine == "cpu"


@pytest.mark.parametrize("value", [1, 0, "yes", None, np.bool_(True), [True]])
def test_bad_values_refused(value):
    with pytest.raises(ValueError) as e:
        run(jacobian=value)
    assert str(e.value) == "jacobian: expected True or False (got %r)" % (value,)


def test_too_many_layers_refused():
    with pytest.raises(ValueError) as e:
        tmcml.run(layers=[[1.4, 0.1, 10.0, 0.8, 0.001]] * 65, photons=10, engine="cpu",
                  progress=False, nz=5, jacobian=True)
    assert "at most 64 layers" in str(e.value)


def test_older_library(monkeypatch):
    """A library before TMCML_1.5 (no tmcml_problem_set_jacobian): a clear
    RuntimeError when asked, and runs without it as before."""
    monkeypatch.setattr(lib, "tmcml_problem_set_jacobian", None)
    with pytest.raises(RuntimeError) as e:
        run(jacobian=True)
    assert "tmcml_problem_set_jacobian (TMCML_1.5)" in str(e.value)
    assert not run(photons=500).has_jacobian


def test_batch_sets_and_mci(tmp_path):
    layers = EXAMPLE["layers"]
    other = [[1.37, 0.5, 50.0, 0.8, 0.1]] * 3
    b = tmcml.run_batch([layers, other], photons=2000, seed=5, engine="cpu", progress=False,
                        threads=2, jacobian=True, stderr=True, **GRID)
    L = len(layers)
    assert b.has_jacobian and b.jacobian("Rd_r").shape == (2, b.nr, L, 3)
    assert b.jacobian("Rd").shape == (2, L, 3) and b["Tt_a_jacobian"].shape == (2, b.na, L, 3)
    assert b.stderr("Rd_r_jacobian").shape == (2, b.nr, L, 3)
    for i, problem in enumerate((layers, other)):
        alone = run(layers=problem, photons=2000, jacobian=True)
        for name in OF:
            np.testing.assert_array_equal(b.jacobian(name)[i], b[i].jacobian(name))
            np.testing.assert_array_equal(b[i].jacobian(name), alone.jacobian(name),
                                          err_msg="%s of problem %d" % (name, i))
    with pytest.raises(KeyError):
        b.jacobian("A_rz")
    mixed = tmcml.BatchResult([b[0], run(photons=500)])
    assert not mixed.has_jacobian and mixed.Rd_jacobian is None
    with pytest.raises(ValueError) as e:
        mixed.jacobian("Rd")
    assert "result 1 of 2 has no derivatives: run with jacobian=True" in str(e.value)

    # mua_sets: each set's Result has its Jacobians, the path identity per set
    mua = [[l[1] for l in layers], [2 * l[1] for l in layers]]
    s = run(mua_sets=mua, jacobian=True, path_lengths=True)
    assert s.has_jacobian and s.jacobian("Rd").shape == (2, L, 3)
    for k in range(2):
        assert s[k].has_jacobian
        np.testing.assert_allclose(-s[k].jacobian("Rd")[:, 0], s[k].Rd_path_total * s[k].Rd,
                                   rtol=RTOL, atol=0)

    tmcml.save_mci(tmp_path / "a.mci", layers=layers, photons=1000, **GRID)
    (m,) = tmcml.run_mci(tmp_path / "a.mci", engine="cpu", progress=False, jacobian=True)
    assert m.has_jacobian and m.jacobian("Tt_r").shape == (m.nr, L, 3)
    with pytest.raises(ValueError):
        tmcml.run_mci(tmp_path / "a.mci", engine="cpu", progress=False, jacobian="on")


def test_checkpoint_plot_mco_and_convolve(tmp_path):
    """A checkpointed run keeps them; the arrays of rank 3 break neither the
    figure nor the .mco; a result read back has none and says why; a
    convolved one has the pencil's convolved (test_conv.py)."""
    r = run(jacobian=True)
    kept = run(jacobian=True, checkpoint=tmp_path / "k.ckpt")
    for name in tmcml.JACOBIAN_ARRAYS:
        np.testing.assert_array_equal(getattr(kept, name), getattr(r, name), err_msg=name)
    figure = r.plot(tmp_path / "j.png")
    assert figure.data[:8] == b"\x89PNG\r\n\x1a\n"
    r.save_mco(tmp_path / "j.mco")
    back = tmcml.load_mco(tmp_path / "j.mco")
    np.testing.assert_allclose(back.Rd_r, r.Rd_r, rtol=5e-5, atol=0)
    assert not back.has_jacobian and back.Rd_r_jacobian is None
    with pytest.raises(ValueError) as e:
        back.jacobian("Rd")
    assert "read from an .mco" in str(e.value)
    convolved = r.convolve(tmcml.GaussianBeam(0.05))
    assert convolved.has_jacobian and convolved.Rd_r_jacobian.shape == r.Rd_r_jacobian.shape
    np.testing.assert_array_equal(convolved.jacobian("Rd"), r.jacobian("Rd"))


def test_the_run_command_s(cli, root, tmp_path):
    """`tmcml run --jacobian --npz` writes the package's Jacobians, bit for
    bit, in their shapes."""
    mci = os.path.join(root, "examples", "mcml_example.mci")
    subprocess.run([cli, "run", mci, "-o", str(tmp_path), "-N", "3000", "-S", "5", "--engine",
                    "cpu", "-q", "--jacobian", "--npz"], check=True)
    npz = np.load(tmp_path / "example.npz", allow_pickle=False)
    (r,) = tmcml.run_mci(mci, photons=3000, seed=5, engine="cpu", progress=False, jacobian=True)
    for name in tmcml.JACOBIAN_ARRAYS:
        if name[:-len("_jacobian")] in OF:
            assert npz[name].shape == getattr(r, name).shape, name
            np.testing.assert_array_equal(npz[name], getattr(r, name), err_msg=name)
        else:  # neither has those of time bins and a detector it did not score
            assert name not in npz.files and getattr(r, name) is None, name
