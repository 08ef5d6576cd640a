"""Typed errors of fnet, and the formatting of array descriptions in their messages.

Every error names the operation, what was expected, what came, and a fix::

    fnet.errors.ShapeError: matmul: expected a.shape[-1] == b.shape[-2], got 4 != 3
      a: float32[3, 4]
      b: float32[3, 5]
      hint: ...
"""

from __future__ import annotations

__all__ = [
    "FnetError",
    "InvalidInputError",
    "ShapeError",
    "DTypeError",
    "DeviceError",
    "ArgumentTypeError",
    "TreeStructureError",
    "NonDifferentiableError",
    "TracerConversionError",
    "VJPRuleError",
    "CheckpointError",
    "NotDefinedError",
    "CaptureError",
    "ExportError",
    "aval",
    "message",
]


class FnetError(Exception):
    """Base class of every error fnet raises on purpose."""


class InvalidInputError(FnetError, ValueError):
    """An operation got an argument it cannot work with."""


class ShapeError(InvalidInputError):
    """Operand shapes do not fit together."""


class DTypeError(InvalidInputError, TypeError):
    """Operand dtypes do not fit together (or do not fit the operation)."""


class DeviceError(InvalidInputError, TypeError):
    """Operands live on different devices (a NumPy and a CuPy array, or two GPUs)."""


class ArgumentTypeError(InvalidInputError, TypeError):
    """A non-array argument has the wrong Python type (an axis given as a list or a string...)."""


class TreeStructureError(FnetError, ValueError):
    """Two pytrees that should have the same structure do not."""


class NonDifferentiableError(FnetError, TypeError):
    """A derivative was asked of something that has none (integer input, non-scalar loss...)."""


class TracerConversionError(FnetError, TypeError):
    """A traced value was used where only a concrete array works (or was mutated in place)."""


class VJPRuleError(FnetError, RuntimeError):
    """A primitive's VJP returned a cotangent of the wrong shape or dtype: a bug in that rule."""


class CaptureError(FnetError, RuntimeError):
    """A step cannot be captured as it is written (``fnet.capture``): Python control flow on
    array values, a value converted to Python or printed, a side effect, a changed shape."""


class CheckpointError(FnetError, OSError):
    """A checkpoint file is missing, truncated, corrupt, or does not fit the expected tree."""


class NotDefinedError(FnetError, NotImplementedError):
    """An object does not define the quantity asked of it (a distribution without a ``cdf``, a
    pair of distributions without a registered KL divergence)."""


class ExportError(FnetError, ValueError):
    """A function cannot be written as an ONNX graph: a primitive with no converter, an
    opset outside the supported range, or a shape that depends on the data."""


def aval(x) -> str:
    """Describe an operand as ``dtype[shape]`` (e.g. ``float32[3, 4]``), or by its Python type."""
    value = getattr(x, "value", x)  # look through a tracer without importing it
    shape = getattr(value, "shape", None)
    dtype = getattr(value, "dtype", None)
    if shape is None or dtype is None:
        return f"{type(value).__name__} {value!r}"
    return f"{dtype}[{', '.join(str(d) for d in shape)}]"


def message(op: str, problem: str, operands: dict | None = None, hint: str | None = None) -> str:
    """Format an error message: ``op: problem``, one line per named operand, and a hint."""
    lines = [f"{op}: {problem}"]
    for name, value in (operands or {}).items():
        lines.append(f"  {name}: {aval(value)}")
    if hint:
        lines.append(f"  hint: {hint}")
    return "\n".join(lines)
