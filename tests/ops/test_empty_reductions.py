"""Reductions over empty arrays: NumPy's values where NumPy gives one (the mean of nothing is NaN,
with a RuntimeWarning), a typed error naming the function, the axis and the shape where NumPy
raises (max, min, argmax, argmin, logsumexp of nothing), in ops, fnet.functions and compat F."""

from __future__ import annotations

import warnings

import numpy
import pytest

import fnet
import fnet.compat as chainer
import fnet.compat.functions as CF
from fnet import functions as F
from fnet import ops
from fnet.errors import InvalidInputError, ShapeError

X = numpy.zeros((3, 0), numpy.float32)  # axis 1 is empty, axis 0 is not
EMPTY_AXES = [None, 1, (0, 1)]


def _mean_of(layer):
    return {"ops": ops.mean, "functions": F.mean, "average": F.average, "compat": CF.mean}[layer]


@pytest.mark.parametrize("layer", ["ops", "functions", "average", "compat"])
@pytest.mark.parametrize("axis", EMPTY_AXES)
def test_the_mean_of_nothing_is_nan_with_numpys_warning(layer, axis):
    with pytest.warns(RuntimeWarning, match=r"mean.*empty"):
        y = _mean_of(layer)(X, axis=axis)
    y = getattr(y, "array", y)
    with pytest.warns(RuntimeWarning):
        expected = numpy.mean(X, axis=axis)
    assert y.dtype == expected.dtype == numpy.float32 and y.shape == expected.shape
    assert numpy.isnan(y).all()


def test_the_mean_along_a_nonempty_axis_of_an_empty_array_is_empty_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert ops.mean(X, axis=0).shape == (0,)
        assert CF.mean(X, axis=0).shape == (0,)


@pytest.mark.parametrize("axis", EMPTY_AXES)
def test_the_gradient_of_the_mean_of_nothing_is_an_empty_array(axis):
    with pytest.warns(RuntimeWarning):
        g = fnet.grad(lambda x: ops.sum(ops.mean(x, axis=axis)))(X)
    assert g.shape == X.shape and g.dtype == X.dtype
    x = chainer.Variable(X.copy())
    with pytest.warns(RuntimeWarning):
        y = CF.sum(CF.mean(x, axis=axis))
    y.backward()
    assert x.grad.shape == X.shape


def test_the_mean_of_an_empty_integer_array_is_float64_nan_as_numpy():
    with pytest.warns(RuntimeWarning):
        y = ops.mean(numpy.zeros(0, numpy.int32))
    assert y.dtype == numpy.float64 and numpy.isnan(y)


NO_IDENTITY = {  # name -> (ops, fnet.functions, compat F)
    "max": (ops.max, F.max, CF.max),
    "min": (ops.min, F.min, CF.min),
    "argmax": (ops.argmax, F.argmax, CF.argmax),
    "argmin": (ops.argmin, F.argmin, CF.argmin),
    "logsumexp": (ops.logsumexp, F.logsumexp, CF.logsumexp),
}


@pytest.mark.parametrize("layer", [0, 1, 2], ids=["ops", "functions", "compat"])
@pytest.mark.parametrize("name", sorted(NO_IDENTITY))
@pytest.mark.parametrize("axis", [None, 1])
def test_reductions_without_identity_over_nothing_raise_a_typed_error(name, layer, axis):
    f = NO_IDENTITY[name][layer]
    with pytest.raises(InvalidInputError) as info:  # a ValueError, as NumPy's and Chainer's
        f(X, axis=axis)
    text = str(info.value)
    assert text.startswith(f"{name}: ")
    assert "x.shape=(3, 0)" in text and "axis=" in text and "hint:" in text
    assert ("axis 1 of x has length 0" if axis is not None else "x is empty") in text
    if layer < 2:
        assert isinstance(info.value, ShapeError)
    else:
        assert isinstance(info.value, chainer.utils.type_check.InvalidType)


def test_typed_errors_also_on_traced_values():
    with pytest.raises(ShapeError, match=r"max: .*axis 1 of x has length 0"):
        fnet.grad(lambda x: ops.sum(ops.max(x, axis=1)))(X)
    with pytest.raises(ShapeError, match=r"argmax: .*axis 0 of x has length 0"):
        ops.argmax(numpy.zeros((0, 3)), 0)


@pytest.mark.parametrize("name", sorted(NO_IDENTITY))
def test_reducing_a_nonempty_axis_of_an_empty_array_is_no_error(name):
    for f in NO_IDENTITY[name]:
        y = f(X, axis=0)
        assert getattr(y, "shape", None) == (0,)
