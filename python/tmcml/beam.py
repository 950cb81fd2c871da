"""Broad beams of unit power, axially symmetric about r = 0: a Result's
response to one by convolution of its pencil response (Result.convolve,
docs/physics.md "Broad beams by convolution"), or a run's source
(tmcml.run(..., source=GaussianBeam(w)): photons start at a sampled radius,
docs/physics.md "Sources"; the radius must then be > 0)."""

import math
import numbers


def _radius(name, value):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError("%s: expected a number of cm (got %r)" % (name, value))
    value = float(value)
    if not math.isfinite(value) or value < 0:
        raise ValueError("%s: expected a finite radius >= 0 cm (got %r)" % (name, value))
    return value


class GaussianBeam:
    """A Gaussian beam of 1/e^2 radius w (cm): irradiance
    2/(pi w^2) exp(-2 r^2 / w^2); w = 0 is the pencil.  Or give sigma=
    (cm), the standard deviation of the irradiance's Gaussian, as PyXOpto
    and MCX take a Gaussian beam: w = 2 sigma.  One of the two."""

    kind = 1  # TMCML_BEAM_GAUSSIAN
    source_kind = 1  # TMCML_SOURCE_GAUSSIAN

    def __init__(self, w=None, sigma=None):
        if (w is None) == (sigma is None):
            raise ValueError("GaussianBeam: give w (the 1/e^2 radius, cm) or sigma (the "
                             "Gaussian's standard deviation, cm; w = 2 sigma), one of them")
        if sigma is not None:
            w = 2 * _radius("GaussianBeam(sigma)", sigma)
        self.radius = self.w = _radius("GaussianBeam(w)", w)

    def source_args(self):
        return (self.source_kind, self.w, 0.0)

    def __repr__(self):
        return "tmcml.GaussianBeam(%r)" % self.w


class FlatBeam:
    """A flat (top-hat) beam of radius r (cm): irradiance 1/(pi r^2) within
    r; r = 0 is the pencil."""

    kind = 2  # TMCML_BEAM_FLAT
    source_kind = 2  # TMCML_SOURCE_FLAT

    def __init__(self, r):
        self.radius = self.r = _radius("FlatBeam(r)", r)

    def source_args(self):
        return (self.source_kind, self.r, 0.0)

    def __repr__(self):
        return "tmcml.FlatBeam(%r)" % self.r
