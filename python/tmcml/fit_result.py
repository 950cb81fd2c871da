"""FitResult: what tmcml.fit found, its uncertainty, how well the model
matches the data, a JSON form and a plot of data against model."""

import json
import math

import numpy as np


class FitResult:
    """values: the fitted parameters in the order of `free` (names:
    'mua[0]', ...); stderr, cov: their standard errors and covariance (the
    data's uncertainty and the model's Monte Carlo error); layers: the
    fitted layers (rows [n, mua, mus, g, d], or the chromophore layers'
    dicts); chi2, dof, chi2_dof: chi-square of the residuals over the
    degrees of freedom; residuals: (model - data) / sqrt(sigma^2 +
    model_stderr^2); data, sigma, model, model_stderr: of data's shape;
    success: converged, inside the bounds and identifiable, else message
    says what is wrong (and a tmcml.FitWarning was emitted); converged,
    at_bound, condition: each of those; mc_ratio: the root mean square of
    the model's Monte Carlo error over the data's sigma (above about 1, a
    fit wants more photons); shortfall: how far, in standard errors, the
    solution's own derivatives put the minimum from it (above 1 the fit
    says it stopped short); runs, seconds: the model evaluations and the
    time taken."""

    def __init__(self, **fields):
        self.__dict__.update(fields)
        self.stderr = np.sqrt(np.diag(self.cov))
        self.chi2_dof = self.chi2 / self.dof if self.dof > 0 else math.nan

    def __repr__(self):
        lines = ["FitResult(%s, chi2/dof %.3g, %d runs, %.1f s)"
                 % ("success" if self.success else "FAILED: " + self.message, self.chi2_dof,
                    self.runs, self.seconds)]
        for name, v, e in zip(self.names, self.values, self.stderr):
            lines.append("  %-12s %.6g +- %.2g" % (name, v, e))
        return "\n".join(lines)

    def to_dict(self):
        """The result as plain Python values (the JSON that
        `python -m tmcml fit` writes)."""
        def plain(v):
            if isinstance(v, np.ndarray):
                return [plain(x) for x in v]
            if isinstance(v, (list, tuple)):
                return [plain(x) for x in v]
            if isinstance(v, dict):
                return {k: plain(x) for k, x in v.items()}
            if isinstance(v, (float, np.floating)):
                return float(v) if math.isfinite(v) else None
            if isinstance(v, np.integer):
                return int(v)
            return v
        keys = ("kind", "names", "values", "stderr", "cov", "layers", "chi2", "dof", "chi2_dof",
                "success", "converged", "at_bound", "condition", "mc_ratio", "shortfall", "message", "runs",
                "seconds",
                "r", "t", "wavelengths", "channels", "data", "sigma", "model", "model_stderr",
                "residuals")
        return {k: plain(getattr(self, k)) for k in keys}

    def save_json(self, path):
        with open(path, "w") as f:
            json.dump(self.to_dict(), f, indent=1)
            f.write("\n")

    def _curves(self):
        """The plot's x axis, its label, and (name, (data, sigma, model,
        residuals)) a curve."""
        arrays = [np.asarray(a) for a in (self.data, self.sigma, self.model, self.residuals)]
        if self.wavelengths is not None:  # (W, channels): a curve a channel
            return self.wavelengths, "wavelength [nm]", [
                (name, [a[:, c] for a in arrays]) for c, name in enumerate(self.channels)]
        if self.t is not None:  # (T,) or (rings, T)
            if self.r is None:
                return self.t, "t [ns]", [("Rd_t", arrays)]
            return self.t, "t [ns]", [(name, [a[c] for a in arrays])
                                      for c, name in enumerate(self.channels)]
        x_label = "separation [cm]" if self.kind == "Rd_fiber" else "r [cm]"
        return self.r, x_label, [(self.kind, arrays)]

    def plot(self, path=None, show=False):
        """Data (with error bars) against the fitted model, and the
        normalised residuals beneath; written to path (PNG, PDF, SVG: by
        the name) and/or shown.  Needs matplotlib (Debian:
        python3-matplotlib)."""
        try:
            import matplotlib
            if not show:
                matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise ImportError("FitResult.plot needs matplotlib (Debian: apt-get install "
                              "python3-matplotlib; pip: pip install matplotlib)") from None
        fig, (top, bottom) = plt.subplots(2, 1, sharex=True, figsize=(6.4, 6),
                                          gridspec_kw={"height_ratios": [3, 1]})
        x, label, curves = self._curves()
        for name, (data, sigma, model, residuals) in curves:
            dots = top.errorbar(x, data, yerr=sigma, fmt="o", ms=3, label="data, " + name)
            top.plot(x, model, "-", color=dots[0].get_color(), label="model, " + name)
            bottom.plot(x, residuals, "o", ms=3, color=dots[0].get_color())
        if self.wavelengths is None:
            top.set_yscale("log")
        top.set_ylabel({"Rd_t": "Rd_t [1/ns]", "Rd_rt": "Rd_rt [1/(cm2 ns)]",
                        "Rd_fiber": "Rd_fiber [1]", "Rd_r": "Rd [1/cm2]"}[self.kind])
        top.legend(fontsize=8)
        top.set_title("tmcml.fit: chi2/dof %.3g%s" % (self.chi2_dof,
                                                      "" if self.success else " (FAILED)"))
        bottom.axhline(0, color="grey", lw=0.8)
        bottom.set_ylabel("residual / sigma")
        bottom.set_xlabel(label)
        fig.tight_layout()
        if path is not None:
            fig.savefig(path, dpi=120)
        if show:
            plt.show()
        plt.close(fig)
