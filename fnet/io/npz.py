"""npz with Chainer's keys (``predictor/l1/W``), read and written without pickling.

``save_npz`` / ``load_npz`` use NumPy's npz with Chainer's keys: files written by Chainer's
``serializers.save_npz`` load here, and files written here load in Chainer. ``open_npz`` reads
the entries of an npz one by one, when asked for; sizes are checked before anything is
allocated, and an entry that cannot be read raises ``fnet.errors.CheckpointError`` naming it.
"""

from __future__ import annotations

import ast
import contextlib
import math
import os
import re
import struct
import zipfile
import zlib
from collections.abc import Mapping
from typing import Any, BinaryIO

import numpy

from .. import backend
from .. import tree as _tree
from ..errors import CheckpointError, aval
from ._common import (
    ARRAY_KINDS,
    FileErrors,
    bad_leaf,
    doesnt_fit,
    duplicate_path,
    host_array,
    place_like,
    shape_str,
)
from .atomic import File, atomic_write

__all__ = ["save_npz", "load_npz", "open_npz", "NpzEntries"]

_NPZ_KINDS = ARRAY_KINDS + "US"  # npz also holds strings (Chainer's logs), still without pickling


def save_npz(file: File | BinaryIO, params: Any, compression: bool = True) -> None:
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
            raise duplicate_path(op, where)
        if not (backend.is_array(leaf) or type(leaf) in (bool, int, float, complex, str, bytes)):
            raise bad_leaf(
                op, where, leaf, f"type {type(leaf).__name__} is not an array, a number or a string"
            )
        arrays[where] = host_array(op, where, leaf, _NPZ_KINDS)

    def write(f: BinaryIO) -> None:
        method = zipfile.ZIP_DEFLATED if compression else zipfile.ZIP_STORED
        with zipfile.ZipFile(f, "w", compression=method, allowZip64=True) as archive:
            for where, array in arrays.items():
                with archive.open(where + ".npy", "w", force_zip64=True) as member:
                    numpy.lib.format.write_array(member, array, allow_pickle=False)

    if hasattr(file, "write"):
        write(file)
    else:
        atomic_write(op, file, write)


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

    def __init__(self, reader: FileErrors, archive: zipfile.ZipFile, key: str, info: zipfile.ZipInfo):
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
                f"its header declares {shape_str(list(shape))} of {dtype} ({nbytes} bytes), "
                f"but it holds {size}"
            )
        try:
            array = numpy.empty(shape, dtype, order="F" if fortran_order else "C")
        except ValueError as e:  # more dimensions than this NumPy holds
            raise self.error(f"NumPy cannot make an array of {shape_str(list(shape))}: {e}") from e
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
            shown = shape_str(list(shape)) if isinstance(shape, tuple) else repr(shape)[:80]
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

    def __init__(self, file: File | BinaryIO, op: str):
        self.source = os.fspath(file) if not hasattr(file, "read") else str(getattr(file, "name", "<file>"))
        self._reader = FileErrors(op, self.source)
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


def open_npz(file: File | BinaryIO) -> NpzEntries:
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


def _nest(reader: FileErrors, entries: dict[str, Any]) -> dict:
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


def _fit_cast(reader: FileErrors, where: str, value: numpy.ndarray, like_leaf):
    """``value`` cast to ``like_leaf``'s dtype (or Python type), as Chainer's loader casts."""
    if backend.is_array(like_leaf):
        wanted_shape, wanted_dtype, wanted = like_leaf.shape, like_leaf.dtype, aval(like_leaf)
    elif type(like_leaf) in (bool, int, float, complex):
        wanted_shape, wanted_dtype = (), numpy.dtype(type(like_leaf))
        wanted = f"type {type(like_leaf).__name__}"
    else:
        raise doesnt_fit(
            reader, where, aval(value), f"type {type(like_leaf).__name__}, which npz cannot hold"
        )
    if value.shape != wanted_shape or not numpy.can_cast(value.dtype, wanted_dtype, "same_kind"):
        raise doesnt_fit(reader, where, aval(value), wanted)
    if backend.is_array(like_leaf):
        return place_like(value.astype(wanted_dtype, copy=False), like_leaf)
    return type(like_leaf)(value[()])


def load_npz(file: File | BinaryIO, like: Any = None, *, prefix: str = "", strict: bool = True) -> Any:
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
                raise doesnt_fit(reader, where, "None (Chainer's uninitialized parameter)", aval(like_leaf))
            else:
                raise reader.error(
                    f"has no entry '{prefix}{where}' for like's leaf '{where}'",
                    "check prefix= (e.g. 'predictor/'), or pass strict=False to keep like's value",
                )
    return _tree.unflatten(_tree.structure(like), values)
