"""Convolution layers against Chainer 7.8.1 (golden data from tests/golden/make_nn_connection.py):
parameter names and shapes, default initializers, forward outputs on Chainer's parameters,
gradients, Chainer's argument shifting, and errors."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import errors, initializers, nn
from fnet.testing import check_grads

from .nn_connection_golden import (
    assert_close,
    assert_defaults_like_chainer,
    assert_forward_is_chainers,
    assert_init_like_chainer,
    inputs,
    params,
    shapes,
)

KEY = fnet.random.key(0)

# Each case is built as in make_nn_connection.py; the lazy ones read in_channels from the input.
CASES = {
    "conv2d": lambda: nn.Convolution2D(3, 4, 3, stride=2, pad=1),
    "conv2d_lazy_groups": lambda: nn.Convolution2D(None, 6, (3, 2), dilate=2, groups=2),
    "conv2d_shifted": lambda: nn.Convolution2D(4, 3, nobias=True),
    "conv1d": lambda: nn.Convolution1D(2, 3, 3, pad=1, cover_all=True, stride=2),
    "conv3d": lambda: nn.Convolution3D(2, 3, 2, stride=(1, 2, 1), pad=1),
    "convnd": lambda: nn.ConvolutionND(2, 3, 2, 3, stride=2, cover_all=True),
    "convnd_shifted": lambda: nn.ConvolutionND(1, 3, 2),
    "deconv2d": lambda: nn.Deconvolution2D(3, 4, 3, stride=2, pad=1),
    "deconv2d_outsize": lambda: nn.Deconvolution2D(3, 2, 4, stride=2, pad=1, outsize=(9, 10)),
    "deconv2d_shifted_groups": lambda: nn.Deconvolution2D(4, 3, groups=2),
    "deconv1d": lambda: nn.Deconvolution1D(2, 3, 3, stride=2, dilate=2),
    "deconv3d": lambda: nn.Deconvolution3D(2, 3, 2, stride=2, nobias=True),
    "deconvnd": lambda: nn.DeconvolutionND(2, None, 3, 3, pad=1, groups=1),
    "depthwise": lambda: nn.DepthwiseConvolution2D(3, 2, 3, stride=2, pad=1),
    "depthwise_lazy": lambda: nn.DepthwiseConvolution2D(None, 2, 2),
    "dilated": lambda: nn.DilatedConvolution2D(3, 4, 3, pad=2, dilate=2),
    "dilated_shifted": lambda: nn.DilatedConvolution2D(4, 3, dilate=2),
    "local": lambda: nn.LocalConvolution2D(3, 2, in_size=(5, 6), ksize=3),
    "local_lazy": lambda: nn.LocalConvolution2D(None, 2, ksize=(2, 3), nobias=True),
    "deformable": lambda: nn.DeformableConvolution2D(3, 4, 3, pad=1),
    "deformable_lazy": lambda: nn.DeformableConvolution2D(None, 2, (2, 3), stride=2, deform_nobias=True),
}


def _in_channels(layer) -> int | None:
    return (layer.offset_conv if isinstance(layer, nn.DeformableConvolution2D) else layer).in_channels


LAZY = [name for name, make in CASES.items() if _in_channels(make()) is None]

# Large layers whose default initial values Chainer summarized (mean, std, min, max).
DEFAULTS = {
    "conv2d": lambda: nn.Convolution2D(64, 32, 3),
    "conv3d": lambda: nn.Convolution3D(16, 32, 3),
    "deconv2d": lambda: nn.Deconvolution2D(64, 32, 3),
    "deconvnd": lambda: nn.DeconvolutionND(1, 64, 32, 5),
    "depthwise": lambda: nn.DepthwiseConvolution2D(64, 8, 3),
    "dilated": lambda: nn.DilatedConvolution2D(64, 32, 3),
    "local": lambda: nn.LocalConvolution2D(16, 8, in_size=8, ksize=3),
    "deformable": lambda: nn.DeformableConvolution2D(32, 16, 3),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_params_have_chainers_names_and_shapes(name):
    assert_init_like_chainer(name, CASES[name](), inputs(name)[0])


@pytest.mark.parametrize("name", sorted(CASES))
def test_forward_equals_chainers(name):
    assert_forward_is_chainers(name, CASES[name]())


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_default_initializers_are_chainers(name):
    assert_defaults_like_chainer(name, DEFAULTS[name]())


@pytest.mark.parametrize("name", LAZY)
def test_lazy_layers_need_an_example_input(name):
    with pytest.raises(errors.InvalidInputError, match=r"init needs an example input: call init\(key, x\)"):
        CASES[name]().init(KEY)


def test_params_are_float32_and_a_pure_function_of_the_key():
    conv = nn.Convolution2D(3, 4, 3)
    a, b = conv.init(KEY), conv.init(KEY)
    assert a["W"].dtype == a["b"].dtype == numpy.float32
    numpy.testing.assert_array_equal(a["W"], b["W"])
    assert not numpy.array_equal(a["W"], conv.init(fnet.random.key(1))["W"])


def test_apply_leaves_params_and_input_unchanged():
    layer = nn.DeformableConvolution2D(2, 3, 3, pad=1)
    p = fnet.tree.map(lambda a: a + 0.1, layer.init(KEY))
    x = numpy.random.RandomState(0).standard_normal((1, 2, 4, 4)).astype(numpy.float32)
    before = fnet.tree.map(numpy.copy, (p, x))
    layer(p, x)
    fnet.tree.map(numpy.testing.assert_array_equal, (p, x), before)


# -- Chainer's constructor conventions ---------------------------------------------------------
@pytest.mark.parametrize(
    "shifted, full",
    [
        (lambda: nn.Convolution2D(4, 3), lambda: nn.Convolution2D(None, 4, 3)),
        (lambda: nn.Deconvolution2D(4, 3), lambda: nn.Deconvolution2D(None, 4, 3)),
        (lambda: nn.DilatedConvolution2D(4, 3), lambda: nn.DilatedConvolution2D(None, 4, 3)),
        (lambda: nn.ConvolutionND(3, 4, 2), lambda: nn.ConvolutionND(3, None, 4, 2)),
        (lambda: nn.DeconvolutionND(1, 4, 2), lambda: nn.DeconvolutionND(1, None, 4, 2)),
    ],
)
def test_out_channels_and_ksize_alone_mean_in_channels_none(shifted, full):
    assert shifted() == full()
    assert shifted().in_channels is None and shifted().out_channels == 4


def test_dimension_specific_layers_are_the_nd_ones():
    assert nn.Convolution1D(2, 3, 4).ndim == 1 and nn.Convolution3D(2, 3, 4).ndim == 3
    assert nn.Deconvolution1D(2, 3, 4).ndim == 1 and nn.Deconvolution3D(2, 3, 4).ndim == 3
    assert isinstance(nn.Convolution3D(2, 3, 4), nn.ConvolutionND)


def test_initialW_and_initial_bias_take_numbers_arrays_and_initializers():
    w = numpy.arange(8, dtype=numpy.float32).reshape(2, 1, 2, 2)
    p = nn.Convolution2D(1, 2, 2, initialW=w, initial_bias=initializers.One()).init(KEY)
    numpy.testing.assert_array_equal(p["W"], w)
    numpy.testing.assert_array_equal(p["b"], numpy.ones(2, numpy.float32))
    p = nn.Deconvolution2D(1, 2, 2, initialW=0.5, initial_bias=-1).init(KEY)
    assert p["W"].shape == (1, 2, 2, 2) and (p["W"] == 0.5).all() and (p["b"] == -1).all()
    assert "b" not in nn.DepthwiseConvolution2D(3, 2, 3, nobias=True).init(KEY)


def test_depthwise_bias_has_one_entry_per_output_channel():
    p = nn.DepthwiseConvolution2D(3, 2, 3).init(KEY)
    assert p["W"].shape == (2, 3, 3, 3) and p["b"].shape == (6,)


def test_untrained_deformable_convolution_outputs_its_zero_bias():
    layer = nn.DeformableConvolution2D(2, 3, 3, pad=1)
    y = layer(layer.init(KEY), numpy.ones((1, 2, 4, 4), numpy.float32))
    assert y.shape == (1, 3, 4, 4) and not y.any()


def test_local_convolution_sizes_its_output_by_the_stride():
    # Chainer's link ignores the stride when it sizes W, and then fails in forward.
    layer = nn.LocalConvolution2D(2, 3, in_size=(7, 6), ksize=3, stride=2)
    p = layer.init(KEY)
    assert p["W"].shape == (3, 3, 2, 2, 3, 3) and p["b"].shape == (3, 3, 2)
    assert layer(p, numpy.ones((4, 2, 7, 6), numpy.float32)).shape == (4, 3, 3, 2)


# -- gradients ---------------------------------------------------------------------------------
def _float64(tree):
    return fnet.tree.map(lambda a: numpy.asarray(a, numpy.float64), tree)


@pytest.mark.parametrize(
    "layer, x_shape, order",
    [
        (nn.Convolution2D(2, 3, 2, stride=2, pad=1, groups=1), (2, 2, 3, 3), 2),
        (nn.Deconvolution2D(2, 2, 3, stride=2, pad=1), (1, 2, 2, 2), 1),
        (nn.ConvolutionND(1, 2, 2, 3, dilate=2), (2, 2, 6), 1),
        (nn.LocalConvolution2D(2, 2, in_size=3, ksize=2), (2, 2, 3, 3), 1),
        (nn.DeformableConvolution2D(1, 2, 2), (1, 1, 3, 3), 1),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, nn.Layer) else None,
)
def test_gradients_through_the_layer(layer, x_shape, order):
    rng = numpy.random.RandomState(0)
    p = fnet.tree.map(lambda a: rng.standard_normal(a.shape) * 0.5, layer.init(KEY))
    x = rng.standard_normal(x_shape)
    check_grads(lambda p, x: layer(p, x), (_float64(p), x), order=order)


def test_golden_case_gradient_runs_through_the_parameters():
    layer = CASES["conv2d"]()
    p, (x,) = params("conv2d"), inputs("conv2d")
    grads = fnet.grad(lambda p: fnet.ops.sum(layer(p, x) ** 2))(p)
    assert shapes(grads) == shapes(p)
    assert_close(grads["b"], (2 * layer(p, x)).sum(axis=(0, 2, 3)))


# -- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make, pattern",
    [
        (
            lambda: nn.Convolution2D(3, 4, 3, groups=2),
            r"Convolution2D: expected groups=2 to divide in_channels",
        ),
        (lambda: nn.Convolution2D(4, 6, 3, groups=4), r"expected groups=4 to divide out_channels"),
        (lambda: nn.Convolution2D(3, 0, 3), r"expected out_channels to be a positive int, got 0"),
        (lambda: nn.Convolution2D(-1, 4, 3), r"expected in_channels to be a positive int or None, got -1"),
        (lambda: nn.Convolution2D(3, 4, (3,)), r"expected ksize to be a positive int or a sequence of 2"),
        (lambda: nn.ConvolutionND(0, 3, 4, 3), r"ConvolutionND: expected ndim to be a positive int"),
        (lambda: nn.Convolution3D(3, 4, (3, 3)), r"Convolution3D: expected ksize .* sequence of 3"),
        (lambda: nn.DeconvolutionND(2, 3, 4, 3, groups=0), r"expected groups to be a positive int"),
        (lambda: nn.LocalConvolution2D(3, 2), r"LocalConvolution2D: expected ksize to be a positive int"),
        (lambda: nn.DepthwiseConvolution2D(3, 2.0, 3), r"expected channel_multiplier to be a positive int"),
    ],
)
def test_bad_hyperparameters_are_named(make, pattern):
    with pytest.raises(errors.InvalidInputError, match=pattern):
        make()


def test_lazy_group_count_must_divide_the_inferred_channels():
    with pytest.raises(errors.InvalidInputError, match=r"groups=2 to divide in_channels, got in_channels=3"):
        nn.Convolution2D(None, 4, 3, groups=2).init(KEY, numpy.ones((1, 3, 5, 5), numpy.float32))


def test_example_input_needs_a_channel_axis():
    with pytest.raises(
        errors.ShapeError, match=r"Convolution2D: expected an example input x with a batch axis"
    ):
        nn.Convolution2D(4, 3).init(KEY, numpy.ones(5, numpy.float32))


def test_local_convolution_kernel_must_fit_the_input():
    with pytest.raises(
        errors.ShapeError, match=r"expected the kernel \(3, 3\) to fit the input images \(2, 5\)"
    ):
        nn.LocalConvolution2D(2, 3, in_size=(2, 5), ksize=3).init(KEY)


def test_input_of_the_wrong_size_is_reported_by_the_function():
    conv = nn.Convolution2D(3, 4, 3)
    with pytest.raises(errors.ShapeError, match=r"convolution_2d: expected x.shape\[1\] == W.shape\[1\]"):
        conv(conv.init(KEY), numpy.ones((1, 2, 5, 5), numpy.float32))
