"""Result.plot: Rd(r), A(z) and the fluence map, with matplotlib (imported
only here, so the package works without it)."""

import numpy as np


def plot_result(result, fig=None, show=False):
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("Result.plot needs matplotlib (Debian: apt-get install "
                          "python3-matplotlib; pip: pip install matplotlib)") from None
    fig = fig or plt.figure(figsize=(12, 3.6))
    # MCML's last r bin collects every photon beyond the grid: not a density
    # at its radius, so it is left out (as `tmcml plot` does).
    inner = slice(0, max(result.nr - 1, 1))
    ax = fig.add_subplot(1, 3, 1)
    ax.semilogy(result.r[inner], result.Rd_r[inner])
    ax.set_xlabel("r [cm]")
    ax.set_ylabel("Rd(r) [1/cm²]")
    ax = fig.add_subplot(1, 3, 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        ax.semilogy(result.z, np.where(result.A_z > 0, result.A_z, np.nan))
    ax.set_xlabel("z [cm]")
    ax.set_ylabel("A(z) [1/cm]")
    ax = fig.add_subplot(1, 3, 3)
    phi = result.fluence()[inner]
    with np.errstate(divide="ignore", invalid="ignore"):
        image = np.log10(np.where(phi > 0, phi, np.nan)).T
    extent = [0, (max(result.nr - 1, 1)) * result.dr, result.nz * result.dz, 0]
    shown = ax.imshow(image, extent=extent, aspect="auto")
    ax.set_xlabel("r [cm]")
    ax.set_ylabel("z [cm]")
    fig.colorbar(shown, ax=ax, label="log10 fluence [1/cm²]")
    fig.suptitle("%d photons: Rsp %.4g  Rd %.4g  A %.4g  Tt %.4g"
                 % (result.photons, result.Rsp, result.Rd, result.A, result.Tt))
    fig.tight_layout()
    if show:
        plt.show()
    return fig
