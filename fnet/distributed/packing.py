"""Packed allreduce: the leaves of a pytree summed across ranks through one buffer per dtype.

``PackedAllreduce`` copies the leaves of each dtype into one contiguous buffer, kept and reused
from call to call (grown when a larger tree comes), and reduces it with one ``Allreduce``: a
tree of 161 leaves costs one message per dtype, not 161. ``transfer_dtype`` ("float16" or
"bfloat16") sends floating leaves in 16 bits, each pairwise sum made in float32, and gives
them back in their own dtype.
"""

from __future__ import annotations

import hashlib

import numpy

from .. import tree as _tree
from ..errors import DTypeError, InvalidInputError, ShapeError, message

__all__ = ["PackedAllreduce", "REDUCTIONS", "TRANSFER_DTYPES"]

REDUCTIONS = ("sum", "mean")
TRANSFER_DTYPES = ("float16", "bfloat16")


def _to_bfloat16(x: numpy.ndarray) -> numpy.ndarray:
    """float32 values as bfloat16 bit patterns (uint16), rounded to nearest even."""
    bits = numpy.ascontiguousarray(x, numpy.float32).view(numpy.uint32)
    rounded = (bits + (0x7FFF + ((bits >> 16) & 1))) >> 16
    return rounded.astype(numpy.uint16)


def _from_bfloat16(u: numpy.ndarray) -> numpy.ndarray:
    """bfloat16 bit patterns (uint16) as float32 values (exact)."""
    return (u.astype(numpy.uint32) << 16).view(numpy.float32)


# (to the wire, back to float32), for each transfer dtype; the wire holds uint16 words
_CODECS = {
    "float16": (
        lambda x: x.astype(numpy.float16).view(numpy.uint16),
        lambda u: u.view(numpy.float16).astype(numpy.float32),
    ),
    "bfloat16": (_to_bfloat16, _from_bfloat16),
}


def _sum_in_float32(name: str):
    """The body of an MPI operation that adds two buffers of 16-bit words in float32."""
    encode, decode = _CODECS[name]

    def add(inbuf, inoutbuf, datatype):
        a = numpy.frombuffer(inbuf, numpy.uint16)
        b = numpy.frombuffer(inoutbuf, numpy.uint16)
        b[...] = encode(decode(a) + decode(b))

    return add


class PackedAllreduce:
    """Sums (or averages) pytrees across the ranks of an mpi4py communicator, packed by dtype."""

    def __init__(self, mpi_comm, mpi):
        self._comm = mpi_comm
        self._mpi = mpi
        self._buffers: dict = {}
        self._ops: dict = {}
        self._checked: dict = {}

    def buffer(self, dtype: numpy.dtype, size: int) -> numpy.ndarray:
        """The reused send buffer of ``dtype``, ``size`` elements long (grown when too short)."""
        buf = self._buffers.get(dtype)
        if buf is None or buf.size < size:
            buf = self._buffers[dtype] = numpy.empty(max(size, 1), dtype)
        return buf[:size]

    def _op(self, name: str):
        op = self._ops.get(name)
        if op is None:
            op = self._ops[name] = self._mpi.Op.Create(_sum_in_float32(name), commute=True)
        return op

    def _check_same_avals(self, op: str, paths: list, arrays: list) -> None:
        """Raise the same ``ShapeError`` on every rank unless all ranks bring the same tree of
        the same shapes and dtypes (one small Allreduce of a fingerprint; details only on a mismatch)."""
        avals = tuple((p, a.dtype.str, a.shape) for p, a in zip(paths, arrays))
        fingerprint = self._checked.get(avals)
        if fingerprint is None:
            digest = hashlib.blake2b(repr(avals).encode(), digest_size=8).digest()
            fingerprint = int.from_bytes(digest, "little", signed=True) >> 1
            if len(self._checked) > 64:
                self._checked.clear()
            self._checked[avals] = fingerprint
        both = numpy.array([fingerprint, -fingerprint], numpy.int64)
        self._comm.Allreduce(self._mpi.IN_PLACE, both, op=self._mpi.MAX)
        if both[0] == fingerprint and both[1] == -fingerprint:
            return
        everyone = self._comm.allgather([(_tree.path_str(p), d, list(s)) for p, d, s in avals])
        mine = everyone[self._comm.rank]
        for rank, theirs in enumerate(everyone):
            if theirs == mine:
                continue
            for index in range(max(len(mine), len(theirs))):
                a = mine[index] if index < len(mine) else None
                b = theirs[index] if index < len(theirs) else None
                if a != b:
                    break
            here = "no leaf" if a is None else f"{a[0] or '(root)'}: {numpy.dtype(a[1])}{a[2]}"
            there = "no leaf" if b is None else f"{b[0] or '(root)'}: {numpy.dtype(b[1])}{b[2]}"
            raise ShapeError(
                message(
                    op,
                    f"expected every rank to bring the same tree of shapes and dtypes, got leaf {index} "
                    f"{here} on rank {self._comm.rank} but {there} on rank {rank}",
                    hint="every rank must reduce the same parameters: build the model the same way on each",
                )
            )

    def __call__(self, op: str, tree, reduction: str, *, in_place: bool, transfer_dtype: str | None):
        if reduction not in REDUCTIONS:
            raise InvalidInputError(message(op, f"expected op to be one of {REDUCTIONS}, got {reduction!r}"))
        if transfer_dtype is not None and transfer_dtype not in TRANSFER_DTYPES:
            raise InvalidInputError(
                message(
                    op,
                    f"expected transfer_dtype to be None or one of {TRANSFER_DTYPES}, got {transfer_dtype!r}",
                )
            )
        paths_leaves = _tree.flatten_with_paths(tree)
        paths = [p for p, _ in paths_leaves]
        leaves = [x for _, x in paths_leaves]
        if in_place:
            bad = [
                (p, x) for p, x in paths_leaves if not (isinstance(x, numpy.ndarray) and x.flags.writeable)
            ]
            if bad:
                raise InvalidInputError(
                    message(
                        op,
                        f"expected writeable NumPy arrays for in_place=True, got {type(bad[0][1]).__name__} "
                        f"at {_tree.path_str(bad[0][0]) or '(root)'}",
                        hint="pass in_place=False to get new arrays back",
                    )
                )
            arrays = leaves
        else:
            arrays = [numpy.asarray(x) for x in leaves]
        self._check_same_avals(op, paths, arrays)
        groups: dict = {}
        for index, a in enumerate(arrays):
            groups.setdefault(a.dtype, []).append(index)
        out = list(arrays)
        for dtype, indices in groups.items():
            if reduction == "mean" and dtype.kind not in "fc":
                raise DTypeError(
                    message(
                        op,
                        f"expected floating leaves for op='mean', got {dtype}",
                        {_tree.path_str(paths[indices[0]]) or "x": arrays[indices[0]]},
                        hint="use op='sum' for integer leaves",
                    )
                )
            self._reduce_group(
                dtype, [arrays[i] for i in indices], indices, out, reduction, in_place, transfer_dtype
            )
        return tree if in_place else _tree.unflatten(_tree.structure(tree), out)

    def _reduce_group(self, dtype, arrays, indices, out, reduction, in_place, transfer_dtype) -> None:
        total = sum(a.size for a in arrays)
        wire = transfer_dtype if transfer_dtype is not None and dtype.kind == "f" else None
        if wire is None:
            send = self.buffer(dtype, total)
            _pack(arrays, send)
            if in_place:
                self._comm.Allreduce(self._mpi.IN_PLACE, send, op=self._mpi.SUM)
                result = send
            else:
                result = numpy.empty(total, dtype)
                self._comm.Allreduce(send, result, op=self._mpi.SUM)
        else:
            encode, decode = _CODECS[wire]
            send = self.buffer(numpy.dtype(numpy.uint16), total)
            offset = 0
            for a in arrays:
                send[offset : offset + a.size] = encode(a.reshape(-1).astype(numpy.float32))
                offset += a.size
            self._comm.Allreduce(self._mpi.IN_PLACE, send, op=self._op(wire))
            result = decode(send).astype(dtype, copy=False)
            if result.base is send or result is send:
                result = result.copy()
        if reduction == "mean":
            numpy.divide(result, self._comm.size, out=result, casting="unsafe")
        offset = 0
        for a, index in zip(arrays, indices):
            piece = result[offset : offset + a.size].reshape(a.shape)
            if in_place:
                a[...] = piece
            else:
                out[index] = piece
            offset += a.size


def _pack(arrays: list, buffer: numpy.ndarray) -> None:
    offset = 0
    for a in arrays:
        buffer[offset : offset + a.size] = a.reshape(-1)
        offset += a.size
