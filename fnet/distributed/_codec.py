"""The wire format of objects sent between ranks: msgpack of plain values, never pickle.

Plain values are None, bools, ints, floats, strings, bytes, lists, tuples, dicts of them, and
NumPy arrays and scalars (of fixed-size dtypes). Anything else is refused when sent, with the
type named, so a receiver never runs code from a message.
"""

from __future__ import annotations

import msgpack
import numpy

from ..errors import ArgumentTypeError, message

__all__ = ["encode", "decode"]

_ARRAY, _TUPLE, _SCALAR = 1, 2, 3


def _default(op: str):
    def default(obj):
        if type(obj) is tuple:
            return msgpack.ExtType(_TUPLE, _pack(op, list(obj)))
        if isinstance(obj, numpy.ndarray | numpy.generic):
            array = numpy.asarray(obj)
            if array.dtype.hasobject:
                raise ArgumentTypeError(
                    message(op, "expected arrays of numbers, got an array of Python objects", {"obj": array})
                )
            code = _SCALAR if isinstance(obj, numpy.generic) else _ARRAY
            header = [array.dtype.str, list(array.shape), numpy.ascontiguousarray(array).tobytes()]
            return msgpack.ExtType(code, msgpack.packb(header, use_bin_type=True))
        raise ArgumentTypeError(
            message(
                op,
                f"expected plain data (None, bool, int, float, str, bytes, list, tuple, dict, "
                f"NumPy arrays), got {type(obj).__module__}.{type(obj).__qualname__}",
                hint="send the object's arrays and numbers (its state), and rebuild it on the other rank",
            )
        )

    return default


def _pack(op: str, obj) -> bytes:
    return msgpack.packb(obj, default=_default(op), use_bin_type=True, strict_types=True)


def _ext_hook(code: int, data: bytes):
    if code == _TUPLE:
        return tuple(decode(data))
    dtype, shape, raw = msgpack.unpackb(data, raw=False)
    array = numpy.frombuffer(raw, dtype=numpy.dtype(dtype)).reshape(shape).copy()
    return array[()] if code == _SCALAR else array


def encode(op: str, obj) -> bytes:
    """``obj`` as bytes; ``op`` names the caller in the error raised for a value that is not plain."""
    return _pack(op, obj)


def decode(data) -> object:
    """The object that ``encode`` made ``data`` from."""
    return msgpack.unpackb(data, ext_hook=_ext_hook, raw=False, strict_map_key=False)
