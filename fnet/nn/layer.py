"""Pure layers: a layer is a frozen spec of hyperparameters; its parameters live in a pytree.

A spec makes its parameters with ``init(key)`` and computes with ``apply(params, ...)``
(calling the spec is the same as ``apply``). Layers with non-trainable state (batch
normalization's running statistics) also have ``init_state()``, take the state and return the
new one: ``apply(params, x, state, *, train) -> (y, state)``. Parameter names and layouts are
Chainer's, so ``fnet.tree.path_str`` of a leaf is the link's ``namedparams`` name.

A model is composed from child specs in one of two ways: ``Sequential(*layers)``, or a
``Module`` subclass whose attrs fields are its children (their params nest under the field
names) and whose ``apply`` says how they are wired:

>>> import attrs, numpy, fnet
>>> from fnet import nn
>>> @attrs.frozen
... class MLP(nn.Module):
...     l1: nn.Linear
...     l2: nn.Linear
...     def apply(self, params, x):
...         return self.l2(params["l2"], fnet.functions.relu(self.l1(params["l1"], x)))
>>> model = MLP(nn.Linear(3, 4), nn.Linear(4, 2))
>>> params = model.init(fnet.random.key(0))
>>> sorted(fnet.tree.path_str(p) for p, _ in fnet.tree.flatten_with_paths(params))
['l1/W', 'l1/b', 'l2/W', 'l2/b']
>>> model(params, numpy.ones((5, 3), numpy.float32)).shape
(5, 2)
"""

from __future__ import annotations

import functools
import inspect

import attrs

from .. import initializers, random
from ..errors import InvalidInputError

__all__ = ["Layer", "Module", "Sequential", "frozen_initializer"]


def frozen_initializer(value):
    """Keep a Chainer-style initial value (``initialW=...``) in a frozen spec, safely.

    None stays None (the layer's default applies); an array or a number becomes an
    ``initializers.Constant`` holding a private read-only copy, so that changing the caller's
    array later does not change the spec, and specs still compare and hash; an initializer is
    kept as it is. Use it as the converter of such fields:
    ``initialW: object = attrs.field(default=None, converter=frozen_initializer)``.
    """
    return None if value is None else initializers.as_initializer(value)


class Layer:
    """Base of layer specs. Subclasses are frozen attrs classes defining ``init`` and ``apply``."""

    stateful: bool = False  # whether apply takes and returns a state tree

    def init(self, key) -> dict:
        """The layer's parameters, drawn from ``key`` (a dict keyed by Chainer's names)."""
        raise TypeError(f"{type(self).__name__} defines no init(key)")

    def init_state(self) -> dict:
        """The layer's initial non-trainable state (empty for stateless layers)."""
        return {}

    def apply(self, params, *args, **kwargs):
        """The layer's computation on its ``params``."""
        raise TypeError(f"{type(self).__name__} defines no apply(params, ...)")

    def __call__(self, params, *args, **kwargs):
        return self.apply(params, *args, **kwargs)


def _children(module) -> list[tuple[str, Layer]]:
    """The (name, layer) pairs of a composite: its attrs fields that hold layers, in order."""
    return [
        (field.name, getattr(module, field.name))
        for field in attrs.fields(type(module))
        if isinstance(getattr(module, field.name), Layer)
    ]


def _is_lazy(layer: Layer) -> bool:
    """Whether ``layer`` infers its input size from an example input (Chainer's lazy links)."""
    return any(getattr(layer, name, 0) is None for name in ("in_channels", "in_size"))


class Module(Layer):
    """A composite layer whose attrs fields are its child layers; subclasses define ``apply``.

    ``init`` nests each child's params under its field name, with one key split off per child;
    ``init_state`` does the same for children with state. Children that are not layers (ints,
    functions) are hyperparameters.
    """

    @property
    def stateful(self) -> bool:  # type: ignore[override]
        return any(child.stateful for _, child in _children(self))

    def init(self, key, x=None) -> dict:
        """Each child's params under its field name, from its own key split off ``key``.

        Children left to infer their input size (``in_size`` or ``in_channels`` None) get the
        example input ``x``: that suits composites whose first layers read the input.
        """
        children = _children(self)
        keys = random.split(key, len(children))
        return {
            name: child.init(k, x) if _is_lazy(child) else child.init(k)
            for (name, child), k in zip(children, keys)
        }

    def init_state(self) -> dict:
        """Each stateful child's initial state under its field name."""
        return {name: child.init_state() for name, child in _children(self) if child.stateful}


@attrs.frozen(init=False)
class Sequential(Layer):
    """Layers (or plain functions such as ``fnet.functions.relu``) applied one after another.

    As in Chainer's ``Sequential``, only the layers are numbered, functions left out, so
    ``Sequential(Linear(3, 4), relu, Linear(4, 2))`` has params ``0/W, 0/b, 1/W, 1/b`` like
    Chainer's (and its npz files); from three layers on, the numbers follow Chainer's own
    order (see ``_chainer_ranks``).
    If a layer is stateful, ``apply(params, x, state, *, train)`` returns ``(y, state)``, the
    state keyed like the params; otherwise ``apply(params, x)`` returns ``y``.
    """

    layers: tuple

    def __init__(self, *layers):
        for i, layer in enumerate(layers):
            if not callable(layer):
                raise InvalidInputError(
                    f"Sequential: expected layers or functions, got {type(layer).__name__} at position {i}\n"
                    "  hint: pass the layers themselves, e.g. Sequential(nn.Linear(3, 4), F.relu)"
                )
        self.__attrs_init__(tuple(layers))

    def _named(self) -> list[tuple[str, Layer]]:
        """The layers (not the functions), in order, with the names of their params: Chainer's."""
        ranks = _chainer_ranks([isinstance(x, Layer) for x in self.layers])
        named = [(str(ranks[i]), x) for i, x in enumerate(self.layers) if isinstance(x, Layer)]
        return named

    @property
    def stateful(self) -> bool:  # type: ignore[override]
        return any(layer.stateful for _, layer in self._named())

    def init(self, key) -> dict:
        """Each layer's params under its rank among the layers (``"0"``, ``"1"``, ...)."""
        named = self._named()
        keys = random.split(key, len(named))
        return {name: layer.init(k) for (name, layer), k in zip(named, keys)}

    def init_state(self) -> dict:
        """Each stateful layer's initial state, keyed like its params."""
        return {name: layer.init_state() for name, layer in self._named() if layer.stateful}

    def apply(self, params, x, state=None, *, train: bool = True, key=None):
        """``x`` through every layer and function in turn; ``(y, state)`` if a layer has state.

        ``key`` is split among the layers whose ``apply`` takes one (dropout-like layers).
        """
        if state is None and self.stateful:
            raise InvalidInputError(
                "Sequential.apply: a child layer has state; pass state=... "
                "(from Sequential.init_state(), then the state returned by the previous call)"
            )
        takers = [] if key is None else [n for n, layer in self._named() if _takes_key(type(layer))]
        keys = dict(zip(takers, random.split(key, len(takers)))) if takers else {}
        new_state = {}
        names = iter(name for name, _ in self._named())
        for layer in self.layers:
            if not isinstance(layer, Layer):
                x = layer(x)
                continue
            name = next(names)
            extra = {"key": keys[name]} if name in keys else {}
            if layer.stateful:
                x, new_state[name] = layer.apply(params[name], x, state[name], train=train, **extra)
            else:
                x = layer.apply(params[name], x, **extra)
        return (x, new_state) if self.stateful else x


def _chainer_ranks(is_layer: list[bool]) -> dict[int, int]:
    """The name Chainer's ``Sequential`` gives each layer, by its position among all entries.

    Chainer appends each link to its children after the *first* link that precedes it (or
    first of all, for the very first entry), so from three links on the names are not the
    order of the layers: ``(A, relu, B, C)`` names A, C, B ``"0"``, ``"1"``, ``"2"``. Its npz
    files use those names, so fnet uses them too.
    """
    children: list[int] = []
    for position, layer in enumerate(is_layer):
        if not layer:
            continue
        if position == 0:
            children.insert(0, position)
            continue
        earlier = [children.index(j) for j in range(position) if is_layer[j]]
        children.insert(earlier[0] + 1 if earlier else 0, position)
    return {position: rank for rank, position in enumerate(children)}


@functools.cache
def _takes_key(cls: type) -> bool:
    """Whether the layer class's ``apply`` takes a random ``key``."""
    return "key" in inspect.signature(cls.apply).parameters
