"""Linear against Chainer 7.8.1 (golden data from tests/golden/make_nn_loss.py), its lazy input size,
initializers, gradients and errors."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import errors, initializers, nn
from fnet.testing import check_grads

from .nn_loss_golden import assert_close, assert_params_like_chainer, case, params

KEY = fnet.random.key(0)
DTYPES = ["float32", "float64"]


@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_matches_chainer(dtype):
    name = f"linear_{dtype}"
    golden = case(name)
    layer = nn.Linear(3, 4)
    assert_params_like_chainer(name, layer.init(KEY))
    assert_close(layer(params(name), golden["x"]), golden["y"])


@pytest.mark.parametrize("dtype", DTYPES)
def test_lazy_linear_matches_chainer(dtype):
    name = f"linear_lazy_{dtype}"
    golden = case(name)
    layer = nn.Linear(4)
    assert layer.in_size is None and layer.out_size == 4
    assert_params_like_chainer(name, layer.init(KEY, golden["x"]))
    assert_close(layer(params(name), golden["x"]), golden["y"])


@pytest.mark.parametrize("dtype", DTYPES)
def test_linear_without_bias_on_two_batch_axes_matches_chainer(dtype):
    name = f"linear_nobias_batch_axes_{dtype}"
    golden = case(name)
    layer = nn.Linear(6, 2, nobias=True)
    assert_params_like_chainer(name, layer.init(KEY))
    assert_close(layer(params(name), golden["x"], n_batch_axes=2), golden["y"])
    lazy = nn.Linear(2, nobias=True).init(KEY, golden["x"], n_batch_axes=2)
    assert lazy["W"].shape == (2, 6)


def test_linear_default_init_is_lecun_normal_and_zero():
    p = nn.Linear(400, 300).init(KEY)
    assert p["W"].dtype == numpy.float32 and p["b"].dtype == numpy.float32
    assert abs(p["W"].mean()) < 0.002 and abs(p["W"].std() - (1 / 400) ** 0.5) < 0.001
    assert not p["b"].any() and p["b"].shape == (300,)


def test_linear_initial_values():
    w = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    layer = nn.Linear(3, 2, initialW=w, initial_bias=0.5)
    w[...] = -1  # the spec keeps its own copy: changing the caller's array changes nothing
    p = layer.init(KEY)
    numpy.testing.assert_array_equal(p["W"], numpy.arange(6).reshape(2, 3))
    numpy.testing.assert_array_equal(p["b"], [0.5, 0.5])
    assert layer == nn.Linear(
        3, 2, initialW=numpy.arange(6, dtype=numpy.float32).reshape(2, 3), initial_bias=0.5
    )
    assert hash(layer) == hash(nn.Linear(3, 2, initialW=p["W"].copy(), initial_bias=0.5))
    glorot = nn.Linear(3, 2, initialW=initializers.GlorotUniform()).init(KEY)["W"]
    numpy.testing.assert_array_equal(glorot, initializers.GlorotUniform()(fnet.random.split(KEY)[0], (2, 3)))


def test_linear_draws_from_its_key():
    layer = nn.Linear(3, 2)
    numpy.testing.assert_array_equal(layer.init(KEY)["W"], layer.init(KEY)["W"])
    assert (layer.init(KEY)["W"] != layer.init(fnet.random.key(1))["W"]).any()


def test_linear_grads_of_order_two():
    layer = nn.Linear(3, 2)
    rng = numpy.random.RandomState(0)
    p = {"W": rng.uniform(-1, 1, (2, 3)), "b": rng.uniform(-1, 1, 2)}
    check_grads(lambda p, x: layer(p, x), (p, rng.uniform(-1, 1, (4, 3))), order=2)


def test_linear_errors():
    with pytest.raises(errors.InvalidInputError, match="(?s)Linear.init: expected an example input x.*hint"):
        nn.Linear(3).init(KEY)
    with pytest.raises(errors.InvalidInputError, match="as_initializer: expected an initializer"):
        nn.Linear(3, 2, initialW="zeros")
    p = nn.Linear(3, 2).init(KEY)
    with pytest.raises(errors.ShapeError, match="linear"):
        nn.Linear(3, 2)(p, numpy.ones((4, 5), numpy.float32))
    with pytest.raises(errors.DTypeError, match="linear"):
        nn.Linear(3, 2)(p, numpy.ones((4, 3), numpy.float64))
