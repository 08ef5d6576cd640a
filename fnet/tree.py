"""Pytrees: nested containers of arrays, flattened to leaves and rebuilt from them.

Nodes are tuple, list, dict (keys in sorted order), None (a node without children),
namedtuple, attrs classes (fields in order; fields marked with ``static_field`` belong to the
structure, not to the leaves), and any type added with ``register_node``. Everything else is a
leaf. A leaf's path is the tuple of keys that lead to it; ``path_str`` joins them with ``/``,
which is also Chainer's ``namedparams`` name and the checkpoint key.

>>> leaves, structure = flatten({"b": 1, "a": (2, None)})
>>> leaves
[2, 1]
>>> unflatten(structure, [20, 10])
{'a': (20, None), 'b': 10}
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Iterable
from typing import Any, NamedTuple

import attrs

from .errors import TreeStructureError, aval

__all__ = [
    "Structure",
    "register_node",
    "static_field",
    "flatten",
    "unflatten",
    "flatten_with_paths",
    "leaves",
    "structure",
    "map",
    "map_with_paths",
    "path_str",
    "all_equal_structure",
    "summary",
]

_STATIC = "fnet.static"


class _NodeType(NamedTuple):
    name: str
    # node -> (children, aux); aux is hashable and goes into the structure
    flatten: Callable[[Any], tuple[list, Hashable]]
    # (aux, children) -> node
    unflatten: Callable[[Hashable, list], Any]
    # (node, aux) -> the keys that name the children in paths
    keys: Callable[[Any, Hashable], Iterable]


_LEAF = object()
_node_types: dict[type, _NodeType | object] = {}


def register_node(
    cls: type,
    flatten: Callable[[Any], tuple[list, Hashable]],
    unflatten: Callable[[Hashable, list], Any],
    keys: Callable[[Any, Hashable], Iterable] | None = None,
) -> None:
    """Make ``cls`` a pytree node.

    Args:
        cls: the container type.
        flatten: ``node -> (children, aux)``; ``aux`` must be hashable and comparable.
        unflatten: ``(aux, children) -> node``.
        keys: ``(node, aux) -> keys`` naming the children in paths; default: their indices.
    """
    _node_types[cls] = _NodeType(
        cls.__name__, flatten, unflatten, keys or (lambda node, aux: range(len(flatten(node)[0])))
    )


def static_field(**kwargs):
    """An attrs field that is part of a node's structure (hyperparameters), not a leaf."""
    metadata = dict(kwargs.pop("metadata", None) or {})
    metadata[_STATIC] = True
    return attrs.field(metadata=metadata, **kwargs)


def _attrs_node(cls: type) -> _NodeType:
    fields = attrs.fields(cls)
    dynamic = tuple(f.name for f in fields if not f.metadata.get(_STATIC))
    static = tuple(f.name for f in fields if f.metadata.get(_STATIC))

    def flat(node):
        return [getattr(node, n) for n in dynamic], tuple(getattr(node, n) for n in static)

    def unflat(aux, children):
        values = dict(zip(dynamic, children, strict=True))
        values.update(zip(static, aux, strict=True))
        node = cls.__new__(cls)  # fields are restored as they were: __init__ is not rerun
        for name, value in values.items():
            object.__setattr__(node, name, value)
        return node

    return _NodeType(cls.__name__, flat, unflat, lambda node, aux: dynamic)


def _namedtuple_node(cls: type) -> _NodeType:
    return _NodeType(
        cls.__name__,
        lambda node: (list(node), None),
        lambda aux, children: cls(*children),
        lambda node, aux: cls._fields,
    )


def _node_type(cls: type):
    """The node type of ``cls``, or ``_LEAF``; found once per class and cached."""
    kind = _node_types.get(cls)
    if kind is None:
        if issubclass(cls, tuple) and hasattr(cls, "_fields"):
            kind = _namedtuple_node(cls)
        elif attrs.has(cls):
            kind = _attrs_node(cls)
        else:
            kind = _LEAF
        _node_types[cls] = kind
    return kind


def _dict_flatten(d):
    try:
        keys = sorted(d)
    except TypeError as error:
        raise TreeStructureError(
            f"tree: dict keys must be mutually orderable to give a stable leaf order, "
            f"got {sorted(repr(k) for k in d)}\n  hint: use keys of one type (e.g. all str)"
        ) from error
    return [d[k] for k in keys], tuple(keys)


register_node(tuple, lambda t: (list(t), None), lambda aux, c: tuple(c))
register_node(list, lambda t: (list(t), None), lambda aux, c: list(c))
register_node(dict, _dict_flatten, lambda keys, c: dict(zip(keys, c)), lambda node, keys: keys)
register_node(type(None), lambda n: ([], None), lambda aux, c: None, lambda node, aux: ())


class Structure:
    """The shape of a pytree without its leaves; equal structures compare and hash equal."""

    __slots__ = ("node", "aux", "children", "num_leaves", "_hash")

    def __init__(self, node, aux, children: tuple[Structure, ...]):
        self.node = node  # a _NodeType, or None for a leaf
        self.aux = aux
        self.children = children
        self.num_leaves = 1 if node is None else sum(c.num_leaves for c in children)
        self._hash = None

    def __eq__(self, other):
        if self is other:
            return True
        if not isinstance(other, Structure):
            return NotImplemented
        return (
            self.node is other.node
            and self.num_leaves == other.num_leaves
            and self.aux == other.aux
            and self.children == other.children
        )

    def __hash__(self):
        if self._hash is None:
            self._hash = hash((id(self.node), self.aux, self.children))
        return self._hash

    def __repr__(self):
        if self.node is None:
            return "*"
        inner = ", ".join(repr(c) for c in self.children)
        return f"{self.node.name}({inner}){'' if self.aux is None else f'[{self.aux!r}]'}"


_LEAF_STRUCTURE = Structure(None, None, ())


def _flatten(tree, out: list, is_leaf) -> Structure:
    kind = _node_type(type(tree))
    if kind is _LEAF or (is_leaf is not None and is_leaf(tree)):
        out.append(tree)
        return _LEAF_STRUCTURE
    children, aux = kind.flatten(tree)
    return Structure(kind, aux, tuple(_flatten(c, out, is_leaf) for c in children))


def flatten(tree, is_leaf: Callable[[Any], bool] | None = None) -> tuple[list, Structure]:
    """Split ``tree`` into its list of leaves and its structure."""
    out: list = []
    return out, _flatten(tree, out, is_leaf)


def _unflatten(structure: Structure, it):
    if structure.node is None:
        return next(it)
    return structure.node.unflatten(structure.aux, [_unflatten(c, it) for c in structure.children])


def unflatten(structure: Structure, leaves: Iterable):
    """Rebuild a tree of ``structure`` from ``leaves`` (in ``flatten``'s order)."""
    leaves = list(leaves)
    if len(leaves) != structure.num_leaves:
        raise TreeStructureError(
            f"unflatten: expected {structure.num_leaves} leaves for structure {structure!r}, "
            f"got {len(leaves)}"
        )
    return _unflatten(structure, iter(leaves))


def leaves(tree, is_leaf: Callable[[Any], bool] | None = None) -> list:
    """The leaves of ``tree``, in order."""
    return flatten(tree, is_leaf)[0]


def structure(tree, is_leaf: Callable[[Any], bool] | None = None) -> Structure:
    """The structure of ``tree``."""
    return flatten(tree, is_leaf)[1]


def _with_paths(tree, prefix: tuple, out: list, is_leaf) -> None:
    kind = _node_type(type(tree))
    if kind is _LEAF or (is_leaf is not None and is_leaf(tree)):
        out.append((prefix, tree))
        return
    children, aux = kind.flatten(tree)
    for key, child in zip(kind.keys(tree, aux), children, strict=True):
        _with_paths(child, prefix + (key,), out, is_leaf)


def flatten_with_paths(tree, is_leaf: Callable[[Any], bool] | None = None) -> list[tuple[tuple, Any]]:
    """The ``(path, leaf)`` pairs of ``tree``, in ``flatten``'s order.

    >>> flatten_with_paths({"l1": {"W": 1, "b": 2}, "l2": [3]})
    [(('l1', 'W'), 1), (('l1', 'b'), 2), (('l2', 0), 3)]
    """
    out: list = []
    _with_paths(tree, (), out, is_leaf)
    return out


def path_str(path: tuple) -> str:
    """Join a path's keys with ``/``: ``('l1', 'W') -> 'l1/W'``."""
    return "/".join(str(k) for k in path)


def _describe(node, is_leaf=None) -> str:
    kind = _node_type(type(node))
    if kind is _LEAF or (is_leaf is not None and is_leaf(node)):
        return f"a leaf ({type(node).__name__})"
    children, aux = kind.flatten(node)
    if type(node) is dict:
        return f"a dict with keys {list(aux)}"
    if kind.name in ("tuple", "list"):
        return f"a {kind.name} of length {len(children)}"
    if node is None:
        return "None"
    if attrs.has(type(node)):
        static = [f.name for f in attrs.fields(type(node)) if f.metadata.get(_STATIC)]
        if static:
            values = ", ".join(f"{n}={v!r}" for n, v in zip(static, aux))
            return f"a {kind.name} node with static fields {values}"
    elif aux is not None:
        return f"a {kind.name} node with aux {aux!r}"
    return f"a {kind.name} node"


def first_difference(a, b, prefix: tuple = (), is_leaf=None) -> tuple[tuple, str, str] | None:
    """The path where two trees first differ in structure, with both sides described."""
    ka, kb = _node_type(type(a)), _node_type(type(b))
    if is_leaf is not None:
        ka = _LEAF if is_leaf(a) else ka
        kb = _LEAF if is_leaf(b) else kb
    if ka is _LEAF and kb is _LEAF:
        return None
    if ka is not kb:
        return prefix, _describe(a, is_leaf), _describe(b, is_leaf)
    ca, aux_a = ka.flatten(a)
    cb, aux_b = kb.flatten(b)
    if aux_a != aux_b or len(ca) != len(cb):
        return prefix, _describe(a, is_leaf), _describe(b, is_leaf)
    for key, x, y in zip(ka.keys(a, aux_a), ca, cb):
        found = first_difference(x, y, prefix + (key,), is_leaf)
        if found is not None:
            return found
    return None


def structure_mismatch(
    op: str, a, b, names: tuple[str, str] = ("tree", "other"), is_leaf=None
) -> TreeStructureError:
    """A ``TreeStructureError`` naming the first path where ``a`` and ``b`` differ."""
    path, da, db = first_difference(a, b, is_leaf=is_leaf) or ((), "?", "?")
    where = f"'{path_str(path)}'" if path else "the root"
    return TreeStructureError(
        f"{op}: tree structures differ at {where}\n"
        f"  {names[0]}: {da}\n"
        f"  {names[1]}: {db}\n"
        f"  hint: the trees must have the same nesting, dict keys and sequence lengths"
    )


def all_equal_structure(*trees) -> bool:
    """Whether all ``trees`` have the same structure."""
    first = structure(trees[0])
    return all(structure(t) == first for t in trees[1:])


def map(f: Callable, tree, *rest, is_leaf: Callable[[Any], bool] | None = None):
    """Apply ``f`` leaf-wise over one or more trees of the same structure.

    >>> map(lambda x, y: x + y, {"a": 1, "b": (2, 3)}, {"a": 10, "b": (20, 30)})
    {'a': 11, 'b': (22, 33)}
    """
    flat, struct = flatten(tree, is_leaf)
    others = []
    for i, other in enumerate(rest):
        other_flat, other_struct = flatten(other, is_leaf)
        if other_struct != struct:
            raise structure_mismatch("tree.map", tree, other, ("tree", f"rest[{i}]"), is_leaf)
        others.append(other_flat)
    return unflatten(struct, [f(*xs) for xs in zip(flat, *others)])


def map_with_paths(f: Callable, tree, *rest, is_leaf: Callable[[Any], bool] | None = None):
    """Like ``map``, with the leaf's path as ``f``'s first argument."""
    paths = [p for p, _ in flatten_with_paths(tree, is_leaf)]
    it = iter(paths)
    return map(lambda *xs: f(next(it), *xs), tree, *rest, is_leaf=is_leaf)


def _bytes(n: int) -> str:
    """A size in bytes, in binary units: ``512 B``, ``29.3 KiB``, ``1.5 MiB``."""
    if n < 1024:
        return f"{n} B"
    for unit in ("KiB", "MiB", "GiB", "TiB"):
        n /= 1024
        if n < 1024 or unit == "TiB":
            return f"{n:.1f} {unit}"
    raise AssertionError("unreachable")


def summary(tree, is_leaf: Callable[[Any], bool] | None = None) -> str:
    """A readable listing of ``tree``: each leaf's path and aval, then the number of array
    elements and their size.

    Arrays are shown as ``dtype[shape]``, never with their values, so it suits params trees,
    gradients and optimizer states alike (the name follows the ``model.summary()`` of other
    frameworks). Leaves that are not arrays are shown by type and value and not counted.

    >>> import numpy
    >>> params = {"l1": {"W": numpy.zeros((100, 64), numpy.float32), "b": numpy.zeros(100, numpy.float32)},
    ...           "l2": {"W": numpy.zeros((10, 100), numpy.float32), "b": numpy.zeros(10, numpy.float32)}}
    >>> print(summary(params))
    l1/W  float32[100, 64]
    l1/b  float32[100]
    l2/W  float32[10, 100]
    l2/b  float32[10]
    total: 7,510 parameters (29.3 KiB)
    """
    rows, count, nbytes = [], 0, 0
    for path, leaf in flatten_with_paths(tree, is_leaf):
        rows.append((path_str(path) or "(root)", aval(leaf)))
        value = getattr(leaf, "value", leaf)  # a tracer's value
        shape, dtype = getattr(value, "shape", None), getattr(value, "dtype", None)
        if shape is not None and dtype is not None:
            size = math.prod(shape)
            count += size
            nbytes += size * dtype.itemsize
    width = max((len(p) for p, _ in rows), default=0)
    lines = [f"{p:<{width}}  {a}" for p, a in rows]
    lines.append(f"total: {count:,} parameter{'' if count == 1 else 's'} ({_bytes(nbytes)})")
    return "\n".join(lines)
