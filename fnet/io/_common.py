"""What fnet's checkpoints and npz files share: leaves made ready to save, and errors about a file."""

from __future__ import annotations

import os

import numpy

from .. import backend
from ..errors import CheckpointError, DTypeError, InvalidInputError, message
from .atomic import File

__all__ = [
    "ARRAY_KINDS",
    "FileErrors",
    "at",
    "bad_leaf",
    "host_array",
    "duplicate_path",
    "shape_str",
    "doesnt_fit",
    "place_like",
]

ARRAY_KINDS = "biufc"  # bool, signed and unsigned ints, floats, complex: raw bytes say it all


class FileErrors:
    """The errors about one file: they name the operation and the file."""

    def __init__(self, op: str, path: File):
        self.op = op
        self.where = os.fspath(path)

    def error(self, problem: str, hint: str) -> CheckpointError:
        """A ``CheckpointError``: the operation, the file, ``problem`` and ``hint``."""
        return CheckpointError(message(self.op, f"'{self.where}' {problem}", hint=hint))


def at(where: str) -> str:
    """A path for messages: ``'l1/W'``, or ``the root`` for the empty path."""
    return f"'{where}'" if where else "the root"


def bad_leaf(op: str, where: str, leaf, what: str) -> InvalidInputError:
    """The error for a leaf at ``where`` that cannot be saved, ``what`` saying why."""
    return InvalidInputError(
        message(
            op,
            f"cannot save the leaf at {at(where)}: {what}",
            {where or "leaf": leaf},
            hint="leaves must be arrays (bool, int, uint, float, complex), Python scalars, strings or "
            "bytes; save concrete values (not traced ones inside grad)",
        )
    )


def host_array(op: str, where: str, leaf, kinds: str = ARRAY_KINDS) -> numpy.ndarray:
    """An array leaf on the host, whose dtype is one of ``kinds`` (plain numbers by default)."""
    array = numpy.asarray(backend.to_cpu(leaf))
    if array.dtype.kind not in kinds:
        raise DTypeError(
            message(
                op,
                f"cannot save the array at {at(where)}: dtype {array.dtype} is not a number type",
                {where or "leaf": array},
                hint="checkpoints hold bool, int, uint, float and complex arrays; convert the others",
            )
        )
    return array


def duplicate_path(op: str, where: str) -> InvalidInputError:
    """The error for two leaves whose paths join to the same ``where``."""
    return InvalidInputError(
        message(
            op,
            f"two leaves have the same path '{where}'",
            hint="paths join keys with '/': rename dict keys that contain '/' or that differ "
            "only in type (0 and '0')",
        )
    )


def shape_str(shape: list) -> str:
    """A shape for messages, shortened when it has many dimensions."""
    if len(shape) <= 8:
        return f"shape {tuple(shape)}"
    return f"{len(shape)} dimensions, shape ({', '.join(map(str, shape[:4]))}, ...)"


def doesnt_fit(reader: FileErrors, where: str, saved: str, wanted: str) -> CheckpointError:
    """The error for a file whose value at ``where`` (``saved``) is not what ``like`` has."""
    return reader.error(
        f"does not fit like at {at(where)}: the file has {saved}, like has {wanted}",
        "load into a tree of the saved structure, shapes and dtypes (or leave like out)",
    )


def place_like(value, like_leaf):
    """``value`` on the device of ``like_leaf`` (a CuPy array's device; the host otherwise)."""
    if backend.is_array(like_leaf) and backend.xp(like_leaf) is not numpy:
        return backend.get_device_from_array(like_leaf).send(value)
    return value
