"""The tape: primitives, tracers and records, the backward engine, and the bridge for the layers above.

The function transforms over pytrees built on it (``vjp``, ``grad``, ``value_and_grad``,
``stop_gradient``) are in ``fnet.transforms``; ``jacobian`` and ``hessian`` in ``fnet.derivatives``.
"""

from .engine import backward
from .primitive import Primitive, VariadicVJPs, all_primitives, primitive
from .tracer import (
    Record,
    Tracer,
    default_grad_enabled,
    grad_enabled,
    grad_mode,
    new_level,
    no_grad,
    restore_grad_enabled,
    set_default_grad_enabled,
    set_grad_enabled,
    unbox,
    unbox_all,
)

__all__ = [
    "Primitive",
    "VariadicVJPs",
    "primitive",
    "all_primitives",
    "Tracer",
    "Record",
    "new_level",
    "no_grad",
    "grad_enabled",
    "grad_mode",
    "set_grad_enabled",
    "restore_grad_enabled",
    "default_grad_enabled",
    "set_default_grad_enabled",
    "unbox",
    "unbox_all",
    "backward",
]
