"""The wire format of objects sent between ranks: msgpack of plain values, never pickle.

Plain values are None, bools, ints, floats, strings, bytes, lists, tuples, dicts of them, and
NumPy arrays and scalars (of fixed-size dtypes). A layer above may register a type of its own
(``register_message_type``) as a conversion to plain values and back. Anything else is refused
when sent, with the type named, so a receiver never runs code from a message.
"""

from __future__ import annotations

import msgpack
import numpy

from ..errors import ArgumentTypeError, InvalidInputError, message

__all__ = ["encode", "decode", "register_message_type"]

_ARRAY, _TUPLE, _SCALAR = 1, 2, 3
_FIRST_REGISTERED = 16
_registered: dict[type, tuple[int, object]] = {}  # type -> (code, to_plain)
_rebuilders: dict[int, object] = {}  # code -> from_plain


def register_message_type(cls: type, code: int, to_plain, from_plain) -> None:
    """Let objects of exactly ``cls`` travel in ``*_obj`` messages: ``to_plain(obj)`` gives plain
    values, and the receiver gets ``from_plain(those values)``. ``code`` (16-127) names the type
    on the wire; every rank must register the same types with the same codes."""
    if not isinstance(code, int) or not _FIRST_REGISTERED <= code <= 127:
        raise ArgumentTypeError(
            message("register_message_type", f"expected code to be an int in [16, 127], got {code!r}")
        )
    taken = _rebuilders.get(code)
    if taken is not None and _registered.get(cls, (None,))[0] != code:
        raise ArgumentTypeError(
            message("register_message_type", f"code {code} is taken by another type", {"cls": cls})
        )
    _registered[cls] = (code, to_plain)
    _rebuilders[code] = from_plain


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
        registered = _registered.get(type(obj))
        if registered is not None:
            code, to_plain = registered
            return msgpack.ExtType(code, _pack(op, to_plain(obj)))
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
    if code >= _FIRST_REGISTERED:
        rebuild = _rebuilders.get(code)
        if rebuild is None:
            raise InvalidInputError(
                message(
                    "decode",
                    f"a message holds an object of registered type code {code}, which this rank has "
                    "not registered",
                    hint="register the same types on every rank (register_message_type)",
                )
            )
        return rebuild(decode(data))
    dtype, shape, raw = msgpack.unpackb(data, raw=False)
    array = numpy.frombuffer(raw, dtype=numpy.dtype(dtype)).reshape(shape).copy()
    return array[()] if code == _SCALAR else array


def encode(op: str, obj) -> bytes:
    """``obj`` as bytes; ``op`` names the caller in the error raised for a value that is not plain."""
    return _pack(op, obj)


def decode(data) -> object:
    """The object that ``encode`` made ``data`` from."""
    return msgpack.unpackb(data, ext_hook=_ext_hook, raw=False, strict_map_key=False)
