"""Sources other than the broad beams (beam.py): where a run's photons
start (tmcml.run(..., source=...); docs/physics.md, "Sources"): a point
inside, a fiber, an oblique beam.  Each gives
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


class ObliqueBeam:
    """A beam at a polar angle of incidence `angle` (degrees, 0 <= angle <
    90) in the medium above, in the x-z plane, entering at x = y = 0:
    refracted into the tissue by Snell's law, losing the surface's Fresnel
    reflectance at that angle (Rsp).  Its light is not symmetric about the
    z axis: a run with it needs xy=(dx, nx), the Cartesian grid, and takes
    neither time bins, detectors, frequencies, derivatives nor sets; the
    CPU engine.  ObliqueBeam(0) is the pencil beam, bit for bit."""

    source_kind = 5  # TMCML_SOURCE_OBLIQUE

    def __init__(self, angle):
        self.angle = number_from("ObliqueBeam(angle)", angle, 0.0, False)
        if self.angle >= 90:
            raise ValueError("ObliqueBeam(angle): expected an angle of incidence below 90 degrees "
                             "(got %r): at 90 degrees or more the beam would not enter the tissue"
                             % self.angle)

    def source_args(self):
        return (self.source_kind, self.angle, 0.0)

    def __repr__(self):
        return "tmcml.ObliqueBeam(%r)" % self.angle


def fiber_radius(what, radius, diameter):
    """A fiber's radius from radius= or diameter= (cm), one of them."""
    if (radius is None) == (diameter is None):
        raise ValueError("%s: give radius or diameter (cm), one of them" % what)
    if diameter is not None:
        return number_from("%s(diameter)" % what, diameter, 0.0, False) / 2
    return radius
