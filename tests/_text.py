"""Comparing texts that print floats (reports, error messages) with Chainer's: the words exactly,
the numbers within a bound in units in the last place."""

from __future__ import annotations

import re

import numpy

# a decimal number as Python and NumPy print it; a leading "-" belongs to the number
NUMBER = re.compile(r"(?<![\w.])-?(?:\d+\.?\d*(?:e[-+]?\d+)?|inf|nan)(?![\w.])")


def split_numbers(text: str) -> tuple[str, list[str]]:
    """``text`` with every number replaced by ``{}``, and the numbers as printed."""
    return NUMBER.sub("{}", text.replace("{", "{{").replace("}", "}}")), NUMBER.findall(text)


def _print_unit(printed: str) -> float:
    """How far a number printed to NumPy's 8 decimals (of the mantissa, in scientific notation)
    may be from another print of a float one ulp away: one unit of the 8th decimal; 0 for a
    number printed with more decimals, which is Python's exact ``repr``."""
    mantissa, _, exponent = printed.lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    if decimals > 8 or not numpy.isfinite(float(printed)):
        return 0.0
    return 1e-8 * (10.0 ** int(exponent) if exponent else 1.0)


def assert_text_close(actual: str, desired: str, max_ulp: int, *, scale: float = 0.0) -> None:
    """Assert that ``actual`` is ``desired`` but for its numbers, each at most ``max_ulp`` float64
    ulps (of itself, or of ``scale`` where that is larger) from the desired one, plus one unit of
    the 8th decimal where the desired number has at most 8 (NumPy's rounding when it prints)."""
    words, numbers = split_numbers(actual)
    desired_words, desired_numbers = split_numbers(desired)
    assert words == desired_words, f"the texts differ outside their numbers:\n{actual}\n---\n{desired}"
    for i, (a, d) in enumerate(zip(numbers, desired_numbers)):
        x, y = float(a), float(d)
        if x == y or (numpy.isnan(x) and numpy.isnan(y)):
            continue
        tolerance = max_ulp * numpy.spacing(max(abs(y), scale)) + _print_unit(d)
        assert abs(x - y) <= tolerance, (
            f"number {i} of the text differs by {abs(x - y):.3g} > {tolerance:.3g} ({max_ulp} ulp of "
            f"{max(abs(y), scale):.3g}, and NumPy's print rounding): actual {a}, desired {d}, in\n{actual}"
        )
