"""Logic routines (``chainerx`` logic functions): comparisons, logical operators, value tests,
``all``/``any``, and the comparison operators of ndarray. None is differentiable."""

from __future__ import annotations

import numpy

from ... import ops
from ...autodiff import unbox_all
from ._array import ndarray
from ._routine import binary, method, reduction, unary

__all__ = [
    "equal",
    "not_equal",
    "greater",
    "greater_equal",
    "less",
    "less_equal",
    "logical_and",
    "logical_or",
    "logical_xor",
    "logical_not",
    "isnan",
    "isinf",
    "isfinite",
    "all",
    "any",
]

equal = binary("equal", ops.equal, bool_mix=True)
not_equal = binary("not_equal", ops.not_equal, bool_mix=True)
greater = binary("greater", ops.greater, bool_mix=True)
greater_equal = binary("greater_equal", ops.greater_equal, bool_mix=True)
less = binary("less", ops.less, bool_mix=True)
less_equal = binary("less_equal", ops.less_equal, bool_mix=True)
logical_and = binary("logical_and", ops.logical_and)
logical_or = binary("logical_or", ops.logical_or)
logical_xor = binary("logical_xor", ops.logical_xor)
logical_not = unary("logical_not", ops.logical_not)
isnan = unary("isnan", ops.isnan)
isinf = unary("isinf", ops.isinf)
isfinite = unary("isfinite", ops.isfinite)


def _truth(test):
    def op(x, *, axis, keepdims):
        return test(unbox_all(x), axis=axis, keepdims=keepdims)

    return op


all = reduction("all", _truth(numpy.all))  # noqa: A001 (ChainerX's name)
any = reduction("any", _truth(numpy.any))  # noqa: A001 (ChainerX's name)

_OPERATORS = {"eq": equal, "ne": not_equal, "gt": greater, "ge": greater_equal, "lt": less, "le": less_equal}
for _name, _routine in _OPERATORS.items():
    setattr(ndarray, f"__{_name}__", method(_routine))
ndarray.__hash__ = None
ndarray.all = method(all)
ndarray.any = method(any)
del _name, _routine
