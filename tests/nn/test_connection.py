"""Connection and activation layers against Chainer 7.8.1 (golden data from
tests/golden/make_nn_connection.py): Bilinear, EmbedID, Highway, Inception, InceptionBN,
MLPConvolution2D, Maxout, PReLU, Scale, Bias, Swish, SimplifiedDropconnect, Parameter."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import errors, initializers, nn
from fnet import functions as F
from fnet.testing import check_grads

from .nn_connection_golden import (
    assert_close,
    assert_defaults_like_chainer,
    assert_forward_is_chainers,
    assert_init_like_chainer,
    assert_tree_close,
    case,
    inputs,
    params,
    shapes,
    state,
)

KEY = fnet.random.key(0)

# name -> (layer as built in make_nn_connection.py, whether init reads an example input)
CASES = {
    "bilinear": (lambda: nn.Bilinear(3, 4, 5), False),
    "bilinear_nobias": (lambda: nn.Bilinear(2, 3, 2, nobias=True), False),
    "embed_id": (lambda: nn.EmbedID(6, 4, ignore_label=-1), False),
    "highway": (lambda: nn.Highway(5), False),
    "highway_tanh": (lambda: nn.Highway(4, activate=F.tanh), False),
    "inception": (lambda: nn.Inception(4, 2, 2, 3, 2, 2, 2), False),
    "mlpconv": (lambda: nn.MLPConvolution2D(3, (4, 5, 2), 3, pad=1), False),
    "mlpconv_shifted": (lambda: nn.MLPConvolution2D((4, 2), 2, activation=F.tanh), True),
    "maxout": (lambda: nn.Maxout(4, 3, 2), False),
    "maxout_nobias": (lambda: nn.Maxout(6, 2, 3, initial_bias=None), False),
    "prelu": (lambda: nn.PReLU((3,)), False),
    "prelu_scalar": (lambda: nn.PReLU(), False),
    "scale": (lambda: nn.Scale(axis=1, W_shape=(3,), bias_term=True), False),
    "scale_two": (lambda: nn.Scale(axis=1), False),
    "scale_two_bias": (lambda: nn.Scale(axis=2, bias_term=True, bias_shape=(4,)), False),
    "bias": (lambda: nn.Bias(axis=1, shape=(3, 4)), False),
    "bias_two": (lambda: nn.Bias(axis=0), False),
    "swish": (lambda: nn.Swish((3,)), False),
    "swish_lazy": (lambda: nn.Swish(None), True),
    "parameter": (lambda: nn.Parameter(numpy.arange(6.0).reshape(2, 3)), False),
    # Chainer ran these in float64 (its config dtype), which its normalizations take as dtype=None.
    "inception_bn": (
        lambda: nn.InceptionBN(4, 2, 2, 3, 2, 2, "max", proj_pool=2, dtype=numpy.float64),
        False,
    ),
    "inception_bn_avg": (
        lambda: nn.InceptionBN(4, 0, 2, 3, 2, 2, "avg", stride=2, dtype=numpy.float64),
        False,
    ),
    "dropconnect_mask": (lambda: nn.SimplifiedDropconnect(6, 3, ratio=0.3), False),
    "dropconnect_mask2": (lambda: nn.SimplifiedDropconnect(None, 3, ratio=0.6, nobias=True), True),
    "dropconnect_test": (lambda: nn.SimplifiedDropconnect(6, 3), False),
}
STATELESS = [name for name in CASES if not name.startswith(("inception_bn", "dropconnect"))]

DEFAULTS = {
    "bilinear": lambda: nn.Bilinear(20, 30, 40),
    "embed_id": lambda: nn.EmbedID(300, 100),
    "highway": lambda: nn.Highway(200),
    "inception": lambda: nn.Inception(32, 16, 8, 16, 8, 16, 8),
    "inception_bn": lambda: nn.InceptionBN(32, 16, 8, 16, 8, 16, "max", proj_pool=8),
    "mlpconv": lambda: nn.MLPConvolution2D(32, (64, 32), 3),
    "maxout": lambda: nn.Maxout(200, 50, 4),
    "prelu": lambda: nn.PReLU((10,)),
    "scale": lambda: nn.Scale(W_shape=(10,), bias_term=True),
    "bias": lambda: nn.Bias(shape=(10,)),
    "swish": lambda: nn.Swish((10,)),
    "dropconnect": lambda: nn.SimplifiedDropconnect(300, 100),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_params_have_chainers_names_and_shapes(name):
    make, lazy = CASES[name]
    assert_init_like_chainer(name, make(), inputs(name)[0] if lazy else None)


@pytest.mark.parametrize("name", STATELESS)
def test_forward_equals_chainers(name):
    assert_forward_is_chainers(name, CASES[name][0]())


@pytest.mark.parametrize("name", sorted(DEFAULTS))
def test_default_initializers_are_chainers(name):
    assert_defaults_like_chainer(name, DEFAULTS[name]())


def test_lazy_layers_need_an_example_input():
    for layer in (nn.Swish(None), nn.SimplifiedDropconnect(None, 3), nn.MLPConvolution2D((4,), 3)):
        with pytest.raises(errors.InvalidInputError, match=r"init needs an example input"):
            layer.init(KEY)
    maxout = nn.Maxout(None, 2, 3).init(KEY, numpy.ones((1, 2, 5)))
    assert maxout["linear"]["W"].shape == (6, 10)
    inception = nn.Inception(None, 1, 1, 1, 1, 1, 1).init(KEY, numpy.ones((1, 3, 4, 4)))
    assert inception["projp"]["W"].shape == (1, 3, 1, 1) and inception["conv3"]["W"].shape == (1, 1, 3, 3)


# -- InceptionBN: state ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["inception_bn", "inception_bn_avg"])
def test_inception_bn_trains_and_infers_as_chainer(name):
    layer = CASES[name][0]()
    assert layer.stateful and shapes(layer.init_state()) == shapes(state(name))
    (x,) = inputs(name)
    initial = layer.init_state()
    before = fnet.tree.map(numpy.copy, initial)
    y, new_state = layer(params(name), x, initial, train=True)
    assert_close(y, case(name)["out"])
    assert_tree_close(new_state, state(name))
    fnet.tree.map(numpy.testing.assert_array_equal, initial, before)  # the given state is not changed
    y_test, same = layer(params(name), x, new_state, train=False)
    assert_close(y_test, case(name)["out_test"])
    fnet.tree.map(numpy.testing.assert_array_equal, same, new_state)


def test_inception_is_stateless_and_inception_bn_children_are_optional():
    assert not nn.Inception(4, 2, 2, 3, 2, 2, 2).stateful
    layer = nn.InceptionBN(4, 0, 2, 3, 2, 2, "avg", stride=2)
    assert layer.conv1 is None and layer.poolp is None
    assert sorted(layer.init_state()) == ["conv33an", "conv33bn", "conv3n", "proj33n", "proj3n"]
    assert layer.init_state()["conv3n"]["avg_mean"].dtype == numpy.float32
    assert layer.init(KEY)["conv3"]["W"].dtype == numpy.float32


# -- SimplifiedDropconnect: explicit randomness ------------------------------------------------
def test_dropconnect_with_chainers_masks_and_in_test_mode():
    make = CASES["dropconnect_mask"][0]
    assert_forward_is_chainers("dropconnect_mask", make(), mask=case("dropconnect_mask")["mask"])
    masked = CASES["dropconnect_mask2"][0]()
    mask = case("dropconnect_mask2")["mask"]
    assert_forward_is_chainers("dropconnect_mask2", masked, mask=mask, use_batchwise_mask=False)
    assert_forward_is_chainers("dropconnect_test", CASES["dropconnect_test"][0](), train=False)


def test_dropconnect_draws_its_mask_from_the_key():
    layer = nn.SimplifiedDropconnect(4, 3, ratio=0.5)
    p = layer.init(KEY)
    x = numpy.ones((2000, 4), numpy.float32)
    k1, k2 = fnet.random.split(KEY)
    y1 = layer(p, x, key=k1)
    numpy.testing.assert_array_equal(y1, layer(p, x, key=k1))
    assert not numpy.array_equal(y1, layer(p, x, key=k2))
    # Kept weights are scaled by 1 / (1 - ratio): on average, the plain linear layer.
    numpy.testing.assert_allclose(y1.mean(axis=0), layer(p, x[:1], train=False)[0], atol=0.15)
    with pytest.raises(errors.InvalidInputError, match=r"simplified_dropconnect: expected a random key"):
        layer(p, x)


# -- other constructor conventions -------------------------------------------------------------
def test_mlp_convolution_shifts_its_arguments_like_chainer():
    assert nn.MLPConvolution2D((4, 2), 3) == nn.MLPConvolution2D(None, (4, 2), 3)
    layer = nn.MLPConvolution2D(3, (4, 2), 5, stride=2, pad=1, conv_init=0.5, bias_init=1.0)
    assert [(c.ksize, c.stride, c.pad) for c in layer.convs] == [(5, 2, 1), (1, 1, 0)]
    p = layer.init(KEY)
    assert (p["1"]["W"] == 0.5).all() and (p["0"]["b"] == 1).all()


def test_maxout_takes_initial_arrays_in_its_own_layout():
    w = numpy.arange(24, dtype=numpy.float32).reshape(3, 2, 4)  # (out_size, pool_size, in_size)
    b = numpy.arange(6, dtype=numpy.float32).reshape(3, 2)
    p = nn.Maxout(4, 3, 2, initialW=w, initial_bias=b).init(KEY)["linear"]
    numpy.testing.assert_array_equal(p["W"], w.reshape(6, 4))
    numpy.testing.assert_array_equal(p["b"], b.ravel())
    x = numpy.eye(4, dtype=numpy.float32)[:1]
    y = nn.Maxout(4, 3, 2, initialW=w, initial_bias=b)({"linear": p}, x)
    numpy.testing.assert_array_equal(y, [[5, 15, 25]])  # W[:, 0] + b = 0, 5, 10, 15, 20, 25: max of pairs


def test_bilinear_initial_bias_is_a_triple():
    p = nn.Bilinear(2, 3, 4, initial_bias=(None, initializers.One(), 0.5)).init(KEY)
    assert p["V1"].std() > 0 and (p["V2"] == 1).all() and (p["b"] == 0.5).all()  # None: LeCun normal
    assert sorted(nn.Bilinear(2, 3, 4, nobias=True).init(KEY)) == ["W"]


def test_highway_gate_bias_starts_at_minus_one():
    p = nn.Highway(3).init(KEY)
    assert (p["transform"]["b"] == -1).all() and (p["plain"]["b"] == 0).all()
    assert sorted(nn.Highway(3, nobias=True).init(KEY)["plain"]) == ["W"]


def test_scale_and_bias_defaults_and_children():
    assert nn.Scale(W_shape=3, bias_term=True).bias == nn.Bias(1, 3)
    p = nn.Scale(axis=2, bias_term=True, bias_shape=(4,)).init(KEY)
    assert shapes(p) == {"bias/b": (4,)} and not p["bias"]["b"].any()
    assert nn.Bias().init(KEY) == {} and nn.Scale().bias is None


def test_prelu_and_swish_start_at_their_init():
    numpy.testing.assert_array_equal(
        nn.PReLU((2,), init=0.1).init(KEY)["W"], numpy.full(2, 0.1, numpy.float32)
    )
    assert nn.PReLU().init(KEY)["W"].shape == ()
    beta = nn.Swish(None, beta_init=2.0).init(KEY, numpy.ones((5, 3, 4)))["beta"]
    numpy.testing.assert_array_equal(beta, numpy.full((3, 4), 2.0, numpy.float32))


def test_parameter_keeps_and_returns_copies_of_its_array():
    array = numpy.arange(3.0)
    layer = nn.Parameter(array)
    array[1] = 5.0
    p = layer.init(KEY)
    assert layer(p) is p["W"]
    p["W"][0] = 10.0
    numpy.testing.assert_array_equal(layer.array, [0, 1, 2])
    assert layer == nn.Parameter(numpy.arange(3.0)) and layer != nn.Parameter(array)


def test_initial_arrays_are_copied_into_the_spec():
    w = numpy.ones((2, 1, 1, 1), numpy.float32)
    conv = nn.Convolution2D(1, 2, 1, initialW=w)
    w[...] = 3.0
    assert conv == nn.Convolution2D(1, 2, 1, initialW=numpy.ones((2, 1, 1, 1), numpy.float32))
    numpy.testing.assert_array_equal(conv.init(KEY)["W"], numpy.ones((2, 1, 1, 1)))
    assert nn.Bilinear(1, 1, 1, initial_bias=(0, 0, 1)) == nn.Bilinear(1, 1, 1, initial_bias=(0, 0, 1))


def test_embed_id_ignores_its_label_in_forward_and_gradient():
    layer = nn.EmbedID(5, 2, ignore_label=-1)
    p = layer.init(KEY)
    ids = numpy.array([0, -1, 0], numpy.int32)
    grads = fnet.grad(lambda p: fnet.ops.sum(layer(p, ids)))(p)
    numpy.testing.assert_array_equal(grads["W"][:, 0], [2, 0, 0, 0, 0])


# -- gradients ---------------------------------------------------------------------------------
def _float64_params(layer, rng, x=None):
    made = layer.init(KEY) if x is None else layer.init(KEY, x)
    return fnet.tree.map(lambda a: rng.standard_normal(numpy.shape(a)) * 0.5, made)


@pytest.mark.parametrize(
    "layer, shapes_in, order",
    [
        (nn.Bilinear(2, 3, 2), [(3, 2), (3, 3)], 2),
        (nn.Highway(3, activate=F.tanh), [(2, 3)], 2),
        (nn.Maxout(3, 2, 2), [(4, 3)], 1),
        (nn.PReLU((2,)), [(3, 2, 2)], 1),
        (nn.Swish((2,)), [(3, 2)], 2),
        (nn.Scale(W_shape=(2,), bias_term=True), [(3, 2, 2)], 2),
        (nn.MLPConvolution2D(1, (2, 1), 2, activation=F.tanh), [(1, 1, 3, 3)], 1),
        (nn.Inception(1, 1, 1, 1, 1, 1, 1), [(1, 1, 3, 3)], 1),
    ],
    ids=lambda value: type(value).__name__ if isinstance(value, nn.Layer) else None,
)
def test_gradients_through_the_layer(layer, shapes_in, order):
    rng = numpy.random.RandomState(0)
    xs = [rng.standard_normal(shape) for shape in shapes_in]
    check_grads(lambda p, *xs: layer(p, *xs), (_float64_params(layer, rng), *xs), order=order)


def test_gradients_through_inception_bn_in_training():
    layer = nn.InceptionBN(2, 1, 1, 1, 1, 1, "max", proj_pool=1, dtype=numpy.float64)
    rng = numpy.random.RandomState(0)
    p = fnet.tree.map(lambda a: a + 0.3 * rng.standard_normal(a.shape), _float64_params(layer, rng))
    state0 = layer.init_state()
    check_grads(lambda p, x: layer(p, x, state0)[0], (p, rng.standard_normal((3, 2, 3, 3))), order=1)


# -- errors ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "make, error, pattern",
    [
        (
            lambda: nn.InceptionBN(4, 2, 2, 3, 2, 2, "sum", 2),
            errors.InvalidInputError,
            r"pooltype 'max' or 'avg'",
        ),
        (
            lambda: nn.InceptionBN(4, 2, 2, 3, 2, 2, "max"),
            errors.InvalidInputError,
            r"needs stride == 1 and a proj_pool",
        ),
        (
            lambda: nn.Bilinear(2, 3, 4, initial_bias=0),
            errors.InvalidInputError,
            r"initial_bias to be None or a tuple",
        ),
        (
            lambda: nn.Maxout(4, 3, 2, initialW=numpy.ones((6, 4))),
            errors.ShapeError,
            r"Maxout: expected initialW.ndim == 3",
        ),
        (lambda: nn.Maxout(4, 3, 0), errors.InvalidInputError, r"expected pool_size to be a positive int"),
        (
            lambda: nn.Scale(bias_term=True),
            errors.InvalidInputError,
            r"expected bias_shape with bias_term=True",
        ),
        (
            lambda: nn.MLPConvolution2D(3, (), 3),
            errors.InvalidInputError,
            r"out_channels to be a non-empty sequence",
        ),
        (
            lambda: nn.SimplifiedDropconnect(3, 2, ratio=1.0),
            errors.InvalidInputError,
            r"expected 0 <= ratio < 1",
        ),
        (
            lambda: nn.EmbedID(0, 3),
            errors.InvalidInputError,
            r"EmbedID: expected in_size to be a positive int",
        ),
        (
            lambda: nn.Parameter([1.0, 2.0]),
            errors.InvalidInputError,
            r"Parameter: expected an array, got list",
        ),
    ],
)
def test_bad_hyperparameters_are_named(make, error, pattern):
    with pytest.raises(error, match=pattern):
        make()


def test_learned_or_given_second_operand_but_not_both():
    x = numpy.ones((2, 3), numpy.float32)
    with pytest.raises(errors.InvalidInputError, match=r"Scale.apply: expected no second input y"):
        nn.Scale(W_shape=(3,))(nn.Scale(W_shape=(3,)).init(KEY), x, x[0])
    with pytest.raises(errors.InvalidInputError, match=r"Bias.apply: expected a second input y"):
        nn.Bias()({}, x)


def test_inputs_of_the_wrong_size_are_reported_by_the_functions():
    layer = nn.Highway(3)
    with pytest.raises(errors.ShapeError, match=r"linear: expected the features of x"):
        layer(layer.init(KEY), numpy.ones((2, 4), numpy.float32))
    embed = nn.EmbedID(3, 2)
    with pytest.raises(errors.InvalidInputError, match=r"embed_id: label 3 in x is out of range"):
        embed(embed.init(KEY), numpy.array([3], numpy.int32))
