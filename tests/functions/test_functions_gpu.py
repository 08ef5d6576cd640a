"""fnet.functions on the device under test, compared with the CPU (values, first-order gradients
and a second-order quantity; ``tests/_gpu.py``), from the tables of the CPU tests: the
elementwise activations, softmax and log_softmax, the LSTM cell, the unary math functions, the
pairwise losses, softmax cross entropy, linear, the convolutions, max and average pooling, and
batch normalization, all in float64."""

from __future__ import annotations

import functools

import numpy
import pytest

import fnet.functions as F

from .._gpu import compare_with_cpu
from .test_activation import ELEMENTWISE, LSTM_SHAPES, SOFTMAX_CASES, away_from, normals
from .test_connection import LINEAR_CASES
from .test_connection import rand as connection_rand
from .test_convolution import CONV_CASES, operands
from .test_loss import PAIRWISE, SCE_CASES, normal, sce_inputs
from .test_math import GRAD_SHAPES, UNARY, uniform
from .test_normalization import BN_SHAPES, positive
from .test_normalization import normal as bn_normal
from .test_pooling import AVERAGE_CASES, MAX_CASES, distinct
from .test_pooling import rand as pooling_rand

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_activation_on_device(name, gpu_device):
    fn, _, kinks = ELEMENTWISE[name]
    compare_with_cpu(fn, (away_from(kinks, (3, 4), low=-8.0, high=8.0, gap=0.05),), gpu_device)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_math_on_device(name, gpu_device):
    _, low, high = UNARY[name]
    compare_with_cpu(getattr(F, name), (uniform(low, high, GRAD_SHAPES[-1]),), gpu_device)


@pytest.mark.parametrize("name", sorted(PAIRWISE))
def test_loss_on_device(name, gpu_device):
    fn, _ = PAIRWISE[name]
    compare_with_cpu(fn, (normal(3, 4, seed=1), normal(3, 4, seed=2)), gpu_device)


@pytest.mark.parametrize("shape, n_batch_axes, bias", LINEAR_CASES)
def test_linear_on_device(shape, n_batch_axes, bias, gpu_device):
    n_in = int(numpy.prod(shape[n_batch_axes:]))
    args = [connection_rand(*shape), connection_rand(5, n_in, seed=1)] + (
        [connection_rand(5, seed=2)] if bias else []
    )
    compare_with_cpu(functools.partial(_linear, n_batch_axes=n_batch_axes), tuple(args), gpu_device)


def _linear(x, W, b=None, *, n_batch_axes):
    return F.linear(x, W, b, n_batch_axes=n_batch_axes)


@pytest.mark.parametrize("xshape, wshape, bias, kwargs", CONV_CASES)
def test_convolution_on_device(xshape, wshape, bias, kwargs, gpu_device):
    x, W, b = operands(xshape, wshape, bias, numpy.float64)
    args = (x, W) if b is None else (x, W, b)
    compare_with_cpu(lambda *a: F.convolution_nd(*a, **kwargs), args, gpu_device)


@pytest.mark.parametrize("f, shape, ksize, stride, pad, cover_all", MAX_CASES)
def test_max_pooling_on_device(f, shape, ksize, stride, pad, cover_all, gpu_device):
    compare_with_cpu(lambda x: f(x, ksize, stride, pad, cover_all), (distinct(shape),), gpu_device)


@pytest.mark.parametrize("fn", [F.softmax, F.log_softmax])
@pytest.mark.parametrize("shape, axis", SOFTMAX_CASES)
def test_softmax_on_device(fn, shape, axis, gpu_device):
    (x,) = normals(1, shape)
    compare_with_cpu(lambda x: fn(3 * x, axis=axis), (x,), gpu_device)


@pytest.mark.parametrize("c_shape, x_shape", LSTM_SHAPES)
def test_lstm_on_device(c_shape, x_shape, gpu_device):
    compare_with_cpu(F.lstm, tuple(normals(9, c_shape, x_shape)), gpu_device)


@pytest.mark.parametrize("shape, options", SCE_CASES)
def test_softmax_cross_entropy_on_device(shape, options, gpu_device):
    x, t = sce_inputs(shape)
    if "ignore_label" in options:
        t[t == -1] = options["ignore_label"]
    compare_with_cpu(F.softmax_cross_entropy, (x, t), gpu_device, **options)


@pytest.mark.parametrize("pad_value", [0, None])
@pytest.mark.parametrize("f, shape, ksize, stride, pad", AVERAGE_CASES)
def test_average_pooling_on_device(f, shape, ksize, stride, pad, pad_value, gpu_device):
    compare_with_cpu(lambda x: f(x, ksize, stride, pad, pad_value), (pooling_rand(*shape),), gpu_device)


@pytest.mark.parametrize("shape", BN_SHAPES)
def test_batch_normalization_on_device(shape, gpu_device):
    x = bn_normal(shape, 1, scale=2.0, shift=0.5)
    gamma, beta = positive(shape[1], 2), bn_normal(shape[1], 3)
    compare_with_cpu(F.batch_normalization, (x, gamma, beta), gpu_device)
