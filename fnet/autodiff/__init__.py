"""The tape: primitives, tracers and records, the backward engine, and the function transforms."""

from .engine import backward
from .primitive import Primitive, VariadicVJPs, all_primitives, primitive
from .tracer import (
    Record,
    Tracer,
    default_grad_enabled,
    grad_enabled,
    new_level,
    no_grad,
    restore_grad_enabled,
    set_default_grad_enabled,
    set_grad_enabled,
    unbox,
    unbox_all,
)
from .transforms import grad, stop_gradient, value_and_grad, vjp

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
    "set_grad_enabled",
    "restore_grad_enabled",
    "default_grad_enabled",
    "set_default_grad_enabled",
    "unbox",
    "unbox_all",
    "backward",
    "vjp",
    "grad",
    "value_and_grad",
    "stop_gradient",
]
