"""tmcml.run, Result and the arguments' checks, on the CPU engine."""

import ctypes
import math

import numpy as np
import pytest

import tmcml
from conftest import EXAMPLE


def run(**kw):
    args = dict(EXAMPLE, photons=5000, engine="cpu", seed=5, progress=False)
    args.update(kw)
    return tmcml.run(**args)


def test_result_shapes_and_coordinates():
    r = run()
    assert (r.nr, r.nz, r.na) == (50, 40, 1)
    assert r.A_rz.shape == (50, 40) and r.Rd_ra.shape == (50, 1) and r.Tt_ra.shape == (50, 1)
    assert r.A_z.shape == (40,) and r.Rd_r.shape == (50,) and r.Rd_a.shape == (1,)
    assert r.A_l.shape == (3,)
    np.testing.assert_allclose(r.r[:2], [0.005, 0.015])
    np.testing.assert_allclose(r.z[-1], 0.395)
    np.testing.assert_allclose(r.a, [math.pi / 4])
    assert r.photons == 5000 and r.seed == 5 and r.engine == "cpu"
    assert r.timings["kernel_origin"] is None and not r.timings["compiled"]
    assert r.timings["wall"] >= r.timings["kernel"] > 0
    assert r.timings["python"] >= r.timings["wall"]
    # Rsp of n 1 -> 1.37 and the layers' absorption add up as MCML's sums do.
    assert r.Rsp == pytest.approx(((1.37 - 1) / 2.37) ** 2)
    assert r.A == pytest.approx(r.A_l.sum(), rel=1e-12)
    assert r.A == pytest.approx(r.A_z.sum() * r.dz, rel=1e-12)


def test_arrays_come_from_the_library():
    # The names and their order are the library's table (tmcml_array_*),
    # not a copy: each is an attribute of a Result, shaped by the grid.
    lib = tmcml._lib.lib
    names = tuple(lib.tmcml_array_name(i).decode() for i in range(lib.tmcml_array_count()))
    assert tmcml.ARRAYS == names
    assert names[:3] == ("A_l", "A_z", "Rd_r")
    # Every run's arrays first, then each optional group (tmcml_array_option)
    # in a block of its own, in the groups' order: how many is the
    # library's to say.
    groups = [lib.tmcml_array_option(i) for i in range(len(names))]
    assert groups[0] == 0 and groups == sorted(groups) and groups[-1] == 8
    assert tmcml.TALLIED == ("A_rz", "Rd_ra", "Tt_ra", "Rd_path", "Tt_path", "Rd_rt", "Tt_rt",
                             "Rd_fiber", "Rd_xy", "Tt_xy", "A_xz")
    assert tmcml.PATH_ARRAYS == names[9:13]
    assert tmcml.TIME_ARRAYS == names[13:17] and tmcml.DETECTOR_ARRAYS == names[17:18]
    assert tmcml.JACOBIAN_ARRAYS == names[18:29] and tmcml.FX_ARRAYS == names[29:31]
    assert tmcml.MOD_ARRAYS == names[31:35] and tmcml.XY_ARRAYS == names[35:]
    # each the derivative of an escape of the table (or of RAT's Rd, Tt)
    assert all(n.endswith("_jacobian") and n[:-len("_jacobian")] in ("Rd", "Tt") + names[:18]
               for n in tmcml.JACOBIAN_ARRAYS)
    # with the optional arrays too (the Jacobians' last axis, 8: mua, mus, g)
    r = run(photons=1000, path_lengths=True, time_bins=(0.01, 7),
            detector=tmcml.FiberDetector(0.1, 0.05, 0.5), jacobian=True,
            spatial_frequencies=[0, 1, 2], modulation=[1e8, 2e8], xy=(0.05, 6))
    axes = {0: len(r.layers), 1: r.nr, 2: r.nz, 3: r.na, 4: 7, 5: 1, 8: 3, 10: 3, 12: 2, 14: 6}
    for i, name in enumerate(names):
        dims = (ctypes.c_int * 4)()
        rank = lib.tmcml_array_dims(i, dims)
        shape = tuple(axes[d] for d in dims[:rank])
        if name in tmcml.result.ONE_VALUE:  # a float, its derivatives as Rd's
            shape = ()
        elif name[:-len("_jacobian")] in tmcml.result.ONE_VALUE:
            shape = shape[1:]
        assert np.shape(getattr(r, name)) == shape, name
    assert set(r.tallies) == set(tmcml.TALLIED)
    batch = tmcml.run_batch(layers=[EXAMPLE["layers"]] * 2, photons=500, engine="cpu", seed=5,
                            progress=False, dz=0.01, dr=0.01, nz=40, nr=50, na=1,
                            path_lengths=True, time_bins=(0.01, 7),
                            detector=tmcml.FiberDetector(0.1, 0.05, 0.5), jacobian=True,
                            spatial_frequencies=[0, 1, 2], modulation=[1e8, 2e8], xy=(0.05, 6))
    for name in names:
        assert getattr(batch, name).shape == (2,) + np.shape(getattr(batch[0], name))


def test_fluence_divides_by_the_layer_mua():
    r = run()
    phi = r.fluence()
    layer = r.layer_of_z()
    assert list(layer[[0, 9, 10, 19, 20, 39]]) == [0, 0, 1, 1, 2, 2]
    np.testing.assert_allclose(phi[:, 25], r.A_rz[:, 25] / 2.0)
    np.testing.assert_allclose(phi[:, 5], r.A_rz[:, 5] / 1.0)


def test_glass_layer_fluence_is_nan():
    layers = [[1.5, 0.0, 0.0, 0.0, 0.05]] + EXAMPLE["layers"]
    r = run(layers=layers, nz=45)
    assert np.isnan(r.fluence()[:, :5]).all()
    assert np.isfinite(r.fluence()[:, 5:]).all()


def test_same_seed_same_tallies_any_thread_count():
    a, b, c = run(threads=1), run(threads=2), run(seed=6, threads=2)
    for name in ("A_rz", "Rd_ra", "Tt_ra"):
        assert a.tallies[name].dtype == np.uint64
        assert np.array_equal(a.tallies[name], b.tallies[name])
    assert np.array_equal(a.A_rz, b.A_rz) and a.tallies_digest == b.tallies_digest
    assert a.tallies_digest != c.tallies_digest
    # The arrays are the tallies normalised: A from the units.
    assert a.tallies["A_rz"].sum() / 2**24 / a.photons == pytest.approx(a.A, rel=1e-12)


def test_no_absorption_scoring():
    r = run(absorption=False)
    assert not r.A_rz.any() and not r.absorption
    assert r.Rd > 0


def test_van_de_hulst_slab_statistically():
    """Rd and Tt of the slab n=1, mua=10, mus=90, g=0.75, d=0.02 cm (van de
    Hulst: 0.09739, 0.66096) within 4 sigma of the mean of 10 seeds."""
    rd, tt = [], []
    for seed in range(1, 11):
        r = tmcml.run(layers=[[1.0, 10.0, 90.0, 0.75, 0.02]], photons=20000, dz=0.001, dr=0.01,
                      nz=20, nr=10, na=5, seed=seed, engine="cpu", progress=False)
        rd.append(r.Rd)
        tt.append(r.Tt)
    for values, want in ((rd, 0.09739), (tt, 0.66096)):
        sigma = np.std(values, ddof=1) / math.sqrt(len(values))
        assert abs(np.mean(values) - want) < 4 * sigma + 1e-4, (np.mean(values), want, sigma)


@pytest.mark.parametrize("kw, named", [
    (dict(layers=[[1.37, 1.0, 100.0, 0.9]]), "layers"),
    (dict(layers=[]), "layers"),
    (dict(layers=[[1.37, 1.0, 100.0, 0.9, -0.1]]), "d (thickness) must not be negative"),
    (dict(layers=[[1.37, float("nan"), 100.0, 0.9, 0.1]]), "layers[0][1] (mua of layer 1)"),
    (dict(layers=[[1.37, 1.0, float("inf"), 0.9, 0.1]]), "mus of layer 1"),
    (dict(layers=[[1.37, 1.0, 100.0, 1.5, 0.1]]), "g must be between -1 and 1"),
    (dict(layers=[[1.37, -1.0, 100.0, 0.9, 0.1]]), "mua must not be negative"),
    (dict(layers="abc"), "layers"),
    (dict(n_above=0), "n_above"),
    (dict(n_below=float("nan")), "n_below"),
    (dict(n_above=500.0), "n of the medium above"),  # the library's range
    (dict(layers=[[1.37, 1.0, 2e12, 0.9, 0.1]]), "layer 1: mus"),  # the library's range
    (dict(dz=-0.01), "dz"),
    (dict(dr=0), "dr"),
    (dict(nz=0), "nz"),
    (dict(nr=2.5), "nr"),
    (dict(na=-1), "na"),
    (dict(nr=100000, nz=100000), "grid too large"),  # the library's limit
    (dict(photons=0), "photons"),
    (dict(photons=1.5), "photons"),
    (dict(seed=-1), "seed"),
    (dict(engine="fpga"), "engine"),
    (dict(policy="fast"), "policy"),
    (dict(threads=-1), "threads"),
    (dict(gpu=-1), "gpu"),
    (dict(absorption="no"), "absorption"),
])
def test_bad_arguments_raise_value_error(kw, named):
    with pytest.raises(ValueError) as e:
        run(**kw)
    assert named in str(e.value)


def test_library_errors_are_typed(tmp_path):
    with pytest.raises(tmcml.TmcmlFileError) as e:
        tmcml.load_mco(tmp_path / "missing.mco")
    assert "missing.mco" in str(e.value)
    bad = tmp_path / "bad.mci"
    bad.write_text("1.0\n1\nx.mco A\n-5\n")
    with pytest.raises(tmcml.TmcmlFileError) as e:
        tmcml.run_mci(bad)
    assert "bad.mci:4: number of photons must be positive" in str(e.value)


def test_devices_is_a_list():
    found = tmcml.devices()
    assert isinstance(found, list)
    for d in found:
        assert d["name"] and d["sm_count"] > 0


def test_gpu_engine_without_gpu_says_so():
    if tmcml.devices():
        pytest.skip("this machine has a GPU")
    with pytest.raises(tmcml.NoGPUError) as e:
        run(engine="gpu")
    assert "no usable GPU" in str(e.value)
    assert run(engine="auto").engine == "cpu"


def test_session_keeps_counts():
    with tmcml.Session() as s:
        for mua in (1.0, 2.0, 3.0):
            layers = [[1.37, mua, 100.0, 0.9, 0.1]]
            tmcml.run(layers=layers, photons=500, nz=10, nr=10, na=1, engine="cpu",
                      progress=False, session=s)
        assert s.stats()["runs"] == 3 and s.stats()["gpu_runs"] == 0
