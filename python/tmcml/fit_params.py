"""The free parameters of a fit (tmcml.fit): which layer property each one
is, the layers it gives, and the chain rule from the simulator's
derivatives (by each layer's mua, mus and g) to the derivatives by the free
parameters.

Two kinds of model:
- optical properties: layers as tmcml.run takes them (rows [n, mua, mus, g,
  d]); free parameters 'mua', 'mus', 'musp' (mus' = mus (1 - g): mus
  follows it) and 'g' of a layer;
- chromophores (tmcml.chromophores): a layer is a dict of n, d, g, the
  concentrations blood, sto2, water, lipid, melanin and the scattering
  mus'(lambda) = a (lambda / 500 nm)^-b; free parameters are those keys
  but n and d, and the layers' mua and mus follow at each wavelength."""

import math
import numbers

import numpy as np

from .problem import layers_array

OPTICS_FREE = ("mua", "mus", "musp", "g")
CHROMOPHORE_FREE = ("blood", "sto2", "water", "lipid", "melanin", "a", "b", "g")
CHROMOPHORE_KEYS = ("n", "d") + CHROMOPHORE_FREE
# Parameters that are fractions (of volume, of saturation), and a's and
# b's own ranges: the default bounds of a free parameter.
_DEFAULT_BOUNDS = {"mua": (0.0, math.inf), "mus": (0.0, math.inf), "musp": (0.0, math.inf),
                   "g": (-0.99, 0.99), "blood": (0.0, 1.0), "sto2": (0.0, 1.0),
                   "water": (0.0, 1.0), "lipid": (0.0, 1.0), "melanin": (0.0, 1.0),
                   "a": (0.0, math.inf), "b": (0.0, 10.0)}


def _free_list(free, allowed, layers):
    """free as a list of (name, layers) pairs, layers a tuple of indices
    (one layer, or several that share the parameter: ('b', (0, 1))), each
    checked."""
    if isinstance(free, (str, bytes)) or not hasattr(free, "__iter__"):
        raise ValueError("free: expected a list of (name, layer) pairs, as [('mua', 0)] "
                         "(got %r)" % (free,))
    pairs, taken = [], set()
    for item in free:
        try:
            name, layer = item
        except (TypeError, ValueError):
            raise ValueError("free: %r is not a (name, layer) pair" % (item,)) from None
        if name not in allowed:
            raise ValueError("free: %r is not a parameter of this model; the free parameters "
                             "are %s" % (name, ", ".join(allowed)))
        tied = layer_tuple(name, layer, layers)
        for i in tied:
            if (name, i) in taken:
                raise ValueError("free: %s of layer %d is given twice" % (name, i))
            taken.add((name, i))
        pairs.append((name, tied))
    return pairs


def layer_tuple(name, layer, layers):
    """A free parameter's layers as a tuple of distinct indices: an index,
    or a tuple or list of them (the layers share the parameter)."""
    many = isinstance(layer, (tuple, list))
    indices = list(layer) if many else [layer]
    for i in indices:
        if isinstance(i, bool) or not isinstance(i, numbers.Integral) or not 0 <= i < layers:
            raise ValueError("free: (%r, %r): a layer is an index from 0 to %d, or a tuple of "
                             "them (layers sharing the parameter)" % (name, layer, layers - 1))
    if not indices or len(set(indices)) != len(indices):
        raise ValueError("free: (%r, %r): expected distinct layers" % (name, layer))
    return tuple(int(i) for i in indices)


def parameter_name(name, layers):
    return "%s[%s]" % (name, ",".join(str(i) for i in layers))


def _shared_start(name, layers, values):
    """The start of a parameter the layers share: their common value."""
    if len(set(values)) > 1:
        raise ValueError("free: %s: the layers %s share it but start from different values "
                         "(%s): give them one" % (parameter_name(name, layers),
                                                 ", ".join(map(str, layers)),
                                                 ", ".join("%g" % v for v in values)))
    return values[0]


def _bounds(pairs, bounds, start):
    """(low, high) arrays of the free parameters: bounds is None or a dict
    {(name, layer) or 'name[layer]': (low, high)}; the start must lie
    within them."""
    bounds = {_bounds_key(k): v for k, v in (bounds or {}).items()}
    low, high = [], []
    for (name, layer), x in zip(pairs, start):
        given = bounds.pop(parameter_name(name, layer), None)
        lo, hi = _DEFAULT_BOUNDS[name] if given is None else given
        lo, hi = float(lo), float(hi)
        if not lo < hi:
            raise ValueError("bounds of %s: (%r, %r) is not an interval"
                             % (parameter_name(name, layer), lo, hi))
        if not lo <= x <= hi:
            raise ValueError("bounds of %s: the start %r is outside (%r, %r)"
                             % (parameter_name(name, layer), x, lo, hi))
        low.append(lo)
        high.append(hi)
    if bounds:
        raise ValueError("bounds: %s not a free parameter" % ", ".join(str(k) for k in bounds))
    return np.array(low), np.array(high)


def _bounds_key(key):
    """A key of bounds= as a parameter's name: (name, layer or layers) or
    'name[layers]'."""
    if isinstance(key, str):
        return key
    try:
        name, layer = key
        return parameter_name(name, layer if isinstance(layer, (tuple, list)) else (layer,))
    except (TypeError, ValueError):
        raise ValueError("bounds: %r is not a (name, layer) key" % (key,)) from None


def _each_layer(free):
    """(parameter index, name, layer) for each layer of each free parameter."""
    return [(k, name, i) for k, (name, layers) in enumerate(free) for i in layers]


class OpticsModel:
    """Free optical properties of layers given as tmcml.run's rows."""

    def __init__(self, layers, free, bounds):
        self.start_layers = layers_array(layers)
        self.free = _free_list(free, OPTICS_FREE, len(self.start_layers))
        self.each = _each_layer(self.free)
        names = {(name, i) for _, name, i in self.each}
        for _, name, i in self.each:
            if name == "musp" and ("mus", i) in names:
                raise ValueError("free: mus and musp of layer %d: one or the other (mus' = "
                                 "mus (1 - g))" % i)
            if name in ("mus", "musp", "g") and self.start_layers[i][2] == 0:
                raise ValueError("free: (%r, %d): layer %d does not scatter (mus 0, glass): "
                                 "it has no %s to fit" % (name, i, i, name))
        self.start = np.array([_shared_start(name, layers, [self._value(name, i)
                                                              for i in layers])
                               for name, layers in self.free])
        self.low, self.high = _bounds(self.free, bounds, self.start)

    def _value(self, name, i):
        n, mua, mus, g, d = self.start_layers[i]
        return {"mua": mua, "mus": mus, "musp": mus * (1 - g), "g": g}[name]

    def _musp_of(self, x):
        """Each layer's mus' where it is free ({layer: mus'})."""
        return {i: x[k] for k, name, i in self.each if name == "musp"}

    def layers(self, x):
        """The layer rows at parameters x: mus follows mus' where mus' is
        free, with the layer's g (free or not)."""
        rows = self.start_layers.copy()
        for k, name, i in self.each:
            if name != "musp":
                rows[i][{"mua": 1, "mus": 2, "g": 3}[name]] = x[k]
        for i, musp in self._musp_of(x).items():
            rows[i][2] = musp / (1 - rows[i][3])
        return rows

    def chain(self, jacobian, x):
        """The derivatives by the free parameters, the last axis of
        jacobian (..., L, 3: by mua, mus, g) replaced by (..., P); a
        parameter that layers share sums their derivatives."""
        rows = self.layers(x)
        musp = self._musp_of(x)
        columns = [0.0] * len(self.free)
        for k, name, i in self.each:
            g = rows[i][3]
            if name == "mua":
                column = jacobian[..., i, 0]
            elif name == "mus":
                column = jacobian[..., i, 1]
            elif name == "musp":
                column = jacobian[..., i, 1] / (1 - g)
            elif i in musp:  # g with mus' held: mus moves too
                column = jacobian[..., i, 2] + jacobian[..., i, 1] * musp[i] / (1 - g) ** 2
            else:
                column = jacobian[..., i, 2]
            columns[k] = columns[k] + column
        return np.stack(columns, axis=-1)

    def fitted_layers(self, x):
        return self.layers(x)


class ChromophoreModel:
    """Free concentrations and scattering of layers given as dicts; the
    layers' mua and mus follow at each wavelength."""

    def __init__(self, layers, wavelengths, free=(), bounds=None):
        self.start_layers = [_chromophore_layer(i, layer) for i, layer in enumerate(layers)]
        if not self.start_layers:
            raise ValueError("layers: no layers")
        self.free = _free_list(free, CHROMOPHORE_FREE, len(self.start_layers))
        self.each = _each_layer(self.free)
        from . import chromophores  # its tables are read only for chromophore models
        self.wavelengths = np.asarray(wavelengths, dtype=float)
        self.basis = self._basis(chromophores)
        self.start = np.array([_shared_start(name, layers, [self.start_layers[i][name]
                                                              for i in layers])
                               for name, layers in self.free])
        self.low, self.high = _bounds(self.free, bounds, self.start)

    def _basis(self, chromophores):
        """The spectra of the chromophores this model has (a table need only
        cover the wavelengths where its chromophore is present or free);
        the others are zeros."""
        used = {key for layer in self.start_layers for key in layer if layer[key] != 0}
        used |= {name for name, _ in self.free}
        names = [n for n in chromophores.CHROMOPHORES
                 if n in used or (n in ("oxy", "deoxy") and used & {"blood", "sto2"})]
        spectra = chromophores.basis(self.wavelengths, names)
        zero = np.zeros_like(self.wavelengths)
        return {n: spectra.get(n, zero) for n in chromophores.CHROMOPHORES}

    def _dicts(self, x):
        layers = [dict(layer) for layer in self.start_layers]
        for k, name, i in self.each:
            layers[i][name] = float(x[k])
        return layers

    def _mua(self, layer):
        b = self.basis
        blood = layer["blood"] * (layer["sto2"] * b["oxy"] + (1 - layer["sto2"]) * b["deoxy"])
        return (blood + layer["water"] * b["water"] + layer["lipid"] * b["lipid"] +
                layer["melanin"] * b["melanin"])

    def _musp(self, layer):
        return layer["a"] * (self.wavelengths / 500.0) ** -layer["b"]

    def layers(self, x):
        """The layer rows [n, mua, mus, g, d] at each wavelength: (W, L, 5)."""
        dicts = self._dicts(x)
        rows = np.empty((len(self.wavelengths), len(dicts), 5))
        for i, layer in enumerate(dicts):
            rows[:, i, 0] = layer["n"]
            rows[:, i, 1] = self._mua(layer)
            rows[:, i, 2] = self._musp(layer) / (1 - layer["g"])
            rows[:, i, 3] = layer["g"]
            rows[:, i, 4] = layer["d"]
        return rows

    def chain(self, jacobian, x):
        """jacobian (W, ..., L, 3) at each wavelength to (W, ..., P); a
        parameter that layers share sums their derivatives."""
        dicts = self._dicts(x)
        columns = [0.0] * len(self.free)
        for k, name, i in self.each:
            columns[k] = columns[k] + self._derivative(name, dicts[i], jacobian[..., i, :])
        return np.stack(columns, axis=-1)

    def _derivative(self, name, layer, by):
        """The derivative by a layer's parameter `name` from its derivatives
        `by` (W, ..., 3) by mua, mus and g: mua and mus are functions of
        the wavelength, so each factor is a spectrum (W,) broadcast."""
        lam = self.wavelengths
        spectrum = (len(lam),) + (1,) * (by.ndim - 2)
        b = self.basis
        d_mua, d_mus, d_g = by[..., 0], by[..., 1], by[..., 2]
        mus = (self._musp(layer) / (1 - layer["g"])).reshape(spectrum)
        if name == "blood":
            return d_mua * (layer["sto2"] * b["oxy"] +
                            (1 - layer["sto2"]) * b["deoxy"]).reshape(spectrum)
        if name == "sto2":
            return d_mua * (layer["blood"] * (b["oxy"] - b["deoxy"])).reshape(spectrum)
        if name in ("water", "lipid", "melanin"):
            return d_mua * b[name].reshape(spectrum)
        if name == "a":
            return d_mus * mus / layer["a"]
        if name == "b":
            return -d_mus * mus * np.log(lam / 500.0).reshape(spectrum)
        return d_g + d_mus * mus / (1 - layer["g"])  # g, with mus' held

    def fitted_layers(self, x):
        return self._dicts(x)


def _chromophore_layer(i, layer):
    """A chromophore layer's dict, complete and checked."""
    if not isinstance(layer, dict):
        raise ValueError("layers[%d]: expected a dict of %s (got %r)"
                         % (i, ", ".join(CHROMOPHORE_KEYS), layer))
    unknown = sorted(set(layer) - set(CHROMOPHORE_KEYS))
    if unknown:
        raise ValueError("layers[%d]: unknown key %s; a layer has %s"
                         % (i, ", ".join(map(repr, unknown)), ", ".join(CHROMOPHORE_KEYS)))
    full = {k: 0.0 for k in ("blood", "sto2", "water", "lipid", "melanin")}
    for key in ("n", "d", "g", "a", "b"):
        if key not in layer:
            raise ValueError("layers[%d]: %r is missing (n, d, g, a and b are needed)" % (i, key))
    for key, value in layer.items():
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or \
                not math.isfinite(value) and not (key == "d" and value == math.inf):
            raise ValueError("layers[%d][%r]: expected a finite number (got %r)"
                             % (i, key, value))
        full[key] = float(value)
    for key in ("blood", "sto2", "water", "lipid", "melanin"):
        if not 0 <= full[key] <= 1:
            raise ValueError("layers[%d][%r]: a fraction, from 0 to 1 (got %r)"
                             % (i, key, full[key]))
    if full["n"] <= 0 or full["d"] <= 0 or full["a"] <= 0 or not -1 < full["g"] < 1:
        raise ValueError("layers[%d]: n, d and a must be positive and g within (-1, 1) (got "
                         "n %r, d %r, a %r, g %r)" % (i, full["n"], full["d"], full["a"],
                                                      full["g"]))
    if full["d"] == math.inf:
        full["d"] = 1e8  # semi-infinite, as tmcml.run's layers take it
    return full
