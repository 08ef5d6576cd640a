"""fnet's checkpoints: a pytree saved to one file and loaded back, safely (msgpack, never pickle).

``save(path, tree)`` writes fnet's own format; ``load(path, like=None)`` reads it back. A file
is a 24-byte header and a msgpack payload::

    offset  size  field
    0       8     magic bytes b"\\x89FNET\\r\\n\\x1a"
    8       4     format version, uint32 little-endian (this fnet writes and reads 1)
    12      8     payload length in bytes, uint64 little-endian
    20      4     CRC-32 of bytes 8-19 and of the payload, uint32 little-endian
    24      ...   payload

The payload is a map ``{"structure": node, "leaves": {path: leaf}}``. ``node`` describes the
tree: ``{"node": "dict", "keys": [...], "children": [...]}``, ``"list"`` and ``"tuple"`` (with
children), ``"none"``, ``"leaf"``, and ``"custom"`` for other pytree nodes (namedtuples, attrs
classes, registered types: their type name and child keys are kept, and only ``like`` can
rebuild them). Leaves are keyed by their tree path (``fnet.tree.path_str``, e.g. ``"l1/W"``):
an array is ``{"kind": "ndarray", "dtype": "<f4", "shape": [...], "data": raw C-order bytes}``
(``"scalar"`` for a NumPy scalar), a complex number is ``{"kind": "complex", ...}``, and bools,
ints, floats, strings and bytes are msgpack values. Loading decodes only these plain values, so
an untrusted file can never run code. Writes are atomic (``fnet.io.atomic``): a crash or an
error never leaves a half-written checkpoint, and the previous file stays intact until the new
one is complete. Every problem with a file raises ``fnet.errors.CheckpointError`` (an
``OSError``) naming the file and what is wrong; a file that does not fit ``like`` (structure,
shapes, dtypes) is such a problem too, and the message names the first path that differs.

>>> import os, tempfile, numpy
>>> path = os.path.join(tempfile.mkdtemp(), "model.ckpt")
>>> save(path, {"l1": {"W": numpy.ones((2, 3), numpy.float32)}, "step": 10})
>>> load(path)["step"]
10
"""

from __future__ import annotations

import contextlib
import math
import struct
import zlib
from collections.abc import Callable
from typing import Any, BinaryIO

import msgpack
import numpy

from .. import backend
from .. import tree as _tree
from ..errors import CheckpointError, InvalidInputError, aval, message
from ._common import (
    ARRAY_KINDS,
    FileErrors,
    at,
    bad_leaf,
    doesnt_fit,
    duplicate_path,
    host_array,
    place_like,
    shape_str,
)
from .atomic import File, atomic_write

__all__ = ["save", "load"]

_MAGIC = b"\x89FNET\r\n\x1a"
_VERSION = 1
_HEADER = struct.Struct("<8sIQI")  # magic, version, payload length, CRC-32
_CHECKED = slice(8, 20)  # the header bytes the CRC covers (version and length)
_INT_RANGE = (-(2**63), 2**64)  # what a msgpack integer holds
_MAX_DEPTH = 256  # how deeply a saved tree may nest (the msgpack payload nests twice as deep)

_DICT, _LIST, _TUPLE, _NONE = (_tree.structure(x).node for x in ({}, [], (), None))


# -- writing ------------------------------------------------------------------------------------


def _encode_leaf(op: str, where: str, leaf):
    if backend.is_array(leaf):
        array = host_array(op, where, leaf)
        encoded = {
            "kind": "scalar" if isinstance(leaf, numpy.generic) else "ndarray",
            "dtype": array.dtype.str,
        }
        if encoded["kind"] == "ndarray":
            encoded["shape"] = list(array.shape)
        encoded["data"] = array.tobytes()
        return encoded
    kind = type(leaf)
    if kind is int and not _INT_RANGE[0] <= leaf < _INT_RANGE[1]:
        raise bad_leaf(op, where, leaf, "the int does not fit in 64 bits")
    if kind in (bool, int, float, str, bytes):
        return leaf
    if kind is complex:
        return {"kind": "complex", "real": leaf.real, "imag": leaf.imag}
    raise bad_leaf(op, where, leaf, f"a value of type {kind.__name__} cannot be saved")


def _encode_structure(op: str, obj, structure: _tree.Structure, path: tuple, on_leaf: Callable) -> dict:
    """The payload description of ``obj`` (of fnet.tree ``structure``); ``on_leaf(path, leaf)`` per leaf."""
    node = structure.node
    if len(path) > _MAX_DEPTH:
        raise InvalidInputError(
            message(
                op,
                f"the tree nests deeper than {_MAX_DEPTH} levels (at '{_tree.path_str(path[:4])}/...')",
                hint=f"checkpoints hold trees up to {_MAX_DEPTH} levels deep; flatten the deeper parts",
            )
        )
    if node is None:
        on_leaf(path, obj)
        return {"node": "leaf"}
    if node is _NONE:
        return {"node": "none"}
    children, aux = node.flatten(obj)
    keys = list(node.keys(obj, aux))
    if node is _DICT:
        for key in keys:
            if type(key) not in (str, int) or (type(key) is int and not _INT_RANGE[0] <= key < _INT_RANGE[1]):
                raise InvalidInputError(
                    message(
                        op,
                        f"cannot save the dict at {at(_tree.path_str(path))}: key {key!r} is not str or int",
                        hint="checkpoints keep dict keys that are strings or 64-bit ints",
                    )
                )
    elif node is not _LIST and node is not _TUPLE:
        keys = [str(key) for key in keys]
    encoded = [
        _encode_structure(op, child, sub, path + (key,), on_leaf)
        for key, child, sub in zip(keys, children, structure.children)
    ]
    if node is _DICT:
        return {"node": "dict", "keys": keys, "children": encoded}
    if node is _LIST or node is _TUPLE:
        return {"node": "list" if node is _LIST else "tuple", "children": encoded}
    cls = type(obj)
    return {
        "node": "custom",
        "type": f"{cls.__module__}.{cls.__qualname__}",
        "keys": keys,
        "children": encoded,
    }


def save(path: File, tree: Any) -> None:
    """Save a pytree to ``path``, atomically (see the module's docstring for the format).

    Arrays on a GPU are copied to the host. A leaf that cannot be saved raises
    ``InvalidInputError`` (``DTypeError`` for an array of strings or objects) naming its path,
    before anything is written; a file that cannot be written raises ``CheckpointError``. In
    both cases an existing file at ``path`` is unchanged.

    >>> import os, tempfile, numpy
    >>> path = os.path.join(tempfile.mkdtemp(), "params.ckpt")
    >>> save(path, {"W": numpy.zeros((2, 2), numpy.float32), "b": None, "sizes": (3, 4)})
    >>> load(path)
    {'W': array([[0., 0.],
           [0., 0.]], dtype=float32), 'b': None, 'sizes': (3, 4)}
    """
    op = "io.save"
    leaves: dict[str, Any] = {}

    def on_leaf(leaf_path: tuple, leaf) -> None:
        where = _tree.path_str(leaf_path)
        if where in leaves:
            raise duplicate_path(op, where)
        leaves[where] = _encode_leaf(op, where, leaf)

    structure = _encode_structure(op, tree, _tree.structure(tree), (), on_leaf)
    payload = msgpack.packb({"structure": structure, "leaves": leaves}, use_bin_type=True)
    checked = struct.pack("<IQ", _VERSION, len(payload))
    header = _HEADER.pack(_MAGIC, _VERSION, len(payload), zlib.crc32(payload, zlib.crc32(checked)))

    def write(f: BinaryIO) -> None:
        f.write(header)
        f.write(payload)

    atomic_write(op, path, write)


# -- reading ------------------------------------------------------------------------------------


class _Reader(FileErrors):
    """Reads one checkpoint file; its errors name the operation and the file."""

    def corrupt(self, problem: str) -> CheckpointError:
        return self.error(
            f"is corrupt: {problem}",
            "the file passed its checksum, so it was written this way: not by fnet.io.save",
        )

    def truncated(self, size: int, needed: int) -> CheckpointError:
        return self.error(
            f"is truncated: it has {size} bytes where {needed} are needed",
            "the write was cut short (fnet.io.save never leaves such a file); use an earlier checkpoint",
        )

    def payload(self) -> memoryview:
        """The checked payload of the file."""
        try:
            with open(self.where, "rb") as f:
                data = f.read()
        except OSError as e:
            raise self.error(f"cannot be read: {e.strerror or e}", "check the path") from e
        header_size = _HEADER.size
        if data[: len(_MAGIC)] != _MAGIC:
            if _MAGIC.startswith(data):
                raise self.truncated(len(data), header_size)
            hint = "it is a zip (npz) file: use fnet.io.load_npz" if data[:2] == b"PK" else ""
            raise self.error(
                "is not an fnet checkpoint: it does not start with fnet's magic bytes",
                hint or "fnet.io.load reads files written by fnet.io.save",
            )
        if len(data) >= _CHECKED.start + 4:
            (version,) = struct.unpack_from("<I", data, _CHECKED.start)
            if version != _VERSION:
                raise self.error(
                    f"has format version {version}; this fnet reads version {_VERSION}",
                    "it was written by another fnet version, or its header is damaged",
                )
        if len(data) < header_size:
            raise self.truncated(len(data), header_size)
        _, _, length, crc = _HEADER.unpack_from(data)
        if len(data) < header_size + length:
            raise self.truncated(len(data), header_size + length)
        if len(data) > header_size + length:
            raise self.error(
                f"has {len(data) - header_size - length} bytes after the end its header gives",
                "the file is damaged (or something was appended to it); use an earlier checkpoint",
            )
        payload = memoryview(data)[header_size:]
        if zlib.crc32(payload, zlib.crc32(data[_CHECKED])) != crc:
            raise self.error(
                "is corrupt: its checksum does not match its contents",
                "the file was damaged after it was written; use an earlier checkpoint",
            )
        return payload

    def content(self) -> tuple[dict, dict]:
        """The file's structure description and its encoded leaves, checked for consistency."""
        try:
            content = msgpack.unpackb(self.payload(), raw=False, strict_map_key=True)
        except msgpack.exceptions.StackError as e:
            raise self.corrupt("its payload nests deeper than msgpack reads") from e
        except (ValueError, TypeError) as e:
            raise self.corrupt(f"its payload is not valid msgpack ({type(e).__name__}: {e})") from e
        if not isinstance(content, dict) or set(content) != {"structure", "leaves"}:
            raise self.corrupt("its payload is not a map of 'structure' and 'leaves'")
        structure, leaves = content["structure"], content["leaves"]
        if not isinstance(leaves, dict):
            raise self.corrupt("'leaves' is not a map")
        paths: list[str] = []
        self.collect_paths(structure, (), paths)
        if len(set(paths)) != len(paths):
            raise self.corrupt("two leaves of its structure have the same path")
        missing = [p for p in paths if p not in leaves]
        extra = sorted(set(leaves) - set(paths))
        if missing or extra:
            side, where = ("has no value", missing[0]) if missing else ("is not in the structure", extra[0])
            raise self.corrupt(f"the leaf at {at(where)} {side}")
        return structure, leaves

    def node_keys(self, node, path: tuple) -> list:
        """The child keys of a structure node (after checking the node)."""
        where = _tree.path_str(path)
        if not isinstance(node, dict) or not isinstance(node.get("children", []), list):
            raise self.corrupt(f"the structure at {at(where)} is not a node description")
        kind, children = node.get("node"), node.get("children", [])
        if kind in ("list", "tuple"):
            return list(range(len(children)))
        if kind in ("dict", "custom"):
            keys = node.get("keys")
            allowed = (str, int) if kind == "dict" else (str,)
            if (
                not isinstance(keys, list)
                or len(keys) != len(children)
                or not all(type(k) in allowed for k in keys)
                or len(set(keys)) != len(keys)
                or (kind == "custom" and not isinstance(node.get("type"), str))
            ):
                raise self.corrupt(f"the {kind} node at {at(where)} has bad keys or type")
            return keys
        if kind in ("leaf", "none"):
            return []
        raise self.corrupt(f"unknown node {kind!r} at {at(where)}")

    def collect_paths(self, node, path: tuple, out: list) -> None:
        """Check a structure description and list its leaf paths, in order."""
        if len(path) > _MAX_DEPTH:
            raise self.corrupt(
                f"its structure nests deeper than {_MAX_DEPTH} levels, which io.save never writes"
            )
        keys = self.node_keys(node, path)
        if node["node"] == "leaf":
            out.append(_tree.path_str(path))
        for key, child in zip(keys, node.get("children", [])):
            self.collect_paths(child, path + (key,), out)

    def leaf(self, where: str, encoded):
        """Decode one leaf."""
        if type(encoded) in (bool, int, float, str, bytes):
            return encoded
        kind = encoded.get("kind") if isinstance(encoded, dict) else None
        if kind == "complex" and all(type(encoded.get(k)) is float for k in ("real", "imag")):
            return complex(encoded["real"], encoded["imag"])
        if kind in ("ndarray", "scalar"):
            return self.array(where, encoded, kind == "scalar")
        raise self.corrupt(f"the leaf at {at(where)} is not an encoded value")

    def array(self, where: str, encoded: dict, scalar: bool):
        shape = [] if scalar else encoded.get("shape")
        data, dtype = encoded.get("data"), None
        with contextlib.suppress(TypeError, ValueError):
            dtype = numpy.dtype(encoded.get("dtype"))
        if (
            dtype is None
            or dtype.kind not in ARRAY_KINDS
            or not isinstance(shape, list)
            or not all(type(d) is int and d >= 0 for d in shape)
            or not isinstance(data, bytes)
            or len(data) != math.prod(shape) * dtype.itemsize
        ):
            raise self.corrupt(f"the array at {at(where)} has a bad dtype, shape or size")
        try:
            array = numpy.frombuffer(data, dtype).reshape(shape)
        except ValueError as e:  # more dimensions than NumPy holds, or a size past its index range
            raise self.corrupt(
                f"the array at {at(where)} has a shape NumPy cannot hold ({shape_str(shape)}: {e})"
            ) from e
        return array[()].copy() if scalar else array.copy()


def _rebuild(reader: _Reader, node: dict, path: tuple, values: dict):
    """The tree a structure description stands for, with its leaves from ``values``."""
    kind = node["node"]
    if kind == "leaf":
        return values[_tree.path_str(path)]
    if kind == "none":
        return None
    if kind == "custom":
        raise reader.error(
            f"holds a {node['type']} node at {at(_tree.path_str(path))}, which only like= can rebuild",
            "pass like= a tree of the saved structure, e.g. load(path, like=optimizer.init(params))",
        )
    keys = reader.node_keys(node, path)
    children = [_rebuild(reader, child, path + (key,), values) for key, child in zip(keys, node["children"])]
    if kind == "dict":
        return dict(zip(keys, children))
    return children if kind == "list" else tuple(children)


def _describe(node: dict) -> str:
    kind = node["node"]
    if kind == "dict":
        return f"a dict with keys {node['keys']}"
    if kind in ("list", "tuple"):
        return f"a {kind} of length {len(node['children'])}"
    if kind == "custom":
        return f"a {node['type']} node with children {node['keys']}"
    return {"leaf": "a leaf", "none": "None"}[kind]


def _first_difference(saved: dict, like: dict, path: tuple) -> tuple[tuple, str, str] | None:
    """The first path where two structure descriptions differ, with both sides described."""
    if _describe(saved) != _describe(like):
        return path, _describe(saved), _describe(like)
    keys = saved.get("keys", range(len(saved.get("children", []))))
    for key, a, b in zip(keys, saved.get("children", []), like.get("children", [])):
        found = _first_difference(a, b, path + (key,))
        if found is not None:
            return found
    return None


def _fit_exactly(reader: _Reader, where: str, value, like_leaf):
    """``value``, if it has ``like_leaf``'s shape and dtype (arrays) or type (other leaves)."""
    if backend.is_array(like_leaf):
        fits = backend.is_array(value) and (value.shape, value.dtype) == (like_leaf.shape, like_leaf.dtype)
        if not fits:
            raise doesnt_fit(reader, where, aval(value), aval(like_leaf))
        return place_like(value, like_leaf)
    if type(value) is not type(like_leaf):
        raise doesnt_fit(reader, where, f"type {type(value).__name__}", f"type {type(like_leaf).__name__}")
    return value


def load(path: File, like: Any = None) -> Any:
    """Load a pytree saved by ``save``.

    Without ``like``, dicts, lists, tuples and None are rebuilt as they were saved, and arrays
    are NumPy arrays. With ``like`` (a tree of the expected structure, e.g. freshly initialized
    params or optimizer state), the file must have ``like``'s structure, and each array leaf
    ``like``'s shape and dtype (other leaves: its type); the result has ``like``'s node types
    (namedtuples, attrs classes with their static fields) and each array is placed on the
    device of ``like``'s leaf. Any problem raises ``CheckpointError``, naming the file and, for
    a mismatch, the first path where the file and ``like`` differ.
    """
    reader = _Reader("io.load", path)
    structure, leaves = reader.content()
    if like is None:
        values = {where: reader.leaf(where, encoded) for where, encoded in leaves.items()}
        return _rebuild(reader, structure, (), values)
    like_leaves: list[tuple[tuple, Any]] = []
    like_structure = _tree.structure(like)
    expected = _encode_structure("io.load", like, like_structure, (), lambda p, x: like_leaves.append((p, x)))
    difference = _first_difference(structure, expected, ())
    if difference is not None:
        where, saved, wanted = difference
        raise doesnt_fit(reader, _tree.path_str(where), saved, wanted)
    values = []
    for leaf_path, like_leaf in like_leaves:
        where = _tree.path_str(leaf_path)
        values.append(_fit_exactly(reader, where, reader.leaf(where, leaves[where]), like_leaf))
    return _tree.unflatten(_tree.structure(like), values)
