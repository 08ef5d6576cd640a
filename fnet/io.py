"""Checkpoints: a pytree saved to one file and loaded back, safely (msgpack, never pickle), or as npz.

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
an untrusted file can never run code. Writes are atomic: the file is written under a temporary
name in the same directory (``.NAME.<16 hex digits>.tmp``), flushed to disk, and renamed over
the old one, so a crash or an error never leaves a half-written checkpoint, and the previous
file stays intact until the new one is complete. The writing process holds a lock on its
temporary file; the next save to the same path removes the temporary files that no live process
holds (those of saves killed by kill -9 or a power cut), and nothing else. Every problem with a
file raises ``fnet.errors.CheckpointError`` (an ``OSError``) naming the file and what is wrong;
a file that does not fit ``like`` (structure, shapes, dtypes) is such a problem too, and the
message names the first path that differs.

``save_npz`` / ``load_npz`` use NumPy's npz with Chainer's keys (``predictor/l1/W``): files
written by Chainer's ``serializers.save_npz`` load here, and files written here load in Chainer.
``open_npz`` reads the entries of an npz one by one, when asked for; sizes are checked before
anything is allocated, and an entry that cannot be read raises ``CheckpointError`` naming it.

>>> import os, tempfile, numpy
>>> path = os.path.join(tempfile.mkdtemp(), "model.ckpt")
>>> save(path, {"l1": {"W": numpy.ones((2, 3), numpy.float32)}, "step": 10})
>>> load(path)["step"]
10
"""

from __future__ import annotations

import ast
import contextlib
import math
import os
import re
import secrets
import shutil
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator, Mapping
from typing import Any, BinaryIO

import msgpack
import numpy

try:
    import fcntl
except ImportError:  # not on Windows: temporary files of killed saves stay there
    fcntl = None

from . import backend
from . import tree as _tree
from .errors import CheckpointError, DTypeError, InvalidInputError, aval, message

__all__ = ["save", "load", "save_npz", "load_npz", "open_npz", "NpzEntries"]

_MAGIC = b"\x89FNET\r\n\x1a"
_VERSION = 1
_HEADER = struct.Struct("<8sIQI")  # magic, version, payload length, CRC-32
_CHECKED = slice(8, 20)  # the header bytes the CRC covers (version and length)
_ARRAY_KINDS = "biufc"  # bool, signed and unsigned ints, floats, complex: raw bytes say it all
_NPZ_KINDS = _ARRAY_KINDS + "US"  # npz also holds strings (Chainer's logs), still without pickling
_INT_RANGE = (-(2**63), 2**64)  # what a msgpack integer holds
_MAX_DEPTH = 256  # how deeply a saved tree may nest (the msgpack payload nests twice as deep)

_DICT, _LIST, _TUPLE, _NONE = (_tree.structure(x).node for x in ({}, [], (), None))

_File = str | os.PathLike


# -- writing ------------------------------------------------------------------------------------


def _fsync_directory(directory: str) -> None:
    """Make a rename in ``directory`` durable (POSIX; elsewhere the rename is all there is)."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        with contextlib.suppress(OSError):  # some file systems refuse to fsync a directory
            os.fsync(fd)
    finally:
        os.close(fd)


# A temporary file or directory is owned by the process that holds an exclusive ``flock`` on it
# (on its ``.lock`` file for a directory) from its creation to its rename; the kernel (or the NFS
# server) drops the lock when that process dies, however it dies. So an unlocked temporary file
# of the exact pattern written for a target is the leftover of a killed save, which the next save
# to that target removes; and so is an unlocked temporary directory (``.tmpNAME.<16 hex digits>``
# holding a ``.lock`` file), which the next writer of any file in that directory removes, since a
# snapshot's next file has another name. Where ``fcntl`` is missing (Windows) nothing is removed.
_DIRECTORY_LOCK = ".lock"
_TEMP_DIRECTORY = r"\.tmp.+\.[0-9a-f]{16}"


def _temp_file_pattern(name: str) -> str:
    """The names ``_atomic_write`` gives its temporary files for the file ``name``."""
    return rf"\.{re.escape(name)}\.[0-9a-f]{{16}}\.tmp"


def _hold(fd: int) -> None:
    """Mark the file open as ``fd`` as owned by this process for as long as ``fd`` is open."""
    if fcntl is not None:
        with contextlib.suppress(OSError):  # no locks on this file system: the file is never removed
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def _abandoned(lock_path: str) -> bool:
    """Whether no live process holds the lock of ``_hold`` on ``lock_path`` (False when unsure)."""
    if fcntl is None:
        return False
    try:
        fd = os.open(lock_path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))  # NFS locks need write access
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # held by its writer (or locks are not supported here)
    else:
        return True
    finally:
        os.close(fd)


def _entries(directory: str) -> list[os.DirEntry]:
    try:
        return list(os.scandir(directory))
    except OSError:
        return []


def _remove_abandoned_temp_files(directory: str, name: str) -> None:
    """Remove the temporary files that killed saves of ``directory/name`` left: only files whose
    names fully match the pattern written for ``name``, not empty, and that no process holds."""
    pattern = _temp_file_pattern(name)
    for entry in _entries(directory):
        if re.fullmatch(pattern, entry.name) and entry.is_file(follow_symlinks=False):
            # a file is locked before its first byte is written: an empty one may be about to be
            if entry.stat(follow_symlinks=False).st_size and _abandoned(entry.path):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _remove_abandoned_temp_directories(directory: str) -> None:
    """Remove the temporary directories that killed writes left in ``directory``: only those
    named as ``_temp_directory`` names them, with a lock file that no process holds, or empty
    (a write killed as it made or removed its directory; ``rmdir`` leaves a non-empty one)."""
    for entry in _entries(directory):
        if re.fullmatch(_TEMP_DIRECTORY, entry.name) and entry.is_dir(follow_symlinks=False):
            try:
                os.rmdir(entry.path)
            except OSError:  # not empty
                if _abandoned(os.path.join(entry.path, _DIRECTORY_LOCK)):
                    shutil.rmtree(entry.path, ignore_errors=True)


def _cannot_write(op: str, path: _File, error: OSError, hint: str) -> CheckpointError:
    return CheckpointError(
        message(op, f"cannot write '{os.fspath(path)}': {error.strerror or error}", hint=hint)
    )


def _atomic_write(op: str, path: _File, write: Callable[[BinaryIO], object]) -> None:
    """Write a file through ``write(f)`` so that ``path`` is either the old file or the whole new one.

    The data goes to a temporary file beside ``path`` (``.NAME.<16 hex digits>.tmp``), which is
    flushed to disk and renamed over ``path``. Temporary files of earlier saves to ``path`` that
    were killed are removed first.
    """
    target = os.path.realpath(os.fspath(path))
    directory, name = os.path.split(target)
    _remove_abandoned_temp_files(directory, name)
    temp = os.path.join(directory, f".{name}.{secrets.token_hex(8)}.tmp")
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    except OSError as e:
        raise _cannot_write(op, path, e, "the directory must exist and be writable") from e
    try:
        _hold(fd)
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
            os.replace(temp, target)  # while the lock is held, so that no one takes it for a leftover
    except BaseException as e:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        if isinstance(e, OSError):
            raise _cannot_write(
                op, path, e, "the previous file, if any, is unchanged; check the free space and the path"
            ) from e
        raise
    _fsync_directory(directory)


@contextlib.contextmanager
def _temp_directory(path: _File) -> Iterator[str]:
    """A new directory beside ``path`` (``.tmpNAME.<16 hex digits>``), owned by this process
    while the block runs and removed after it, for a writer that renames a file out of it.

    The temporary directories that killed writes left in that directory are removed first.
    """
    directory, name = os.path.split(os.path.abspath(os.fspath(path)))
    os.makedirs(directory, exist_ok=True)
    _remove_abandoned_temp_directories(directory)
    temp = os.path.join(directory, f".tmp{name}.{secrets.token_hex(8)}")
    os.mkdir(temp, 0o700)
    try:
        fd = os.open(os.path.join(temp, _DIRECTORY_LOCK), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            _hold(fd)
            yield temp
        finally:
            os.close(fd)
    finally:
        shutil.rmtree(temp, ignore_errors=True)


def _at(where: str) -> str:
    """A path for messages: ``'l1/W'``, or ``the root`` for the empty path."""
    return f"'{where}'" if where else "the root"


def _bad_leaf(op: str, where: str, leaf, what: str) -> InvalidInputError:
    return InvalidInputError(
        message(
            op,
            f"cannot save the leaf at {_at(where)}: {what}",
            {where or "leaf": leaf},
            hint="leaves must be arrays (bool, int, uint, float, complex), Python scalars, strings or "
            "bytes; save concrete values (not traced ones inside grad)",
        )
    )


def _host_array(op: str, where: str, leaf, kinds: str = _ARRAY_KINDS) -> numpy.ndarray:
    """An array leaf on the host, whose dtype is one of ``kinds`` (plain numbers by default)."""
    array = numpy.asarray(backend.to_cpu(leaf))
    if array.dtype.kind not in kinds:
        raise DTypeError(
            message(
                op,
                f"cannot save the array at {_at(where)}: dtype {array.dtype} is not a number type",
                {where or "leaf": array},
                hint="checkpoints hold bool, int, uint, float and complex arrays; convert the others",
            )
        )
    return array


def _encode_leaf(op: str, where: str, leaf):
    if backend.is_array(leaf):
        array = _host_array(op, where, leaf)
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
        raise _bad_leaf(op, where, leaf, "the int does not fit in 64 bits")
    if kind in (bool, int, float, str, bytes):
        return leaf
    if kind is complex:
        return {"kind": "complex", "real": leaf.real, "imag": leaf.imag}
    raise _bad_leaf(op, where, leaf, f"a value of type {kind.__name__} cannot be saved")


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
                        f"cannot save the dict at {_at(_tree.path_str(path))}: key {key!r} is not str or int",
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


def _duplicate_path(op: str, where: str) -> InvalidInputError:
    return InvalidInputError(
        message(
            op,
            f"two leaves have the same path '{where}'",
            hint="paths join keys with '/': rename dict keys that contain '/' or that differ "
            "only in type (0 and '0')",
        )
    )


def save(path: _File, tree: Any) -> None:
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
            raise _duplicate_path(op, where)
        leaves[where] = _encode_leaf(op, where, leaf)

    structure = _encode_structure(op, tree, _tree.structure(tree), (), on_leaf)
    payload = msgpack.packb({"structure": structure, "leaves": leaves}, use_bin_type=True)
    checked = struct.pack("<IQ", _VERSION, len(payload))
    header = _HEADER.pack(_MAGIC, _VERSION, len(payload), zlib.crc32(payload, zlib.crc32(checked)))

    def write(f: BinaryIO) -> None:
        f.write(header)
        f.write(payload)

    _atomic_write(op, path, write)


# -- reading ------------------------------------------------------------------------------------


class _Reader:
    """Reads one checkpoint file; its errors name the operation and the file."""

    def __init__(self, op: str, path: _File):
        self.op = op
        self.where = os.fspath(path)

    def error(self, problem: str, hint: str) -> CheckpointError:
        return CheckpointError(message(self.op, f"'{self.where}' {problem}", hint=hint))

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
            raise self.corrupt(f"the leaf at {_at(where)} {side}")
        return structure, leaves

    def node_keys(self, node, path: tuple) -> list:
        """The child keys of a structure node (after checking the node)."""
        where = _tree.path_str(path)
        if not isinstance(node, dict) or not isinstance(node.get("children", []), list):
            raise self.corrupt(f"the structure at {_at(where)} is not a node description")
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
                raise self.corrupt(f"the {kind} node at {_at(where)} has bad keys or type")
            return keys
        if kind in ("leaf", "none"):
            return []
        raise self.corrupt(f"unknown node {kind!r} at {_at(where)}")

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
        raise self.corrupt(f"the leaf at {_at(where)} is not an encoded value")

    def array(self, where: str, encoded: dict, scalar: bool):
        shape = [] if scalar else encoded.get("shape")
        data, dtype = encoded.get("data"), None
        with contextlib.suppress(TypeError, ValueError):
            dtype = numpy.dtype(encoded.get("dtype"))
        if (
            dtype is None
            or dtype.kind not in _ARRAY_KINDS
            or not isinstance(shape, list)
            or not all(type(d) is int and d >= 0 for d in shape)
            or not isinstance(data, bytes)
            or len(data) != math.prod(shape) * dtype.itemsize
        ):
            raise self.corrupt(f"the array at {_at(where)} has a bad dtype, shape or size")
        try:
            array = numpy.frombuffer(data, dtype).reshape(shape)
        except ValueError as e:  # more dimensions than NumPy holds, or a size past its index range
            raise self.corrupt(
                f"the array at {_at(where)} has a shape NumPy cannot hold ({_shape(shape)}: {e})"
            ) from e
        return array[()].copy() if scalar else array.copy()


def _shape(shape: list) -> str:
    """A shape for messages, shortened when it has many dimensions."""
    if len(shape) <= 8:
        return f"shape {tuple(shape)}"
    return f"{len(shape)} dimensions, shape ({', '.join(map(str, shape[:4]))}, ...)"


def _rebuild(reader: _Reader, node: dict, path: tuple, values: dict):
    """The tree a structure description stands for, with its leaves from ``values``."""
    kind = node["node"]
    if kind == "leaf":
        return values[_tree.path_str(path)]
    if kind == "none":
        return None
    if kind == "custom":
        raise reader.error(
            f"holds a {node['type']} node at {_at(_tree.path_str(path))}, which only like= can rebuild",
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


def _doesnt_fit(reader: _Reader, where: str, saved: str, wanted: str) -> CheckpointError:
    return reader.error(
        f"does not fit like at {_at(where)}: the file has {saved}, like has {wanted}",
        "load into a tree of the saved structure, shapes and dtypes (or leave like out)",
    )


def _place_like(value, like_leaf):
    """``value`` on the device of ``like_leaf`` (a CuPy array's device; the host otherwise)."""
    if backend.is_array(like_leaf) and backend.xp(like_leaf) is not numpy:
        return backend.get_device_from_array(like_leaf).send(value)
    return value


def _fit_exactly(reader: _Reader, where: str, value, like_leaf):
    """``value``, if it has ``like_leaf``'s shape and dtype (arrays) or type (other leaves)."""
    if backend.is_array(like_leaf):
        fits = backend.is_array(value) and (value.shape, value.dtype) == (like_leaf.shape, like_leaf.dtype)
        if not fits:
            raise _doesnt_fit(reader, where, aval(value), aval(like_leaf))
        return _place_like(value, like_leaf)
    if type(value) is not type(like_leaf):
        raise _doesnt_fit(reader, where, f"type {type(value).__name__}", f"type {type(like_leaf).__name__}")
    return value


def load(path: _File, like: Any = None) -> Any:
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
        raise _doesnt_fit(reader, _tree.path_str(where), saved, wanted)
    values = []
    for leaf_path, like_leaf in like_leaves:
        where = _tree.path_str(leaf_path)
        values.append(_fit_exactly(reader, where, reader.leaf(where, leaves[where]), like_leaf))
    return _tree.unflatten(_tree.structure(like), values)


# -- npz, with Chainer's keys -------------------------------------------------------------------


def save_npz(file: _File | BinaryIO, params: Any, compression: bool = True) -> None:
    """Save a params tree as npz, keyed like Chainer's ``serializers.save_npz`` (``l1/W``).

    Each array leaf (or Python number or string, saved as a 0-d array as Chainer saves
    persistent values) is stored under its path joined with ``/``. ``compression`` is Chainer's (deflate
    the members). A path is written atomically (as ``save``); a binary file object is written
    to directly. Nothing is pickled.
    """
    op = "io.save_npz"
    arrays: dict[str, numpy.ndarray] = {}
    for leaf_path, leaf in _tree.flatten_with_paths(params):
        where = _tree.path_str(leaf_path)
        if where in arrays:
            raise _duplicate_path(op, where)
        if not (backend.is_array(leaf) or type(leaf) in (bool, int, float, complex, str, bytes)):
            raise _bad_leaf(
                op, where, leaf, f"type {type(leaf).__name__} is not an array, a number or a string"
            )
        arrays[where] = _host_array(op, where, leaf, _NPZ_KINDS)

    def write(f: BinaryIO) -> None:
        method = zipfile.ZIP_DEFLATED if compression else zipfile.ZIP_STORED
        with zipfile.ZipFile(f, "w", compression=method, allowZip64=True) as archive:
            for where, array in arrays.items():
                with archive.open(where + ".npy", "w", force_zip64=True) as member:
                    numpy.lib.format.write_array(member, array, allow_pickle=False)

    if hasattr(file, "write"):
        write(file)
    else:
        _atomic_write(op, file, write)


# Chainer's DictionarySerializer keeps None (an uninitialized parameter) as numpy.asarray(None),
# which numpy.savez pickles. These are the exact pickles NumPy writes for it: protocol 2 (NumPy
# before 1.16), 3 (NumPy 1.16 and later) and 4 (recent NumPy 2), naming NumPy 1's module
# numpy.core or NumPy 2's numpy._core. An object entry is read as None when its bytes are one of
# them; it is never unpickled, and any other object entry is an error.
_NONE_PROTOCOL_2 = (
    b"\x80\x02cnumpy.core.multiarray\n_reconstruct\nq\x00cnumpy\nndarray\nq\x01K\x00\x85q\x02c_codecs\n"
    b"encode\nq\x03X\x01\x00\x00\x00bq\x04X\x06\x00\x00\x00latin1q\x05\x86q\x06Rq\x07\x87q\x08Rq\t(K\x01)"
    b"cnumpy\ndtype\nq\nX\x02\x00\x00\x00O8q\x0b\x89\x88\x87q\x0cRq\r(K\x03X\x01\x00\x00\x00|q\x0eNNN"
    b"J\xff\xff\xff\xffJ\xff\xff\xff\xffK?tq\x0fb\x89]q\x10Natq\x11b."
)
_NONE_PROTOCOL_3 = (
    b"\x80\x03cnumpy.core.multiarray\n_reconstruct\nq\x00cnumpy\nndarray\nq\x01K\x00\x85q\x02C\x01bq\x03"
    b"\x87q\x04Rq\x05(K\x01)cnumpy\ndtype\nq\x06X\x02\x00\x00\x00O8q\x07\x89\x88\x87q\x08Rq\t(K\x03"
    b"X\x01\x00\x00\x00|q\nNNNJ\xff\xff\xff\xffJ\xff\xff\xff\xffK?tq\x0bb\x89]q\x0cNatq\rb."
)
_NONE_PROTOCOL_4 = (
    b"\x80\x04\x95\x87\x00\x00\x00\x00\x00\x00\x00\x8c\x16numpy._core.multiarray\x94\x8c\x0c_reconstruct"
    b"\x94\x93\x94\x8c\x05numpy\x94\x8c\x07ndarray\x94\x93\x94K\x00\x85\x94C\x01b\x94\x87\x94R\x94(K\x01)"
    b"h\x03\x8c\x05dtype\x94\x93\x94\x8c\x02O8\x94\x89\x88\x87\x94R\x94(K\x03\x8c\x01|\x94NNNJ\xff\xff\xff"
    b"\xffJ\xff\xff\xff\xffK?t\x94b\x89]\x94Nat\x94b."
)
_SAVED_NONE = frozenset(
    [_NONE_PROTOCOL_4]
    + [
        pickled.replace(b"cnumpy.core.", module)  # in protocols 2 and 3 a module name is plain text
        for pickled in (_NONE_PROTOCOL_2, _NONE_PROTOCOL_3)
        for module in (b"cnumpy.core.", b"cnumpy._core.")
    ]
)
_NPY_MAGIC = b"\x93NUMPY"
_NPY_HEADER_LENGTH = {1: struct.Struct("<H"), 2: struct.Struct("<I"), 3: struct.Struct("<I")}
_NPY_MAX_HEADER = 10_000  # NumPy's own limit on the header of an npy file
_NPY_MAX_NDIM = 64  # NumPy 2's limit (NumPy 1 holds 32: more raises when the array is made)
_DEFLATE_MAX_RATIO = 1032  # deflate never expands a byte of compressed data into more than this
_READ_CHUNK = 1 << 20  # bytes decompressed at a time into the array


class _Entry:
    """One ``.npy`` member of an npz, read after checking what its zip and npy headers declare."""

    def __init__(self, reader: _Reader, archive: zipfile.ZipFile, key: str, info: zipfile.ZipInfo):
        self.reader, self.archive, self.key, self.info = reader, archive, key, info

    def error(self, problem: str, hint: str = "the file is damaged, or was not written by NumPy or fnet"):
        return self.reader.error(f"cannot be read at entry '{self.key}': {problem}", hint)

    def read(self):
        """The entry's array, or None for Chainer's saved None."""
        info = self.info
        if info.flag_bits & 0x1:
            raise self.error("it is encrypted", "npz files are never encrypted: save the file again")
        if info.compress_type == zipfile.ZIP_STORED:
            limit = info.compress_size
        elif info.compress_type == zipfile.ZIP_DEFLATED:
            limit = info.compress_size * _DEFLATE_MAX_RATIO
        else:
            raise self.error(
                f"it uses zip compression method {info.compress_type}",
                "npz members are stored or deflated (numpy.savez, numpy.savez_compressed)",
            )
        if info.file_size > limit:
            raise self.error(
                f"it declares {info.file_size} bytes made of {info.compress_size} compressed bytes"
            )
        try:
            with self.archive.open(info) as member:
                return self.read_npy(member)
        except CheckpointError:
            raise
        except (OSError, EOFError, ValueError, zipfile.BadZipFile, zlib.error, NotImplementedError) as e:
            raise self.error(f"{type(e).__name__}: {e}") from e

    def read_npy(self, member: BinaryIO):
        shape, fortran_order, dtype, header_size = self.header(member)
        size = self.info.file_size - header_size
        if dtype.hasobject:
            return self.saved_none(member, shape, size)
        nbytes = math.prod(shape) * dtype.itemsize
        if nbytes != size:
            raise self.error(
                f"its header declares {_shape(list(shape))} of {dtype} ({nbytes} bytes), but it holds {size}"
            )
        try:
            array = numpy.empty(shape, dtype, order="F" if fortran_order else "C")
        except ValueError as e:  # more dimensions than this NumPy holds
            raise self.error(f"NumPy cannot make an array of {_shape(list(shape))}: {e}") from e
        buffer = memoryview(array.reshape(-1, order="A").view(numpy.uint8)) if nbytes else memoryview(b"")
        filled = 0
        while filled < nbytes:
            chunk = member.read(min(nbytes - filled, _READ_CHUNK))
            if not chunk:
                raise self.error(f"it ends after {filled} of its {nbytes} bytes of data")
            buffer[filled : filled + len(chunk)] = chunk
            filled += len(chunk)
        if member.read(1):  # also completes the zip's CRC check
            raise self.error("it holds more data than its header declares")
        return array

    def header(self, member: BinaryIO) -> tuple[tuple, bool, numpy.dtype, int]:
        """The shape, order and dtype the npy header declares, and the header's size in bytes."""
        start = member.read(len(_NPY_MAGIC) + 2)
        if len(start) < len(_NPY_MAGIC) + 2 or start[: len(_NPY_MAGIC)] != _NPY_MAGIC:
            raise self.error("it is not an npy array (no npy magic bytes)")
        major = start[len(_NPY_MAGIC)]
        length_field = _NPY_HEADER_LENGTH.get(major)
        if length_field is None:
            raise self.error(f"it has npy format version {major}.{start[-1]}, which this fnet does not read")
        field = member.read(length_field.size)
        if len(field) != length_field.size:
            raise self.error("its npy header is cut short")
        (length,) = length_field.unpack(field)
        if length > _NPY_MAX_HEADER:
            raise self.error(
                f"its npy header is {length} bytes long (NumPy writes at most {_NPY_MAX_HEADER})"
            )
        text = member.read(length)
        if len(text) != length:
            raise self.error("its npy header is cut short")
        header = self.parse(text.decode("utf-8" if major == 3 else "latin-1"))
        return (*header, len(start) + length_field.size + length)

    def parse(self, text: str) -> tuple[tuple, bool, numpy.dtype]:
        """The checked fields of an npy header, a Python dict literal (never evaluated as code)."""
        try:
            fields = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, RecursionError):
            try:  # NumPy on Python 2 wrote long ints with an L: 3L
                fields = ast.literal_eval(re.sub(r"(?<=\d)L\b", "", text))
            except (ValueError, SyntaxError, TypeError, RecursionError) as e:
                raise self.error(f"its npy header is not a Python dict literal: {text.strip()[:80]!r}") from e
        if not isinstance(fields, dict) or set(fields) != {"descr", "fortran_order", "shape"}:
            raise self.error(
                f"its npy header is not a dict of descr, fortran_order and shape: {text.strip()[:80]!r}"
            )
        shape, fortran_order, descr = fields["shape"], fields["fortran_order"], fields["descr"]
        if (
            not isinstance(shape, tuple)
            or len(shape) > _NPY_MAX_NDIM
            or not all(type(d) is int and 0 <= d < 2**63 for d in shape)
        ):
            shown = _shape(list(shape)) if isinstance(shape, tuple) else repr(shape)[:80]
            raise self.error(f"its npy header has a bad shape: {shown}")
        if type(fortran_order) is not bool:
            raise self.error(f"its npy header has a bad fortran_order: {fortran_order!r}")
        dtype = None
        if isinstance(descr, str):
            with contextlib.suppress(TypeError, ValueError):
                dtype = numpy.dtype(descr)
        if dtype is None or (dtype.kind not in _NPZ_KINDS and not dtype.hasobject):
            raise self.error(
                f"its npy header has dtype {descr!r}"[:120],
                "checkpoints hold bool, int, uint, float, complex and string arrays",
            )
        return shape, fortran_order, dtype

    def saved_none(self, member: BinaryIO, shape: tuple, size: int) -> None:
        """None, if the object entry is exactly Chainer's saved None (it is never unpickled)."""
        if shape == () and size <= max(map(len, _SAVED_NONE)) and member.read(size + 1) in _SAVED_NONE:
            return None
        raise self.error(
            "it holds pickled Python objects",
            "fnet never unpickles: only Chainer's None entries (uninitialized parameters) are read; "
            "save the values as arrays of numbers or strings",
        )


class NpzEntries(Mapping):
    """The entries of an npz file by key (the member's name without ``.npy``), each read when it
    is asked for; ``open_npz`` makes it. ``source`` names the file in messages."""

    def __init__(self, file: _File | BinaryIO, op: str):
        self.source = os.fspath(file) if not hasattr(file, "read") else str(getattr(file, "name", "<file>"))
        self._reader = _Reader(op, self.source)
        try:
            self._archive = zipfile.ZipFile(file)
        except (OSError, EOFError, ValueError, zipfile.BadZipFile, NotImplementedError) as e:
            raise self._reader.error(
                f"is not a readable npz file ({type(e).__name__}: {e})",
                "check the path; the file may be damaged",
            ) from e
        self._members: dict[str, zipfile.ZipInfo] = {}
        for info in self._archive.infolist():
            if info.filename.endswith(".npy"):
                key = info.filename[: -len(".npy")]
                if key in self._members:
                    self._archive.close()
                    raise self._reader.error(f"holds the entry '{key}' twice", "the file is damaged")
                self._members[key] = info

    def __getitem__(self, key: str):
        return _Entry(self._reader, self._archive, key, self._members[key]).read()

    def __contains__(self, key) -> bool:
        return key in self._members

    def __iter__(self):
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def close(self) -> None:
        """Close the file (a file object given to ``open_npz`` stays open)."""
        self._archive.close()

    def __enter__(self) -> NpzEntries:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def open_npz(file: _File | BinaryIO) -> NpzEntries:
    """Open an npz file as a read-only mapping from its keys to their arrays, read when asked for.

    Nothing is read but the list of entries until an entry is asked for; then only that entry
    is decompressed, after its declared sizes are checked against each other. An entry holding
    Chainer's None (a pickled ``numpy.asarray(None)``, recognised by its exact bytes, never
    unpickled) reads as None. Every problem raises ``CheckpointError`` naming the file and the
    entry: a damaged or non-npy member, an unknown compression, an object entry other than
    None, sizes that do not agree. Use it as a context manager to close the file.

    >>> import os, tempfile, numpy
    >>> path = os.path.join(tempfile.mkdtemp(), "a.npz")
    >>> numpy.savez(path, **{"l1/W": numpy.ones(2), "l1/b": numpy.zeros(2)})
    >>> with open_npz(path) as entries:
    ...     sorted(entries), entries["l1/W"]
    (['l1/W', 'l1/b'], array([1., 1.]))
    """
    return NpzEntries(file, "io.open_npz")


def _nest(reader: _Reader, entries: dict[str, Any]) -> dict:
    """Nested dicts from ``/``-joined keys."""
    root: dict = {}
    for key in sorted(entries):
        *parents, name = key.split("/")
        node = root
        for part in parents:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        if not isinstance(node, dict) or name in node:
            raise reader.error(f"has both '{key}' and an entry above it", "pass like= to pick the entries")
        node[name] = entries[key]
    return root


def _fit_cast(reader: _Reader, where: str, value: numpy.ndarray, like_leaf):
    """``value`` cast to ``like_leaf``'s dtype (or Python type), as Chainer's loader casts."""
    if backend.is_array(like_leaf):
        wanted_shape, wanted_dtype, wanted = like_leaf.shape, like_leaf.dtype, aval(like_leaf)
    elif type(like_leaf) in (bool, int, float, complex):
        wanted_shape, wanted_dtype = (), numpy.dtype(type(like_leaf))
        wanted = f"type {type(like_leaf).__name__}"
    else:
        raise _doesnt_fit(
            reader, where, aval(value), f"type {type(like_leaf).__name__}, which npz cannot hold"
        )
    if value.shape != wanted_shape or not numpy.can_cast(value.dtype, wanted_dtype, "same_kind"):
        raise _doesnt_fit(reader, where, aval(value), wanted)
    if backend.is_array(like_leaf):
        return _place_like(value.astype(wanted_dtype, copy=False), like_leaf)
    return type(like_leaf)(value[()])


def load_npz(file: _File | BinaryIO, like: Any = None, *, prefix: str = "", strict: bool = True) -> Any:
    """Load an npz written by ``save_npz`` or by Chainer's ``serializers.save_npz``.

    Without ``like``, every entry is read and the result is nested dicts split at ``/``
    (``{"l1": {"W": ...}}``). With ``like``, only the entries named by its leaves' paths are read
    (the others are never decompressed, as in Chainer), and the result has ``like``'s structure:
    shapes must match, and values are cast to ``like``'s dtypes where NumPy's ``same_kind`` rule
    allows (Chainer's loader copies with that rule); a Python number in ``like`` gets a 0-d
    entry as that type; arrays are placed on the device of ``like``'s leaves. ``prefix`` is
    Chainer's ``path`` (e.g. ``"predictor/"``; a missing final ``/`` is added): only entries
    under it are read, with it removed. Chainer's None entries (a parameter not yet initialized,
    recognised by their bytes and never unpickled) read as None; with ``like``, such an entry,
    like a missing one, raises unless ``strict=False``, which keeps ``like``'s value. Every
    problem raises ``CheckpointError`` naming the file (and the entry).
    """
    prefix = prefix if not prefix or prefix.endswith("/") else prefix + "/"
    with NpzEntries(file, "io.load_npz") as entries:
        reader = entries._reader
        if like is None:
            return _nest(
                reader, {key[len(prefix) :]: entries[key] for key in entries if key.startswith(prefix)}
            )
        values = []
        for leaf_path, like_leaf in _tree.flatten_with_paths(like):
            where = _tree.path_str(leaf_path)
            value = entries[prefix + where] if prefix + where in entries else None
            if value is not None:
                values.append(_fit_cast(reader, where, value, like_leaf))
            elif not strict:
                values.append(like_leaf)
            elif prefix + where in entries:
                raise _doesnt_fit(reader, where, "None (Chainer's uninitialized parameter)", aval(like_leaf))
            else:
                raise reader.error(
                    f"has no entry '{prefix}{where}' for like's leaf '{where}'",
                    "check prefix= (e.g. 'predictor/'), or pass strict=False to keep like's value",
                )
    return _tree.unflatten(_tree.structure(like), values)
