"""``chainer.backends.intel64``: the iDeep backend, which fnet does not provide.

iDeep (Intel's MKL-DNN arrays) is never available here: :func:`is_ideep_available` is False,
so Chainer code that asks before using it takes its NumPy path, and making an
:class:`Intel64Device` raises ``RuntimeError`` as Chainer does on a machine without iDeep.
"""

from __future__ import annotations

import numpy

from ._cpu import Device, array_to_cpu

__all__ = [
    "mdarray",
    "Intel64Device",
    "is_ideep_available",
    "check_ideep_available",
    "should_use_ideep",
    "inputs_all_ready",
]

_LEVELS = ("==always", ">=auto")


class mdarray:  # noqa: N801 - iDeep's name
    """Stands for iDeep's array type: nothing is an instance of it."""


def is_ideep_available() -> bool:
    """Whether iDeep can be used: never in fnet."""
    return False


def check_ideep_available() -> None:
    """Raise ``RuntimeError``: iDeep is not available."""
    raise RuntimeError(
        "iDeep is not available: fnet has no iDeep backend\n"
        "  hint: use the NumPy backend ('@numpy'); chainer.config.use_ideep has no effect"
    )


def should_use_ideep(level: str) -> bool:
    """Whether to use iDeep at ``level`` ('==always' or '>=auto'): never, iDeep being absent."""
    if level not in _LEVELS:
        raise ValueError(f"should_use_ideep: level must be '==always' or '>=auto', got {level!r}")
    return False


def inputs_all_ready(inputs, supported_ndim=(2, 4)) -> bool:
    """Whether ``inputs`` are ready for an iDeep routine: never, iDeep being absent."""
    return False


class Intel64Device(Device):
    """The iDeep device (``'@intel64'``); it cannot be made, iDeep being absent."""

    __slots__ = ()
    supported_array_types = (numpy.ndarray, mdarray)

    def __init__(self):
        check_ideep_available()

    @staticmethod
    def from_array(array):
        """None: no array is an iDeep array."""
        return None

    @property
    def name(self) -> str:
        return "@intel64"

    @property
    def xp(self):
        return numpy

    def send_array(self, array):
        """``array`` as a NumPy array (iDeep's arrays work with NumPy)."""
        return array_to_cpu(array)

    def is_array_supported(self, array) -> bool:
        """Whether ``array`` is a NumPy or an iDeep array."""
        return isinstance(array, (numpy.ndarray, mdarray))
