"""Detectors scored besides MCML's arrays (docs/physics.md, "Fiber detector"),
and the time bins of time-resolved runs: what tmcml.run's detector= and
time_bins= keywords take (detector=: one tmcml.FiberDetector, or a list of
them, each scored from the same photons)."""

import numbers

from .problem import number_from
from .source import fiber_radius

# Detectors of one run: the library's TMCML_MAX_FIBER_DETECTORS.
MAX_DETECTORS = 16


class FiberDetector:
    """A fiber on the surface collecting diffuse reflectance: a face of
    radius `radius` (cm; or diameter=, one of the two) centred `separation`
    (cm) from the beam's axis,
    counting only escapes whose direction in the medium above lies within
    its numerical aperture na (sin(theta) <= na / n_above; 0 < na <=
    n_above).  A Result then has Rd_fiber, the fraction of the photons it
    collects ([1]), and .detector, this object; with a list of them
    (detector=[...], at most 16), Rd_fiber holds one fraction a detector
    and .detector is the list."""

    def __init__(self, separation, radius=None, na=None, diameter=None):
        radius = fiber_radius("FiberDetector", radius, diameter)
        if na is None:
            raise ValueError("FiberDetector: na (its numerical aperture) is needed")
        self.separation = number_from("FiberDetector(separation)", separation, 0.0, False)
        self.radius = number_from("FiberDetector(radius)", radius, 0.0, True)
        self.na = number_from("FiberDetector(na)", na, 0.0, True)

    def __repr__(self):
        return "tmcml.FiberDetector(%r, %r, %r)" % (self.separation, self.radius, self.na)

    def __eq__(self, other):
        return (isinstance(other, FiberDetector) and
                (self.separation, self.radius, self.na) ==
                (other.separation, other.radius, other.na))


def fiber_detectors(value):
    """The detectors of detector=: None (none), a FiberDetector, or a list
    or tuple of them (at least one), as a list."""
    if value is None:
        return []
    if isinstance(value, FiberDetector):
        return [value]
    if isinstance(value, (list, tuple)) and value:
        for k, d in enumerate(value):
            if not isinstance(d, FiberDetector):
                raise ValueError("detector: expected a tmcml.FiberDetector, a list of them or "
                                 "None (got %r: detector[%d] is %r)" % (value, k, d))
        return list(value)
    raise ValueError("detector: expected a tmcml.FiberDetector, a list of them or None (got %r)"
                     % (value,))


def time_bins(value):
    """(dt, nt) from time_bins=: None, or a pair of a bin width in ns (> 0)
    and a whole number of bins (>= 1)."""
    if value is None:
        return None
    try:
        dt, nt = value
    except (TypeError, ValueError):
        raise ValueError("time_bins: expected (dt, nt), a bin width in ns and a bin count "
                         "(got %r)" % (value,)) from None
    dt = number_from("time_bins dt", dt, 0.0, True)
    if isinstance(nt, bool) or not isinstance(nt, numbers.Integral) or nt < 1:
        raise ValueError("time_bins nt: expected a whole number >= 1 (got %r)" % (nt,))
    return dt, int(nt)
