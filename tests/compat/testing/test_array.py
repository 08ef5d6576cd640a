"""testing.assert_allclose: Chainer's tolerance rule and failure report."""

from __future__ import annotations

import json
import pathlib

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import testing

GOLDEN = json.loads((pathlib.Path(__file__).parents[2] / "golden" / "testing_allclose.json").read_text())


@pytest.mark.parametrize(("case", "report"), list(zip(GOLDEN["cases"], GOLDEN["reports"])))
def test_failure_report_is_chainers(case, report):
    """After NumPy's own message (which differs between NumPy versions): shapes, dtypes, where
    the error is largest compared to the tolerance, and the arrays."""
    x, y, dtype_x, dtype_y, kwargs = case
    with pytest.raises(AssertionError) as info:
        testing.assert_allclose(numpy.array(x, dtype_x), numpy.array(y, dtype_y), **kwargs)
    numpy_part, chainer_part = str(info.value).split("\n\nassert_allclose failed:\n")
    assert "Not equal to tolerance" in numpy_part
    assert "assert_allclose failed:\n" + chainer_part == report


def test_within_tolerance_passes():
    testing.assert_allclose(numpy.array([1.0, 100.0]), numpy.array([1.000009, 100.009]))
    testing.assert_allclose(numpy.float32(2.0), numpy.array(2.0, numpy.float32))
    testing.assert_allclose(1.0, 1.0 + 1e-6)


def test_tolerance_is_atol_plus_rtol_times_y():
    x, y = numpy.array([1.5]), numpy.array([1.0])
    testing.assert_allclose(x, y, atol=0.25, rtol=0.25)
    with pytest.raises(AssertionError):
        testing.assert_allclose(x, y, atol=0.125, rtol=0.25)
    testing.assert_allclose(y, x, atol=0.0, rtol=0.4)  # the relative part scales with y, not with x
    with pytest.raises(AssertionError):
        testing.assert_allclose(x, y, atol=0.0, rtol=0.4)


def test_variables_are_compared_by_their_arrays():
    x = chainer.Variable(numpy.ones(3, numpy.float32))
    testing.assert_allclose(x, numpy.ones(3, numpy.float32))
    with pytest.raises(AssertionError, match="dtype: float32 float64"):
        testing.assert_allclose(x, numpy.zeros(3))


def test_no_zero_division_when_y_is_zero():
    with numpy.errstate(divide="raise"), pytest.raises(AssertionError, match=r"relative error\[i\]: inf"):
        testing.assert_allclose(numpy.array([1], numpy.float32), numpy.array([0], numpy.float32))
