"""tmcml.fit of a spectrum (docs/fit.md, "Spectra") on the CPU engine: an
epidermis of melanin over dermis of blood, at six wavelengths over
480-880 nm in two rings, against tmcml.spectrum of the truth (other seeds,
ten times the photons) with 2 % noise: melanin, blood and StO2 within 4 of
their standard errors (a normal deviate beyond with 6e-5); the spectrum's
mean paths those of its derivatives; a wavelength outside a table named."""

import numpy as np
import pytest

import tmcml

LAM = np.arange(480, 881, 80.0)
RINGS = [0.075, 0.275]
EPIDERMIS = dict(n=1.4, d=0.01, g=0.8, melanin=0.03, water=0.2, a=40.0, b=1.3)
DERMIS = dict(n=1.4, d=100.0, g=0.8, blood=0.02, sto2=0.75, water=0.65, a=25.0, b=1.1)
FREE = [("melanin", 0), ("blood", 1), ("sto2", 1)]
PHOTONS = 3 * 10**4


@pytest.fixture(scope="module")
def truth():
    return tmcml.spectrum([EPIDERMIS, DERMIS], LAM, RINGS, ring_width=0.05,
                          photons=10 * PHOTONS, seed=99, engine="cpu")


def test_chromophores_recovered(truth):
    sigma = np.sqrt((0.02 * truth.Rd) ** 2 + truth.Rd_stderr ** 2)
    data = truth.Rd * (1 + 0.02 * np.random.default_rng(3).normal(size=truth.Rd.shape))
    start = [dict(EPIDERMIS, melanin=0.015), dict(DERMIS, blood=0.01, sto2=0.5)]
    f = tmcml.fit(data, RINGS, start, FREE, sigma=sigma, wavelengths=LAM, ring_width=0.05,
                  photons=PHOTONS, engine="cpu")
    assert f.success, f.message
    assert f.names == ["melanin[0]", "blood[1]", "sto2[1]"]
    assert (np.abs(f.values - [0.03, 0.02, 0.75]) < 4 * f.stderr).all(), f
    assert f.data.shape == (6, 2) and f.channels == ["r = 0.075 cm", "r = 0.275 cm"]
    assert f.layers[1]["sto2"] == f.values[2] and f.layers[1]["a"] == 25.0


def test_spectrum_paths(truth):
    """mean_path is -dRd/dmua / Rd of each layer; the DPF their sum over r."""
    assert truth.Rd.shape == (6, 2) and truth.jacobian.shape == (6, 2, 2, 3)
    assert np.allclose(truth.mean_path, -truth.jacobian[..., 0] / truth.Rd[..., None])
    assert np.allclose(truth.dpf, truth.mean_path.sum(axis=-1) / np.array(RINGS))
    assert (truth.mean_path > 0).all()
    # The far ring's light has travelled farther, and deeper, than the near one's.
    assert (truth.mean_path[:, 1, 1] > truth.mean_path[:, 0, 1]).all()


def test_wavelength_outside_a_table():
    with pytest.raises(ValueError, match="melanin"):
        tmcml.spectrum([EPIDERMIS, DERMIS], [350.0], RINGS, ring_width=0.05, photons=100,
                       engine="cpu")
