"""The tape: primitives, tracers and records, the backward engine, and the function transforms."""

from .engine import backward
from .primitive import Primitive, all_primitives, primitive
from .tracer import Record, Tracer, grad_enabled, new_level, no_grad, unbox, unbox_all
from .transforms import grad, stop_gradient, value_and_grad, vjp

__all__ = [
    "Primitive",
    "primitive",
    "all_primitives",
    "Tracer",
    "Record",
    "new_level",
    "no_grad",
    "grad_enabled",
    "unbox",
    "unbox_all",
    "backward",
    "vjp",
    "grad",
    "value_and_grad",
    "stop_gradient",
]
