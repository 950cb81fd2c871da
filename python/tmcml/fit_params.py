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
    """free as a list of (name, layer index) pairs, each checked."""
    if isinstance(free, (str, bytes)) or not hasattr(free, "__iter__"):
        raise ValueError("free: expected a list of (name, layer) pairs, as [('mua', 0)] "
                         "(got %r)" % (free,))
    pairs = []
    for item in free:
        try:
            name, layer = item
        except (TypeError, ValueError):
            raise ValueError("free: %r is not a (name, layer) pair" % (item,)) from None
        if name not in allowed:
            raise ValueError("free: %r is not a parameter of this model; the free parameters "
                             "are %s" % (name, ", ".join(allowed)))
        if isinstance(layer, bool) or not isinstance(layer, numbers.Integral) or \
                not 0 <= layer < layers:
            raise ValueError("free: (%r, %r): the layer is an index from 0 to %d"
                             % (name, layer, layers - 1))
        if (name, int(layer)) in pairs:
            raise ValueError("free: (%r, %d) is given twice" % (name, layer))
        pairs.append((name, int(layer)))
    return pairs


def parameter_name(name, layer):
    return "%s[%d]" % (name, layer)


def _bounds(pairs, bounds, start):
    """(low, high) arrays of the free parameters: bounds is None or a dict
    {(name, layer) or 'name[layer]': (low, high)}; the start must lie
    within them."""
    bounds = dict(bounds or {})
    low, high = [], []
    for (name, layer), x in zip(pairs, start):
        key = (name, layer)
        given = bounds.pop(key, bounds.pop(parameter_name(name, layer), None))
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


class OpticsModel:
    """Free optical properties of layers given as tmcml.run's rows."""

    def __init__(self, layers, free, bounds):
        self.start_layers = layers_array(layers)
        self.free = _free_list(free, OPTICS_FREE, len(self.start_layers))
        for name, layer in self.free:
            if name == "musp" and ("mus", layer) in self.free:
                raise ValueError("free: mus and musp of layer %d: one or the other (mus' = "
                                 "mus (1 - g))" % layer)
            if name in ("mus", "musp", "g") and self.start_layers[layer][2] == 0:
                raise ValueError("free: (%r, %d): layer %d does not scatter (mus 0, glass): "
                                 "it has no %s to fit" % (name, layer, layer, name))
        self.start = np.array([self._value(self.start_layers, p) for p in self.free])
        self.low, self.high = _bounds(self.free, bounds, self.start)

    @staticmethod
    def _value(rows, pair):
        name, i = pair
        n, mua, mus, g, d = rows[i]
        return {"mua": mua, "mus": mus, "musp": mus * (1 - g), "g": g}[name]

    def _musp_of(self, x):
        """Each layer's mus', where mus' is free or fixed by the start."""
        rows = self.start_layers
        musp = {i: rows[i][2] * (1 - rows[i][3]) for _, i in self.free}
        for (name, i), v in zip(self.free, x):
            if name == "musp":
                musp[i] = v
        return musp

    def layers(self, x):
        """The layer rows at parameters x: mus follows mus' where mus' is
        free, with the layer's g (free or not)."""
        rows = self.start_layers.copy()
        for (name, i), v in zip(self.free, x):
            if name != "musp":
                rows[i][{"mua": 1, "mus": 2, "g": 3}[name]] = v
        musp = self._musp_of(x)
        for name, i in self.free:
            if name == "musp":
                rows[i][2] = musp[i] / (1 - rows[i][3])
        return rows

    def chain(self, jacobian, x):
        """The derivatives by the free parameters, the last axis of
        jacobian (..., L, 3: by mua, mus, g) replaced by (..., P)."""
        rows = self.layers(x)
        musp = self._musp_of(x)
        columns = []
        for name, i in self.free:
            g = rows[i][3]
            if name == "mua":
                columns.append(jacobian[..., i, 0])
            elif name == "mus":
                columns.append(jacobian[..., i, 1])
            elif name == "musp":
                columns.append(jacobian[..., i, 1] / (1 - g))
            elif ("musp", i) in self.free:  # g with mus' held: mus moves too
                columns.append(jacobian[..., i, 2] + jacobian[..., i, 1] * musp[i] / (1 - g) ** 2)
            else:
                columns.append(jacobian[..., i, 2])
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
        from . import chromophores  # its tables are read only for chromophore models
        self.wavelengths = np.asarray(wavelengths, dtype=float)
        self.basis = self._basis(chromophores)
        self.start = np.array([self.start_layers[i][name] for name, i in self.free])
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
        for (name, i), v in zip(self.free, x):
            layers[i][name] = float(v)
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
        """jacobian (W, ..., L, 3) at each wavelength to (W, ..., P)."""
        dicts = self._dicts(x)
        b = self.basis
        lam = self.wavelengths
        columns = []
        for name, i in self.free:
            layer = dicts[i]
            d_mua, d_mus, d_g = (jacobian[..., i, k] for k in range(3))
            shape = (len(lam),) + (1,) * (jacobian.ndim - 3)
            mus = (self._musp(layer) / (1 - layer["g"])).reshape(shape)
            per = {
                "blood": lambda: d_mua * (layer["sto2"] * b["oxy"] +
                                          (1 - layer["sto2"]) * b["deoxy"]).reshape(shape),
                "sto2": lambda: d_mua * (layer["blood"] * (b["oxy"] - b["deoxy"])).reshape(shape),
                "water": lambda: d_mua * b["water"].reshape(shape),
                "lipid": lambda: d_mua * b["lipid"].reshape(shape),
                "melanin": lambda: d_mua * b["melanin"].reshape(shape),
                "a": lambda: d_mus * mus / layer["a"],
                "b": lambda: -d_mus * mus * np.log(lam / 500.0).reshape(shape),
                "g": lambda: d_g + d_mus * mus / (1 - layer["g"]),
            }
            columns.append(per[name]())
        return np.stack(columns, axis=-1)

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
