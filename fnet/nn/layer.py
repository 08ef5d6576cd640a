"""Pure layers: a layer is a frozen spec of hyperparameters; its parameters live in a pytree.

A spec makes its parameters with ``init(key)`` and computes with ``apply(params, ...)``
(calling the spec is the same as ``apply``). Layers with non-trainable state (batch
normalization's running statistics) also have ``init_state()``, take the state and return the
new one: ``apply(params, x, state, *, train) -> (y, state)``. Parameter names and layouts are
Chainer's, so ``fnet.tree.path_str`` of a leaf is the link's ``namedparams`` name.

A size Chainer lets a link infer (``in_size=None``) is a ``lazy_field`` of the spec, which
names the leaves it sizes: ``spec.lazy`` says whether ``init`` needs an example input, and
``spec.shapes()`` gives the params' shapes with None where that input decides them (the
Chainer layer asks the spec this, and draws the rest at once as Chainer does).

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
from typing import Any

import attrs
import numpy

from .. import initializers, random, tree
from ..errors import InvalidInputError

__all__ = ["Layer", "Module", "Sequential", "frozen_initializer", "lazy_field", "replaced", "stand_in"]

_LAZY = "fnet.nn.lazy"  # the metadata key of a lazy size field: the params it sizes


def lazy_field(*, sizes: tuple[str, ...] = (), stand_in: Any = 1, **kwargs: Any):
    """An attrs field for a size that may be None, to be read from the example input given to
    ``init(key, x)`` (Chainer's lazy ``in_size=None``). ``sizes`` names the leaves of the params
    and state trees (``"W"``, ``"upward/W"``) whose shapes depend on it; ``stand_in`` (a value,
    or a function of the spec) is a size that makes a valid spec, used to draw the other
    leaves before the input is known. Other keywords go to ``attrs.field``."""
    metadata = {_LAZY: (tuple(sizes), stand_in)}
    return attrs.field(metadata=metadata, **kwargs)


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

    def sublayers(self) -> dict[str, Layer]:
        """The child layers whose params nest in this layer's, by their key: the attrs fields that
        hold layers (specs that nest children otherwise say so)."""
        if not attrs.has(type(self)):
            return {}
        return {
            field.name: getattr(self, field.name)
            for field in attrs.fields(type(self))
            if isinstance(getattr(self, field.name), Layer)
        }

    @property
    def lazy(self) -> bool:
        """Whether the layer reads a size from the example input of ``init(key, x)``: one of its
        ``lazy_field`` sizes (or a child's) is None."""
        return any(getattr(self, f.name) is None for f in _lazy_fields(type(self))) or any(
            child.lazy for child in self.sublayers().values()
        )

    def shapes(self, *example) -> dict:
        """The shapes of the params, as a tree like ``init``'s; without the example input a lazy
        layer needs, the leaves its unknown sizes decide are None."""
        return self._shapes(lambda layer: layer.init(random.key(0), *example), example)

    def state_shapes(self, *example) -> dict:
        """The shapes of the state (``init_state``'s tree), None where ``shapes`` has None."""
        if not self.stateful:
            return {}
        return self._shapes(lambda layer: layer.init_state(*example), example)

    def _shapes(self, draw, example: tuple) -> dict:
        """The shapes of the tree ``draw(layer)`` makes, the leaves still unknown marked None."""
        if example or not self.lazy:
            return tree.map(numpy.shape, draw(self))
        return _unknown(self, tree.map(numpy.shape, draw(stand_in(self))))


@functools.cache
def _lazy_fields(cls: type) -> tuple:
    """The attrs fields of the layer class ``cls`` made by ``lazy_field``."""
    return tuple(f for f in attrs.fields(cls) if _LAZY in f.metadata) if attrs.has(cls) else ()


def _waiting(layer: Layer) -> list[tuple[str, ...]]:
    """The leaves (as paths) that ``layer``'s own lazy sizes still leave unknown."""
    return [
        tuple(path.split("/"))
        for field in _lazy_fields(type(layer))
        if getattr(layer, field.name) is None
        for path in field.metadata[_LAZY][0]
    ]


def _unknown(layer: Layer, shapes: dict) -> dict:
    """``shapes`` (of ``stand_in(layer)``'s tree) with the leaves the unknown sizes decide None."""
    shapes = dict(shapes)
    for path in _waiting(layer):
        _set_none(shapes, path)
    for name, child in layer.sublayers().items():
        if name in shapes and child.lazy:
            shapes[name] = _unknown(child, shapes[name])
    return shapes


def _set_none(shapes: dict, path: tuple[str, ...]) -> None:
    """Set the leaf of ``shapes`` at ``path`` None (nothing when the tree has no such leaf)."""
    *parents, leaf = path
    for name in parents:
        if name not in shapes:
            return
        shapes[name] = shapes = dict(shapes[name])
    if leaf in shapes:
        shapes[leaf] = None


def replaced(spec: Layer, **changes: Any) -> Layer:
    """A copy of the frozen ``spec`` with the fields ``changes`` (its constructor is not rerun)."""
    values = {f.alias: changes.get(f.name, getattr(spec, f.name)) for f in attrs.fields(type(spec))}
    copy = object.__new__(type(spec))
    # attrs names its generated initializer __attrs_init__ when the class writes its own __init__
    (getattr(copy, "__attrs_init__", None) or copy.__init__)(**values)
    return copy


def rewritten(spec: Layer, change) -> Layer:
    """``spec`` with each field value ``v`` of name ``n`` replaced by ``change(spec, field, v)``,
    in its child layers too; ``spec`` itself when nothing changes."""
    changes = {}
    for field in attrs.fields(type(spec)):
        value = getattr(spec, field.name)
        if isinstance(value, Layer):
            new = rewritten(value, change)
        elif isinstance(value, tuple) and any(isinstance(v, Layer) for v in value):
            new = tuple(rewritten(v, change) if isinstance(v, Layer) else v for v in value)
            new = value if all(a is b for a, b in zip(new, value)) else new
        else:
            new = change(spec, field, value)
        if new is not value:
            changes[field.name] = new
    return replaced(spec, **changes) if changes else spec


def stand_in(spec: Layer) -> Layer:
    """``spec`` with each lazy size it leaves None set to the field's stand-in (in its child
    layers too): a spec that can draw, whose other leaves are those ``spec`` will draw."""

    def change(layer, field, value):
        lazy = field.metadata.get(_LAZY)
        if lazy is None or value is not None:
            return value
        size = lazy[1]
        return size(layer) if callable(size) else size

    return rewritten(spec, change)


class Module(Layer):
    """A composite layer whose attrs fields are its child layers; subclasses define ``apply``.

    ``init`` nests each child's params under its field name, with one key split off per child;
    ``init_state`` does the same for children with state. Children that are not layers (ints,
    functions) are hyperparameters.
    """

    @property
    def stateful(self) -> bool:  # type: ignore[override]
        return any(child.stateful for child in self.sublayers().values())

    def init(self, key, x=None) -> dict:
        """Each child's params under its field name, from its own key split off ``key``.

        Children left to infer a size (``lazy``) get the example input ``x``: that suits
        composites whose first layers read the input.
        """
        children = self.sublayers().items()
        keys = random.split(key, len(children))
        return {
            name: child.init(k, x) if child.lazy else child.init(k)
            for (name, child), k in zip(children, keys)
        }

    def init_state(self, x=None) -> dict:
        """Each stateful child's initial state under its field name (lazy ones sized by ``x``)."""
        return {
            name: child.init_state(x) if child.lazy else child.init_state()
            for name, child in self.sublayers().items()
            if child.stateful
        }


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

    def sublayers(self) -> dict[str, Layer]:
        """The layers by the names of their params (their Chainer ranks)."""
        return dict(self._named())

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
