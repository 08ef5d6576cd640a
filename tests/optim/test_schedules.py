"""Tests of fnet.optim.schedules beyond Chainer's values (test_golden.py): the cases where
Chainer's extensions divide by zero, and the argument checks."""

from __future__ import annotations

import pytest

from fnet.errors import InvalidInputError
from fnet.optim import schedules


def test_polynomial_reaching_zero_stops_at_its_target():
    # Chainer's PolynomialShift divides the target by the value: ZeroDivisionError at max_count
    s = schedules.polynomial(0.1, 2.0, 4, target=0.02)
    assert [s(t) for t in (3, 4, 10)] == [0.02, 0.02, 0.02]
    assert schedules.polynomial(0.1, 2.0, 4, target=-0.02)(4) == 0.0


def test_zero_target_divides_as_ieee_floats():
    # Chainer's Python floats raise ZeroDivisionError; value / ±0.0 is ±inf here, as in NumPy
    assert schedules.exponential(1.0, 0.5, target=0.0)(3) == 0.125
    assert schedules.step(-1.0, 0.5, 1, target=-0.0)(2) == -0.25
    assert schedules.step(-1.0, 0.5, 1, target=0.0)(2) == 0.0


def test_multistep_passes_one_step_value_per_call():
    s = schedules.multistep(1.0, 0.5, [0, 1, 1, 5])
    assert [s(t) for t in range(7)] == [1.0, 0.5, 0.25, 0.125, 0.125, 0.0625, 0.0625]


def test_values_are_plain_floats():
    for s in (
        schedules.step(1.0, 0.5, 2),
        schedules.linear((0.0, 1.0), (0, 4)),
        schedules.warmup(0.1, 0.0, 3),
    ):
        assert type(s(3)) is float


def test_argument_checks():
    with pytest.raises(InvalidInputError, match=r"exponential: expected rate >= 0, got -0.5"):
        schedules.exponential(1.0, -0.5)
    with pytest.raises(InvalidInputError, match=r"inverse: expected gamma >= 0, got -1"):
        schedules.inverse(1.0, -1, 1.0)
    with pytest.raises(InvalidInputError, match=r"linear: expected value_range and time_range to be pairs"):
        schedules.linear((1.0,), (0, 10))
    with pytest.raises(InvalidInputError, match=r"step: expected init to be a number, got None"):
        schedules.step(None, 0.5, 2)
    with pytest.raises(InvalidInputError, match=r"multistep: expected step_value\[1\] to be a number"):
        schedules.multistep(1.0, 0.5, [2, "4"])
