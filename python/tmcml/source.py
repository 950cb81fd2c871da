"""Sources other than the broad beams (beam.py): where a run's photons
start (tmcml.run(..., source=...); docs/physics.md, "Sources").  Each gives
the library's tmcml_problem_set_source arguments (source_args); the library
checks them against the layers (a point inside a layer, a fiber's NA at
most n_above) and raises TmcmlArgumentError naming the value."""

from .problem import number_from


class IsotropicPoint:
    """An isotropic point source at depth z0 (cm) on the axis, inside a
    layer (not on a boundary), photons of weight 1 and no specular
    reflection: an interstitial source."""

    source_kind = 3  # TMCML_SOURCE_POINT

    def __init__(self, z0):
        self.z0 = number_from("IsotropicPoint(z0)", z0, 0.0, True)

    def source_args(self):
        return (self.source_kind, self.z0, 0.0)

    def __repr__(self):
        return "tmcml.IsotropicPoint(%r)" % self.z0


class FiberSource:
    """A fiber at the surface: photons uniform over its face of radius
    `radius` (cm; or diameter=, as PyXOpto gives a fiber: one of the two),
    directions uniform in solid angle within its cone (na = n_above sin
    theta_max), refracted into the tissue, each losing the surface's
    Fresnel reflectance at its own angle."""

    source_kind = 4  # TMCML_SOURCE_FIBER

    def __init__(self, radius=None, na=None, diameter=None):
        radius = fiber_radius("FiberSource", radius, diameter)
        if na is None:
            raise ValueError("FiberSource: na (its numerical aperture) is needed")
        self.radius = number_from("FiberSource(radius)", radius, 0.0, False)
        self.na = number_from("FiberSource(na)", na, 0.0, False)

    def source_args(self):
        return (self.source_kind, self.radius, self.na)

    def __repr__(self):
        return "tmcml.FiberSource(%r, %r)" % (self.radius, self.na)


def fiber_radius(what, radius, diameter):
    """A fiber's radius from radius= or diameter= (cm), one of them."""
    if (radius is None) == (diameter is None):
        raise ValueError("%s: give radius or diameter (cm), one of them" % what)
    if diameter is not None:
        return number_from("%s(diameter)" % what, diameter, 0.0, False) / 2
    return radius
