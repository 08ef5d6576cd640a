"""Constraints on the parameters and values of distributions, checked under ``validate_args``.

A constraint has a ``name`` (for messages), a ``fix`` (a hint for a value that breaks it) and
``holds(value)``: a boolean array, one entry per element (per row of the last axis for
``simplex`` and ``one_hot``, per matrix for ``lower_cholesky``), computed with the value's array
module on its concrete array (a traced value is looked through). A constraint that depends on the
distribution's parameters (``Uniform``'s ``[low, high]``) is ``dependent``: ``bind(dist)`` makes
the concrete one.
"""

from __future__ import annotations

from collections.abc import Callable

import attrs
import numpy

from .. import backend
from ..autodiff import unbox_all

__all__ = [
    "Constraint",
    "dependent",
    "real",
    "extended_real",
    "positive",
    "nonnegative",
    "unit_interval",
    "half_open_unit_interval",
    "boolean",
    "nonnegative_integer",
    "positive_integer",
    "simplex",
    "one_hot",
    "lower_cholesky",
    "interval",
    "integer_interval",
    "greater_equal",
    "greater_than",
]


def _concrete(value):
    """The concrete array behind ``value`` (a tracer, an array, a Python number)."""
    value = unbox_all(value)
    return value if backend.is_array(value) else numpy.asarray(value)


@attrs.frozen
class Constraint:
    """A named test of values. ``event_ndim`` trailing axes of a value make one entry of the
    test (0: elementwise)."""

    name: str
    fix: str
    _test: Callable = attrs.field(alias="test")
    event_ndim: int = 0

    def holds(self, value):
        """Where ``value`` meets the constraint: a boolean array of ``value``'s shape less its
        ``event_ndim`` last axes (broadcast against the bounds of a bound constraint)."""
        value = _concrete(value)
        return self._test(backend.xp(value), value)

    def bind(self, dist) -> Constraint:
        """The concrete constraint for the distribution ``dist``: this one."""
        return self


@attrs.frozen
class _Dependent:
    make: Callable

    def bind(self, dist) -> Constraint:
        return self.make(dist)


def dependent(make: Callable) -> _Dependent:
    """A constraint made from the distribution: ``make(dist)`` returns the concrete one."""
    return _Dependent(make)


def _is_integer(xp, x):
    return x == xp.floor(x) if x.dtype.kind == "f" else xp.ones(x.shape, dtype=bool)


real = Constraint("real (finite)", "replace NaN and inf entries", lambda xp, x: xp.isfinite(x))
extended_real = Constraint("not NaN (inf allowed)", "replace NaN entries", lambda xp, x: ~xp.isnan(x))
positive = Constraint("positive", "map it through exp or softplus", lambda xp, x: x > 0)
nonnegative = Constraint("nonnegative", "clip it at 0", lambda xp, x: x >= 0)
unit_interval = Constraint(
    "in [0, 1]", "map it through sigmoid, or clip it to [0, 1]", lambda xp, x: (x >= 0) & (x <= 1)
)
half_open_unit_interval = Constraint(
    "in (0, 1]", "map it through sigmoid, or clip it to [tiny, 1]", lambda xp, x: (x > 0) & (x <= 1)
)
boolean = Constraint("0 or 1", "give 0 or 1", lambda xp, x: (x == 0) | (x == 1))
nonnegative_integer = Constraint(
    "a nonnegative integer", "give counts 0, 1, 2...", lambda xp, x: (x >= 0) & _is_integer(xp, x)
)
positive_integer = Constraint(
    "a positive integer", "give trial counts 1, 2, 3...", lambda xp, x: (x >= 1) & _is_integer(xp, x)
)


def _sums_to_one(xp, x):
    """Nonnegative rows (last axis) whose sum, taken in float64, is within ``2 * (k + 2) * eps``
    of 1: twice the rounding error of a softmax of ``k`` entries computed in ``x``'s dtype."""
    k = x.shape[-1]
    eps = numpy.finfo(x.dtype).eps if x.dtype.kind == "f" else 0.0
    total = x.astype(numpy.float64).sum(axis=-1)
    return (x >= 0).all(axis=-1) & (abs(total - 1) <= 2 * (k + 2) * eps)


simplex = Constraint(
    "a probability vector (nonnegative, summing to 1 over the last axis)",
    "normalize it: p / p.sum(axis=-1, keepdims=True), or take a softmax",
    _sums_to_one,
    event_ndim=1,
)
one_hot = Constraint(
    "one-hot along the last axis (0s and a single 1)",
    "give one-hot vectors, e.g. numpy.eye(k)[index]",
    lambda xp, x: ((x == 0) | (x == 1)).all(axis=-1) & (x.sum(axis=-1) == 1),
    event_ndim=1,
)
lower_cholesky = Constraint(
    "lower-triangular with a positive diagonal",
    "give numpy.linalg.cholesky of a positive-definite covariance",
    lambda xp, x: (xp.diagonal(x, axis1=-2, axis2=-1) > 0).all(axis=-1),
    event_ndim=2,
)


def interval(low, high, name: str) -> Constraint:
    """Values in ``[low, high]`` (arrays that broadcast against the value)."""
    low, high = _concrete(low), _concrete(high)
    return Constraint(f"in {name}", f"give values in {name}", lambda xp, x: (x >= low) & (x <= high))


def integer_interval(low: int, high: int) -> Constraint:
    """Integers in ``{low, ..., high}``."""
    return Constraint(
        f"an integer in [{low}, {high}]",
        f"give integers from {low} to {high}",
        lambda xp, x: (x >= low) & (x <= high) & _is_integer(xp, x),
    )


def greater_equal(bound, name: str) -> Constraint:
    """Values ``>= bound`` (an array that broadcasts against the value)."""
    bound = _concrete(bound)
    return Constraint(f">= {name}", f"give values >= {name}", lambda xp, x: x >= bound)


def greater_than(bound, name: str) -> Constraint:
    """Values ``> bound`` (an array that broadcasts against the value)."""
    bound = _concrete(bound)
    return Constraint(f"> {name}", f"give values > {name}", lambda xp, x: x > bound)
