"""Each link computes what its ``fnet.nn`` spec computes on the same parameters, and
``loss.backward()`` gives its parameters the gradients ``fnet.grad`` gives the spec's."""

import copy

import numpy
import pytest

import fnet
import fnet.compat as chainer
import fnet.compat.functions as F
import fnet.compat.links as L
from fnet import nn

RNG = numpy.random.RandomState(0)


def rand(*shape):
    return RNG.uniform(-1, 1, shape).astype(numpy.float32)


def ids(*values):
    return numpy.array(values, numpy.int32)


# id: (the link, the spec it must equal, the inputs of a call)
CASES = {
    "linear": (lambda: L.Linear(3, 4), nn.Linear(3, 4), lambda: (rand(2, 3),)),
    "linear_nobias": (
        lambda: L.Linear(3, 4, nobias=True),
        nn.Linear(3, 4, nobias=True),
        lambda: (rand(2, 3),),
    ),
    "linear_batch_axes": (lambda: L.Linear(3, 4), nn.Linear(3, 4), lambda: (rand(2, 5, 3), 2)),
    "bilinear": (lambda: L.Bilinear(2, 3, 4), nn.Bilinear(2, 3, 4), lambda: (rand(5, 2), rand(5, 3))),
    "bias": (lambda: L.Bias(shape=(3,)), nn.Bias(shape=(3,)), lambda: (rand(2, 3, 4),)),
    "bias_given": (lambda: L.Bias(), nn.Bias(), lambda: (rand(2, 3), rand(3))),
    "scale": (
        lambda: L.Scale(W_shape=(3,), bias_term=True),
        nn.Scale(W_shape=(3,), bias_term=True),
        lambda: (rand(2, 3, 4),),
    ),
    "embed_id": (
        lambda: L.EmbedID(5, 3, ignore_label=-1),
        nn.EmbedID(5, 3, ignore_label=-1),
        lambda: (ids(0, 4, -1),),
    ),
    "highway": (lambda: L.Highway(3), nn.Highway(3), lambda: (rand(2, 3),)),
    "inception": (
        lambda: L.Inception(3, 2, 2, 2, 2, 2, 2),
        nn.Inception(3, 2, 2, 2, 2, 2, 2),
        lambda: (rand(1, 3, 5, 5),),
    ),
    "mlp_convolution_2d": (
        lambda: L.MLPConvolution2D(3, (4, 5), 3),
        nn.MLPConvolution2D(3, (4, 5), 3),
        lambda: (rand(1, 3, 5, 5),),
    ),
    "parameter": (
        lambda: L.Parameter(rand(2, 3)),
        nn.Parameter(numpy.zeros((2, 3), numpy.float32)),
        lambda: (),
    ),
    "convolution_1d": (lambda: L.Convolution1D(2, 3, 3), nn.Convolution1D(2, 3, 3), lambda: (rand(1, 2, 6),)),
    "convolution_2d": (
        lambda: L.Convolution2D(2, 3, 3, stride=2, pad=1),
        nn.Convolution2D(2, 3, 3, stride=2, pad=1),
        lambda: (rand(1, 2, 5, 5),),
    ),
    "convolution_2d_groups": (
        lambda: L.Convolution2D(4, 6, 3, groups=2),
        nn.Convolution2D(4, 6, 3, groups=2),
        lambda: (rand(1, 4, 5, 5),),
    ),
    "convolution_3d": (
        lambda: L.Convolution3D(2, 3, 2),
        nn.Convolution3D(2, 3, 2),
        lambda: (rand(1, 2, 3, 3, 3),),
    ),
    "convolution_nd": (
        lambda: L.ConvolutionND(2, 2, 3, 3, nobias=True),
        nn.ConvolutionND(2, 2, 3, 3, nobias=True),
        lambda: (rand(1, 2, 5, 5),),
    ),
    "deconvolution_1d": (
        lambda: L.Deconvolution1D(2, 3, 3),
        nn.Deconvolution1D(2, 3, 3),
        lambda: (rand(1, 2, 4),),
    ),
    "deconvolution_2d": (
        lambda: L.Deconvolution2D(2, 3, 3, stride=2),
        nn.Deconvolution2D(2, 3, 3, stride=2),
        lambda: (rand(1, 2, 3, 3),),
    ),
    "deconvolution_3d": (
        lambda: L.Deconvolution3D(2, 3, 2),
        nn.Deconvolution3D(2, 3, 2),
        lambda: (rand(1, 2, 2, 2, 2),),
    ),
    "deconvolution_nd": (
        lambda: L.DeconvolutionND(2, 2, 3, 3),
        nn.DeconvolutionND(2, 2, 3, 3),
        lambda: (rand(1, 2, 3, 3),),
    ),
    "deformable_convolution_2d": (
        lambda: L.DeformableConvolution2D(2, 3, 3, pad=1, deform_initialW=chainer.initializers.Normal()),
        nn.DeformableConvolution2D(2, 3, 3, pad=1),
        lambda: (rand(1, 2, 4, 4),),
    ),
    "depthwise_convolution_2d": (
        lambda: L.DepthwiseConvolution2D(2, 3, 3),
        nn.DepthwiseConvolution2D(2, 3, 3),
        lambda: (rand(1, 2, 5, 5),),
    ),
    "dilated_convolution_2d": (
        lambda: L.DilatedConvolution2D(2, 3, 3, dilate=2),
        nn.DilatedConvolution2D(2, 3, 3, dilate=2),
        lambda: (rand(1, 2, 7, 7),),
    ),
    "local_convolution_2d": (
        lambda: L.LocalConvolution2D(2, 3, 5, 3),
        nn.LocalConvolution2D(2, 3, 5, 3),
        lambda: (rand(1, 2, 5, 5),),
    ),
    "maxout": (lambda: L.Maxout(3, 2, 4), nn.Maxout(3, 2, 4), lambda: (rand(2, 3),)),
    "prelu": (lambda: L.PReLU((3,)), nn.PReLU((3,)), lambda: (rand(2, 3),)),
    "simplified_dropconnect_test": (
        lambda: L.SimplifiedDropconnect(3, 4),
        nn.SimplifiedDropconnect(3, 4),
        lambda: (rand(2, 3), False),
    ),
    "swish": (lambda: L.Swish((3,)), nn.Swish((3,)), lambda: (rand(2, 3),)),
    "group_normalization": (
        lambda: L.GroupNormalization(2, 4),
        nn.GroupNormalization(2, 4),
        lambda: (rand(2, 4, 3),),
    ),
    "layer_normalization": (lambda: L.LayerNormalization(3), nn.LayerNormalization(3), lambda: (rand(2, 3),)),
    "stateless_lstm": (
        lambda: L.StatelessLSTM(3, 4),
        nn.StatelessLSTM(3, 4),
        lambda: (rand(2, 4), rand(2, 4), rand(2, 3)),
    ),
    "stateless_gru": (lambda: L.StatelessGRU(3, 4), nn.StatelessGRU(3, 4), lambda: (rand(2, 4), rand(2, 3))),
    "stateless_mgu": (lambda: L.StatelessMGU(3, 4), nn.StatelessMGU(3, 4), lambda: (rand(2, 4), rand(2, 3))),
    "binary_hierarchical_softmax": (
        lambda: L.BinaryHierarchicalSoftmax(3, ((0, 1), 2)),
        nn.BinaryHierarchicalSoftmax(3, ((0, 1), 2)),
        lambda: (rand(2, 3), ids(0, 2)),
    ),
    "crf1d": (
        lambda: L.CRF1d(3, initial_cost=chainer.initializers.Normal()),
        nn.CRF1d(3),
        lambda: ([rand(2, 3), rand(2, 3), rand(1, 3)], [ids(0, 1), ids(2, 2), ids(1)]),
    ),
}

# NStep stacks: without dropout, so that training and the pure test mode agree.
NSTEP = {
    "n_step_gru": (lambda: L.NStepGRU(2, 3, 4, 0.0), nn.NStepGRU(2, 3, 4, 0.0)),
    "n_step_bigru": (lambda: L.NStepBiGRU(1, 3, 4, 0.0), nn.NStepBiGRU(1, 3, 4, 0.0)),
    "n_step_rnn_tanh": (lambda: L.NStepRNNTanh(1, 3, 4, 0.0), nn.NStepRNNTanh(1, 3, 4, 0.0)),
    "n_step_rnn_relu": (lambda: L.NStepRNNReLU(2, 3, 4, 0.0), nn.NStepRNNReLU(2, 3, 4, 0.0)),
    "n_step_birnn_tanh": (lambda: L.NStepBiRNNTanh(2, 3, 4, 0.0), nn.NStepBiRNNTanh(2, 3, 4, 0.0)),
    "n_step_birnn_relu": (lambda: L.NStepBiRNNReLU(1, 3, 4, 0.0), nn.NStepBiRNNReLU(1, 3, 4, 0.0)),
}


def leaves(out) -> list:
    """The arrays (or Variables) of a nested result."""
    if isinstance(out, (tuple, list)):
        return [leaf for item in out for leaf in leaves(item)]
    return [out]


def pure_total(out):
    return sum(fnet.ops.sum(leaf) for leaf in leaves(out))


def check_against_spec(link, spec, inputs, apply_kwargs=None):
    """The link's output and parameter gradients equal the spec's on the link's parameters."""
    apply_kwargs = apply_kwargs or {}
    params = link.params_tree()
    out = link(*inputs)
    expected = spec.apply(params, *inputs, **apply_kwargs)
    got, want = leaves(out), leaves(expected)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, chainer.Variable)
        numpy.testing.assert_allclose(g.array, w, rtol=1e-6, atol=1e-7)

    link.cleargrads()
    sum(F.sum(leaf) for leaf in got).backward()
    grads = fnet.grad(lambda p: pure_total(spec.apply(p, *inputs, **apply_kwargs)))(params)
    flat_grads = dict(fnet.tree.flatten_with_paths(grads))
    for path, param in link.namedparams():
        assert param.grad is not None, path
        expected_grad = flat_grads[tuple(path.strip("/").split("/"))]
        numpy.testing.assert_allclose(param.grad, expected_grad, rtol=1e-5, atol=1e-6, err_msg=path)


@pytest.mark.parametrize("case", sorted(CASES))
def test_forward_and_gradients_are_the_specs(case):
    make, spec, inputs = CASES[case]
    check_against_spec(make(), spec, inputs())


@pytest.mark.parametrize("case", sorted(NSTEP))
def test_nstep_stacks_are_the_specs(case):
    make, spec = NSTEP[case]
    xs = [rand(4, 3), rand(2, 3), rand(3, 3)]
    hx = rand(spec.n_layers * (2 if "bi" in case else 1), 3, 4)
    check_against_spec(make(), spec, (hx, xs), {"train": False})


def test_nstep_lstm_is_the_spec():
    link, spec = L.NStepLSTM(2, 3, 4, 0.0), nn.NStepLSTM(2, 3, 4, 0.0)
    xs = [rand(2, 3), rand(4, 3)]
    check_against_spec(link, spec, (None, rand(2, 2, 4), xs), {"train": False})
    link, spec = L.NStepBiLSTM(1, 3, 4, 0.0), nn.NStepBiLSTM(1, 3, 4, 0.0)
    check_against_spec(link, spec, (rand(2, 2, 4), None, xs), {"train": False})


@pytest.mark.parametrize(
    "make, spec",
    [
        (lambda: L.LSTM(3, 4), nn.LSTM(3, 4)),
        (lambda: L.StatefulGRU(3, 4), nn.StatefulGRU(3, 4)),
        (lambda: L.GRU(3, 4), nn.GRU(3, 4)),
        (lambda: L.StatefulMGU(3, 4), nn.StatefulMGU(3, 4)),
    ],
)
def test_stateful_recurrent_links_follow_the_spec_over_steps(make, spec):
    link = make()
    params, state = link.params_tree(), spec.init_state()
    for x in (rand(3, 3), rand(3, 3)):
        y = link(x)
        expected, state = spec.apply(params, x, state)
        numpy.testing.assert_allclose(y.array, expected, rtol=1e-6, atol=1e-7)
        for name, value in state.items():
            numpy.testing.assert_allclose(getattr(link, name).array, value, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    "make, spec, shape",
    [
        (lambda: L.BatchNormalization(3), nn.BatchNormalization(3), (4, 3, 2)),
        (lambda: L.BatchRenormalization(3, rmax=2.0, dmax=0.5), nn.BatchRenormalization(3, 2.0, 0.5), (4, 3)),
        (
            lambda: L.DecorrelatedBatchNormalization(4, groups=2),
            nn.DecorrelatedBatchNormalization(4, 2),
            (6, 4),
        ),
        (
            lambda: L.InceptionBN(3, 2, 2, 2, 2, 2, "avg", proj_pool=2),
            nn.InceptionBN(3, 2, 2, 2, 2, 2, "avg", proj_pool=2),
            (2, 3, 4, 4),
        ),
    ],
)
def test_links_with_statistics_follow_the_spec_in_both_modes(make, spec, shape):
    link, x = make(), rand(*shape)
    params, state = link.params_tree(), copy.deepcopy(link.state_tree())  # the link updates it in place
    y = link(x)
    expected, new_state = spec.apply(params, x, state, train=True)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
    got_state = dict(fnet.tree.flatten_with_paths(link.state_tree()))
    for path, value in fnet.tree.flatten_with_paths(new_state):
        numpy.testing.assert_allclose(got_state[path], value, rtol=1e-6, atol=1e-7)
    with chainer.using_config("train", False):
        y = link(x)
    expected, _ = spec.apply(params, x, link.state_tree(), train=False)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
