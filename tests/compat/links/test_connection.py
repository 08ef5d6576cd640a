"""Connection and activation links: Chainer's attributes and constructor forms, initial values,
children, and training through an optimizer."""

import inspect

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.functions as F
import fnet.compat.links as L
from fnet import nn
from fnet.compat import optimizers


def ones(*shape):
    return numpy.ones(shape, numpy.float32)


def test_linear_attributes_and_str():
    link = L.Linear(3, 4, nobias=True)
    assert (link.in_size, link.out_size, link.b) == (3, 4, None)
    assert str(L.Linear(3, 4)) == "Linear(in_size=3, out_size=4, nobias=False)"
    assert [name for name, _ in link.namedparams()] == ["/W"]


def test_initial_values_of_every_kind():
    W = numpy.arange(12, dtype=numpy.float32).reshape(4, 3)
    link = L.Linear(3, 4, initialW=W, initial_bias=0.5)
    numpy.testing.assert_array_equal(link.W.array, W)
    numpy.testing.assert_array_equal(link.b.array, numpy.full(4, 0.5))

    class Twos(chainer.initializers.Initializer):  # a Chainer-style initializer: fills in place
        def __call__(self, array):
            array[...] = 2

    link = L.Convolution2D(2, 3, 1, initialW=Twos(), initial_bias=chainer.initializers.One())
    numpy.testing.assert_array_equal(link.W.array, numpy.full((3, 2, 1, 1), 2))
    numpy.testing.assert_array_equal(link.b.array, numpy.ones(3))


def test_from_params():
    W, b = numpy.ones((4, 3), numpy.float32), numpy.zeros(4, numpy.float32)
    link = L.Linear.from_params(W, b)
    assert (link.in_size, link.out_size) == (3, 4)
    with pytest.raises(ValueError, match="does not match the size of `b`"):
        L.Linear.from_params(W, numpy.zeros(3, numpy.float32))
    conv = L.Convolution2D.from_params(numpy.ones((6, 2, 3, 3), numpy.float32), groups=2)
    assert (conv.in_channels, conv.out_channels, conv.groups) == (4, 6, 2)
    nd = L.ConvolutionND.from_params(numpy.ones((3, 2, 2, 2, 2), numpy.float32), cover_all=True)
    assert nd.ksize == (2, 2, 2) and nd.cover_all
    embed = L.EmbedID.from_params(numpy.ones((5, 2), numpy.float32), ignore_label=-1)
    assert embed.ignore_label == -1 and embed.W.shape == (5, 2)


def test_embed_id_without_ignore_label_ignores_no_id():
    """An old pickle's EmbedID lacks the attribute: deleted, it is Chainer's class default None."""
    embed = L.EmbedID(3, 4, ignore_label=0)
    del embed.ignore_label
    assert embed.ignore_label is None
    y = embed(numpy.arange(2, dtype=numpy.int32))
    numpy.testing.assert_array_equal(y.array, embed.W.array[:2])


def test_convolution_attributes_as_chainer_keeps_them():
    conv = L.Convolution2D(3, 4, 3, stride=2, pad=1)
    assert (conv.ksize, conv.stride, conv.pad, conv.dilate, conv.groups) == (3, (2, 2), (1, 1), (1, 1), 1)
    assert str(conv).startswith("Convolution2D(in_channels=3, out_channels=4, ksize=3, stride=(2, 2)")
    lazy = L.Convolution2D(4, 3)
    assert (lazy.in_channels, lazy.out_channels, lazy.ksize) == (None, 4, 3)
    nd = L.ConvolutionND(3, 2, 4, 2, stride=2)
    assert (nd.ksize, nd.dilate, nd.stride) == ((2, 2, 2), (1, 1, 1), 2)
    deconv = L.Deconvolution2D(2, 3, 4, stride=2)
    assert (deconv.outsize, deconv.stride) == ((None, None), (2, 2))
    assert L.DeconvolutionND(1, 2, 3, 4, outsize=(9,)).outsize == (9,)
    depthwise = L.DepthwiseConvolution2D(None, 2, 3)
    assert depthwise(ones(1, 3, 5, 5)).shape == (1, 6, 3, 3) and depthwise.channel_multiplier == 2
    local = L.LocalConvolution2D(None, 2, ksize=3, stride=2)
    assert local.stride == (2, 2) and local(ones(1, 3, 7, 7)).shape == (1, 2, 3, 3)
    assert L.DilatedConvolution2D(2, 3, 3, dilate=2).dilate == (2, 2)


def test_composites_have_children_of_chainers_classes():
    highway = L.Highway(3)
    assert isinstance(highway.plain, L.Linear) and isinstance(highway.transform, L.Linear)
    numpy.testing.assert_array_equal(highway.transform.b.array, numpy.full(3, -1))  # init_bt
    block = L.InceptionBN(3, 2, 2, 2, 2, 2, "max", proj_pool=2)
    assert isinstance(block.conv3n, L.BatchNormalization) and block.conv3.b is None
    assert (block.out1, block.proj_pool, block.stride, block.pooltype) == (2, 2, 1, "max")
    assert L.InceptionBN(3, 0, 2, 2, 2, 2, "avg", stride=2).out1 == 0
    deformable = L.DeformableConvolution2D(2, 3, 3)
    assert deformable.offset_conv.W.shape == (18, 2, 3, 3) and deformable.deform_conv.W.array.max() == 0
    scale = L.Scale(W_shape=(3,), bias_term=True)
    assert isinstance(scale.bias, L.Bias) and scale.axis == 1
    mlp = L.MLPConvolution2D(3, (4, 5), 3)
    assert len(mlp) == 2 and isinstance(mlp[1], L.Convolution2D) and mlp[1].ksize == 1


def test_a_child_computes_on_its_own():
    highway = L.Highway(3)
    x = ones(2, 3)
    plain = highway.plain(x)
    numpy.testing.assert_allclose(plain.array, x @ highway.plain.W.array.T + highway.plain.b.array, rtol=1e-6)


def test_activations_given_as_chainer_functions_or_on_variables():
    x = numpy.random.RandomState(0).randn(2, 3).astype(numpy.float32)
    for activate in (F.tanh, lambda h: F.tanh(h) * 1.0):
        highway = L.Highway(3, activate=activate)
        gate = F.sigmoid(highway.transform(x))
        expected = F.tanh(highway.plain(x)) * gate + x * (1 - gate)
        numpy.testing.assert_allclose(highway(x).array, expected.array, rtol=1e-6)
    mlp = L.MLPConvolution2D(3, (4, 5), 3, activation=F.sigmoid)
    y = mlp(ones(1, 3, 5, 5))
    numpy.testing.assert_allclose(y.array, mlp[1](F.sigmoid(mlp[0](ones(1, 3, 5, 5)))).array, rtol=1e-6)
    assert mlp.activation is F.sigmoid
    mlp.activation = F.relu  # as in Chainer, the next call uses it
    numpy.testing.assert_allclose(
        mlp(ones(1, 3, 5, 5)).array, mlp[1](F.relu(mlp[0](ones(1, 3, 5, 5)))).array, rtol=1e-6
    )
    with pytest.raises(ValueError, match="wscale is not supported anymore"):
        L.MLPConvolution2D(3, (4,), 3, wscale=1.0)
    with pytest.raises(TypeError, match="wscale is not supported anymore"):
        L.MLPConvolution2D(3, (4,), 3, 1, 0, F.relu, 1.0)  # v1's positional wscale


def test_parameter_link_holds_the_given_array():
    array = numpy.zeros((2, 3), numpy.float32)
    link = L.Parameter(array)
    assert link.W.array is array
    y = link()
    link.cleargrads()  # as in Chainer, the parameter starts with a NaN grad
    F.sum(y * 2).backward()
    numpy.testing.assert_array_equal(link.W.grad, numpy.full((2, 3), 2))


def test_settable_attributes_change_the_next_call():
    embed = L.EmbedID(3, 2)
    ids = numpy.array([0, 1], numpy.int32)
    assert float(abs(embed(ids).array[1]).sum()) > 0
    embed.ignore_label = 1
    assert float(abs(embed(ids).array[1]).sum()) == 0
    bias = L.Bias(axis=0, shape=(2,))
    bias.axis = 1
    assert bias(ones(3, 2)).shape == (3, 2)


def test_bilinear_and_maxout_initial_values():
    bilinear = L.Bilinear(2, 3, 4, initial_bias=(1.0, 2.0, chainer.initializers.Constant(3.0)))
    assert bilinear.in_sizes == (2, 3) and not bilinear.nobias
    assert (bilinear.V1.array.max(), bilinear.V2.array.min(), bilinear.b.array[0]) == (1.0, 2.0, 3.0)
    W = numpy.arange(24, dtype=numpy.float32).reshape(2, 4, 3)  # (out_size, pool_size, in_size)
    maxout = L.Maxout(3, 2, 4, initialW=W, initial_bias=None)
    numpy.testing.assert_array_equal(maxout.linear.W.array, W.reshape(8, 3))
    assert maxout.linear.b is None and (maxout.out_size, maxout.pool_size) == (2, 4)
    assert maxout(ones(5, 3)).shape == (5, 2)


def test_simplified_dropconnect_takes_train_and_keeps_a_given_mask():
    link = L.SimplifiedDropconnect(3, 4, ratio=0.5)
    x = ones(2, 3)
    numpy.testing.assert_allclose(link(x, train=False).array, x @ link.W.array.T, rtol=1e-6)
    mask = numpy.ones((2, 4, 3), numpy.float32)
    link(x, mask=mask)
    assert link.mask is mask and "mask" in link._persistent
    assert (link.out_size, link.ratio) == (4, 0.5)


@pytest.mark.parametrize("batchwise", [True, False])
def test_simplified_dropconnect_creator_holds_the_mask_it_used(batchwise):
    """``y.creator.mask`` (Chainer's tests read it) is the drawn mask that gave ``y``."""
    link = L.SimplifiedDropconnect(None, 2)
    x = numpy.random.RandomState(0).randn(4, 3).astype(numpy.float32)
    y = link(x, train=True, use_batchwise_mask=batchwise)
    mask = y.creator.mask
    assert mask.shape == ((4, 2, 3) if batchwise else (2, 3))
    kept = numpy.broadcast_to(mask, (4, 2, 3)) * link.W.array * 2  # ratio 0.5: kept weights doubled
    expected = numpy.einsum("nij,nj->ni", kept, x) + link.b.array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)  # float32 sums, reordered


def test_prelu_and_swish():
    assert L.PReLU()(numpy.array([[-2.0, 2.0]], numpy.float32)).array.tolist() == [[-0.5, 2.0]]
    swish = L.Swish(None, beta_init=0.5)
    swish(ones(2, 3))
    numpy.testing.assert_array_equal(swish.beta.array, numpy.full(3, 0.5))


def test_an_optimizer_trains_the_links_parameters():
    numpy.random.seed(0)
    model = L.Classifier(L.MLPConvolution2D(None, (4, 3), 3))
    optimizer = optimizers.SGD(lr=0.5).setup(model)
    x = numpy.random.RandomState(1).randn(8, 2, 3, 3).astype(numpy.float32)
    t = (numpy.arange(8, dtype=numpy.int32) % 3).reshape(8, 1, 1)  # one label per output position

    def loss():
        return float(model(x, t).array)

    model(x, t)  # sizes the first convolution
    before = loss()
    for _ in range(10):
        optimizer.update(model, x, t)
    assert loss() < before


def test_shared_copies_compute_with_the_same_arrays():
    link = L.Highway(3)
    shared = link.copy("share")
    assert shared.plain.W.array is link.plain.W.array and shared.plain is not link.plain
    x = ones(2, 3)
    numpy.testing.assert_array_equal(shared(x).array, link(x).array)
    link.plain.W.array[...] = 0
    numpy.testing.assert_array_equal(shared(x).array, link(x).array)
    assert link.count_params() == 2 * (9 + 3)


@pytest.mark.parametrize(
    "make, x_shape, kwargs",
    [
        (lambda: L.Linear(3, 2), (4, 3), {}),
        (lambda: L.Convolution2D(2, 3, 3, pad=1), (1, 2, 4, 4), {}),
        (lambda: L.Deconvolution2D(2, 3, 2, stride=2), (1, 2, 3, 3), {}),
        (lambda: L.DepthwiseConvolution2D(2, 2, 3), (1, 2, 4, 4), {}),
        (lambda: L.SimplifiedDropconnect(3, 2), (4, 3), {"train": False}),
    ],
)
def test_connections_compute_in_the_input_dtype(make, x_shape, kwargs):
    link = make()  # float32 parameters
    x = chainer.Variable(numpy.random.RandomState(0).uniform(-1, 1, x_shape).astype(numpy.float64))
    y = link(x, **kwargs)
    assert y.dtype == numpy.float64  # as Chainer's connection functions, in x's dtype
    expected = link(x.array.astype(numpy.float32), **kwargs).array
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
    F.sum(y).backward()
    assert link.W.grad.dtype == numpy.float32 and x.grad.dtype == numpy.float64


def test_maxout_gives_plain_callables_its_own_layout():
    seen = []

    def fill_w(array):
        seen.append(array.shape)
        array[...] = numpy.arange(array.size).reshape(array.shape)

    def fill_b(array):
        seen.append(array.shape)
        array.fill(2.0)

    link = L.Maxout(2, 3, 4, initialW=fill_w, initial_bias=fill_b)
    assert seen == [(3, 4, 2), (3, 4)]  # Chainer's Maxout layout, not the child Linear's
    numpy.testing.assert_array_equal(link.linear.W.array, numpy.arange(24).reshape(12, 2))
    numpy.testing.assert_array_equal(link.linear.b.array, numpy.full(12, 2.0))


@pytest.mark.parametrize(
    "initialW, initial_bias, nobias, match",
    [
        (
            numpy.zeros((3, 3, 4)),
            None,
            True,
            r"Bilinear: expected initialW.shape == \(2, 3, 4\), got \(3, 3, 4\)",
        ),
        (
            numpy.zeros((2, 3, 4)),
            (numpy.zeros((3, 4)), None, None),
            False,
            r"expected initialV1.shape == \(2, 4\)",
        ),
        (
            numpy.zeros((2, 3, 4)),
            (None, numpy.zeros((4, 4)), None),
            False,
            r"expected initialV2.shape == \(3, 4\)",
        ),
        (numpy.zeros((2, 3, 4)), (None, None, numpy.zeros(5)), False, r"expected initialb.shape == \(4,\)"),
    ],
)
def test_bilinear_asserts_the_shapes_of_given_arrays(initialW, initial_bias, nobias, match):
    # Chainer asserts them, so an array that would broadcast is refused too
    with pytest.raises(AssertionError, match=match):
        L.Bilinear(2, 3, 4, nobias, initialW, initial_bias)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(pooltype="sum", proj_pool=2), NotImplementedError),
        (dict(pooltype="max", proj_pool=None), AssertionError),
        (dict(pooltype="avg", proj_pool=2, stride=2), AssertionError),
    ],
)
def test_inception_bn_raises_chainers_error_types(kwargs, error):
    with pytest.raises(error, match=r"InceptionBN: expected pooltype|InceptionBN: the 1 x 1 branch"):
        L.InceptionBN(3, 2, 2, 2, 2, 2, **kwargs)


@pytest.mark.parametrize(
    "link, inputs, match",
    [
        (lambda: L.Bias(1, (3,)), 2, r"Bias.forward: expected 1 input, got 2"),
        (lambda: L.Bias(1, None), 1, r"Bias.forward: expected 2 inputs, got 1"),
        (lambda: L.Scale(1, (3,)), 2, r"Scale.forward: expected 1 input, got 2"),
        (lambda: L.Scale(1, None), 1, r"Scale.forward: expected 2 inputs, got 1"),
    ],
)
def test_bias_and_scale_check_their_input_count_as_chainer(link, inputs, match):
    # Chainer asserts the count in debug mode, and fails to unpack (ValueError) otherwise
    xs = (numpy.ones((2, 3), numpy.float32), numpy.ones(3, numpy.float32))[:inputs]
    with pytest.raises(AssertionError, match=match) as info:
        link()(*xs)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "make, in_size, shape",
    [
        (lambda: L.Linear(3), 5, (3, 5)),
        (lambda: L.Convolution2D(None, 4, 3), 2, (4, 2, 3, 3)),
        (lambda: L.ConvolutionND(1, None, 4, 2), 6, (4, 6, 2)),
        (lambda: L.Deconvolution2D(None, 4, 3), 6, (6, 4, 3, 3)),
    ],
)
def test_initialize_params_sizes_a_lazy_link_as_chainer(make, in_size, shape):
    # Chainer's link._initialize_params(in_size), used by tests and by weight hooks
    link = make()
    assert link.W.array is None
    link._initialize_params(in_size)
    assert link.W.shape == shape and numpy.isfinite(link.W.array).all()
    kept = link.W.array.copy()
    link._initialize_params(in_size)  # already sized: the parameters stay
    numpy.testing.assert_array_equal(link.W.array, kept)


def test_a_deleted_bias_is_gone_and_nobias_sets_none_as_chainer():
    link = L.Linear(2, 3)
    del link.b  # as Chainer's test of loading without strict does
    assert not hasattr(link, "b") and [n for n, _ in link.namedparams()] == ["/W"]
    for made in (L.Linear(2, 3, nobias=True), L.Convolution2D(1, 2, 3, nobias=True)):
        assert "b" in vars(made) and made.b is None


def test_bilinear_and_mlp_convolution_signatures_are_the_specs():
    for link, spec in ((L.Bilinear, nn.Bilinear), (L.MLPConvolution2D, nn.MLPConvolution2D)):
        assert list(inspect.signature(link).parameters) == list(inspect.signature(spec).parameters)
    # Chainer-style initializers inside Bilinear's initial_bias tuple are converted one by one
    link = L.Bilinear(2, 3, 4, initial_bias=(chainer.initializers.Constant(1.0), None, 0))
    assert (link.V1.array == 1).all() and (link.b.array == 0).all() and link.V2.array.std() > 0
