"""Tests of fnet.distributions.utils.xlogx: x log x with its limit 0 at 0."""

from __future__ import annotations

import warnings

import numpy
import pytest

import fnet
from fnet.distributions.utils import xlogx
from fnet.errors import DTypeError
from fnet.testing import check_grads

X = numpy.random.RandomState(17).uniform(0.1, 2.0, size=(2, 3))


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_values_and_the_limit_at_zero(dtype):
    x = X.astype(dtype)
    y = xlogx(x)
    assert y.dtype == dtype
    numpy.testing.assert_array_max_ulp(y, x * numpy.log(x), maxulp=2)  # one product, one log
    edge = xlogx(numpy.array([0.0, -1.0], dtype))
    assert edge.tolist() == [0.0, 0.0] and not numpy.isnan(edge).any()


def test_gradients_to_second_order():
    check_grads(xlogx, (X,), order=2)


def test_the_derivative_at_zero_is_zero_and_warns():
    with pytest.warns(RuntimeWarning, match="xlogx: x \\* log\\(x\\) has no finite derivative at x = 0"):
        g = fnet.grad(lambda x: xlogx(x).sum())(numpy.array([0.0, 1.0]))
    assert g.tolist() == [0.0, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # away from 0: no warning
        fnet.grad(lambda x: xlogx(x).sum())(X)


def test_an_integer_x_is_a_dtype_error():
    with pytest.raises(DTypeError, match="xlogx"):
        xlogx(numpy.array([1, 2]))
