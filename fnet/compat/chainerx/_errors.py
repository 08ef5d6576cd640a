"""ChainerX's exception types; fnet's messages (``fnet.errors.message``) go in them."""

from __future__ import annotations

import builtins

__all__ = [
    "ChainerxError",
    "BackendError",
    "ContextError",
    "DeviceError",
    "DimensionError",
    "DtypeError",
    "GradientError",
    "GradientCheckError",
    "NotImplementedError",
]


class ChainerxError(Exception):
    """The base of ChainerX's errors."""


class BackendError(ChainerxError):
    """A backend that does not exist or cannot be used here (``cuda`` without CuPy)."""


class ContextError(ChainerxError):
    """No context is set where one is needed."""


class DeviceError(ChainerxError):
    """Arrays on different devices in one routine, or a device that does not exist."""


class DimensionError(ChainerxError):
    """Shapes or axes that do not fit the routine."""


class DtypeError(ChainerxError):
    """A dtype the routine cannot take."""


class GradientError(ChainerxError):
    """A gradient that does not match its array (shape, dtype, device)."""


class GradientCheckError(ChainerxError, AssertionError):
    """Numerical and computed gradients disagree (``check_backward``)."""


class NotImplementedError(ChainerxError, builtins.NotImplementedError):  # noqa: A001 (ChainerX's name)
    """What ChainerX does not do (a dtype a routine has no kernel for)."""
