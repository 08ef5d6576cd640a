"""Python's operators and NumPy-style methods on traced values, mapped onto fnet operations."""

from __future__ import annotations

import numpy

from ..autodiff.tracer import Tracer
from ..errors import TracerConversionError, message
from . import compare, elementwise, indexing, linalg, reduction, shape


def _method(f):
    """``f`` as a method (primitives are not descriptors, so they need a function around them)."""
    return lambda self, *args, **kwargs: f(self, *args, **kwargs)


def _swap(f):
    return lambda self, other: f(other, self)


_BINARY = {
    "add": elementwise.add,
    "sub": elementwise.subtract,
    "mul": elementwise.multiply,
    "truediv": elementwise.divide,
    "floordiv": elementwise.floor_divide,
    "pow": elementwise.power,
    "matmul": linalg.matmul,
}

# NumPy ufuncs applied to a traced value dispatch to the fnet operation of the same name.
_UFUNCS = {
    getattr(numpy, name): getattr(module, name)
    for module in (elementwise, compare, linalg)
    for name in module.__all__
    if isinstance(getattr(numpy, name, None), numpy.ufunc)
}


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    op = _UFUNCS.get(ufunc)
    if method != "__call__" or op is None or kwargs:
        raise TracerConversionError(
            message(
                f"numpy.{ufunc.__name__}",
                f"this NumPy ufunc (method {method!r}) cannot be applied to a traced value",
                {"value": self},
                "use the fnet.ops function of the same purpose on traced values",
            )
        )
    return op(*inputs)


# CuPy's ufuncs (``cupy_array * traced``) hand a traced operand to its
# ``__cupy_override_elementwise_kernel__``, with CuPy's ufunc, whose name is "cupy_" + NumPy's.
_UFUNCS_BY_CUPY_NAME = {f"cupy_{ufunc.__name__}": op for ufunc, op in _UFUNCS.items()}


def _cupy_elementwise(self, ufunc, *inputs, **kwargs):
    op = _UFUNCS_BY_CUPY_NAME.get(getattr(ufunc, "name", None))
    if op is None or kwargs or len(inputs) != ufunc.nin:
        raise TracerConversionError(
            message(
                f"cupy ufunc {getattr(ufunc, 'name', ufunc)!r}",
                "this CuPy operation cannot be applied to a traced value",
                {"value": self},
                "use the fnet.ops function of the same purpose on traced values",
            )
        )
    return op(*inputs)


def install() -> None:
    """Give Tracer its operators and array methods."""
    for name, op in _BINARY.items():
        setattr(Tracer, f"__{name}__", _method(op))
        setattr(Tracer, f"__r{name}__", _swap(op))
    Tracer.__neg__ = _method(elementwise.negative)
    Tracer.__pos__ = lambda self: self
    Tracer.__abs__ = _method(elementwise.absolute)
    Tracer.__getitem__ = _method(indexing.getitem)
    Tracer.__eq__ = _method(compare.equal)
    Tracer.__ne__ = _method(compare.not_equal)
    Tracer.__lt__ = _method(compare.less)
    Tracer.__le__ = _method(compare.less_equal)
    Tracer.__gt__ = _method(compare.greater)
    Tracer.__ge__ = _method(compare.greater_equal)
    Tracer.__hash__ = object.__hash__
    Tracer.__array_ufunc__ = _array_ufunc
    Tracer.__cupy_override_elementwise_kernel__ = _cupy_elementwise
    Tracer.T = property(lambda self: shape.transpose(self))
    Tracer.mT = property(lambda self: shape.swapaxes(self, -1, -2))
    Tracer.reshape = lambda self, *s: shape.reshape(self, s[0] if len(s) == 1 else s)
    Tracer.transpose = lambda self, *axes: shape.transpose(
        self, (axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else axes) or None
    )
    Tracer.swapaxes = shape.swapaxes
    Tracer.squeeze = shape.squeeze
    Tracer.ravel = shape.ravel
    Tracer.flatten = shape.ravel
    Tracer.astype = elementwise.astype
    Tracer.clip = elementwise.clip
    Tracer.dot = linalg.dot
    Tracer.sum = reduction.sum
    Tracer.mean = reduction.mean
    Tracer.var = reduction.var
    Tracer.std = reduction.std
    Tracer.prod = reduction.prod
    Tracer.max = reduction.max
    Tracer.min = reduction.min
    Tracer.cumsum = reduction.cumsum
    Tracer.cumprod = reduction.cumprod
    Tracer.argmax = _method(reduction.argmax)
    Tracer.argmin = _method(reduction.argmin)
