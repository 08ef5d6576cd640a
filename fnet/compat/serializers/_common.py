"""What the npz and HDF5 serializers share: values made ready to save, loaded values put back."""

from __future__ import annotations

from typing import Any

import numpy

from ... import backend
from ...errors import DTypeError, ShapeError, message


class MissingEntryError(KeyError):
    """A KeyError whose text reads as a message (KeyError alone would show it as a quoted repr)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def missing_entry(op: str, key: str, source: str, hint: str) -> MissingEntryError:
    """The error for an entry that a strict deserializer needs and the file does not hold."""
    return MissingEntryError(message(op, f"'{key}' is not in {source}", hint=hint))


def host_value(value: Any) -> numpy.ndarray:
    """``value`` as a NumPy array, as it is written to a file (a GPU array is copied to the host)."""
    if backend.is_array(value):
        return numpy.asarray(backend.to_cpu(value))
    return numpy.asarray(value)


def is_saved_none(array: numpy.ndarray) -> bool:
    """Whether ``array`` is how Chainer's DictionarySerializer keeps None (``numpy.asarray(None)``)."""
    return array.dtype.hasobject and array.ndim == 0 and array[()] is None


def _is_array_target(value: Any) -> bool:
    """Whether loading into ``value`` copies in place (an array) rather than converting (a scalar)."""
    return backend.is_array(value) and not isinstance(value, numpy.generic)


class HDF5ShapeError(ShapeError, TypeError):
    """A saved array of another shape than its target in ``load_hdf5``: a ShapeError that is
    also the TypeError Chainer's HDF5 loader (h5py's ``read_direct``) raises."""


def restore(op: str, key: str, value: Any, loaded: Any, source: str, shape_error: type = ShapeError) -> Any:
    """Put the ``loaded`` data of entry ``key`` where ``value`` was, as Chainer's deserializers do.

    An array ``value`` gets the data copied into it in place and is returned: the data must have
    its shape (an error of type ``shape_error`` otherwise, a ValueError as in Chainer's npz
    loader; no broadcasting, unlike NumPy's ``copyto``) and cast to its dtype by the
    ``same_kind`` rule. A scalar or string ``value`` gives the loaded data converted to its type
    (numbers only where the cast is safe); ``value=None`` gives the loaded array as it is; data
    saved as None (None, or Chainer's ``numpy.asarray(None)``) gives None.
    """
    if loaded is None:
        return None
    data = numpy.asarray(loaded) if not backend.is_array(loaded) else loaded
    if is_saved_none(data):
        return None
    if value is None:
        return loaded
    where = f"cannot load '{key}' from {source}"
    if _is_array_target(value):
        if data.shape != value.shape:
            raise shape_error(
                message(
                    op,
                    f"{where}: the saved array has shape {data.shape} where the target has shape "
                    f"{value.shape}",
                    {"saved": data, "target": value},
                    hint="the object was built with other sizes than the saved one: build it with the "
                    "saved sizes",
                )
            )
        if not numpy.can_cast(data.dtype, value.dtype, "same_kind"):
            raise DTypeError(
                message(
                    op,
                    f"{where}: {data.dtype} data cannot be cast to the target's dtype {value.dtype}",
                    {"saved": data, "target": value},
                    hint="NumPy's same_kind rule applies (e.g. float data never goes into an int array)",
                )
            )
        device = backend.get_device_from_array(value)
        device.xp.copyto(value, device.send(data))
        return value
    if not numpy.isscalar(value):
        return type(value)(data)
    host = host_value(data)
    kind = type(value)
    if (
        issubclass(host.dtype.type, numpy.number)
        and not (issubclass(host.dtype.type, numpy.integer) and kind is int)
        and not numpy.can_cast(host.dtype, kind, "safe")
    ):
        raise DTypeError(
            message(
                op,
                f"{where}: {host.dtype} data cannot be safely converted to {kind.__name__}",
                {"saved": host},
                hint=f"the saved value is not a {kind.__name__}; set the attribute to a value of the "
                "saved type before loading",
            )
        )
    if host.size != 1:
        raise DTypeError(
            message(
                op,
                f"{where}: the saved array has {host.size} elements where a {kind.__name__} is loaded",
                {"saved": host, "target": value},
                hint="the entry holds an array: make the attribute an array of the saved shape",
            )
        )
    return kind(host.item())
