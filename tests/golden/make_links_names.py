"""Golden data for the tests of fnet.compat.links: each link's npz keys and its constructor's
signature, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``links_names.json`` and
``links_signatures.json`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_links_names.py

Each case is a constructor expression (``make``, evaluated with ``L`` = ``chainer.links`` and
``numpy``) and, for links that size themselves on their first call, a call expression (``call``,
evaluated with ``link``, ``x(*shape)`` = a float32 array of ones and ``ids(*shape)`` = an int32
array of zeros). For each, the keys that ``chainer.serializers.DictionarySerializer`` writes (the
npz layout: parameters and persistent values, ``predictor/W``) map to ``[shape, dtype]``, or to
None for a parameter not initialized yet: ``before`` the call and ``after`` it. The test runs
the same expressions with ``fnet.compat.links``.

``links_signatures.json`` maps each link class made by a case to its constructor's parameters,
``[name, kind, default]`` (the default's ``repr``, or the name of a function default; None
when there is no default). Chainer is imported inside ``main`` only.
"""

from __future__ import annotations

import inspect
import json
import pathlib

import numpy

HERE = pathlib.Path(__file__).parent

# name: (constructor, call or None)
CASES = {
    "linear": ("L.Linear(3, 4)", None),
    "linear_lazy": ("L.Linear(4)", "link(x(2, 3))"),
    "linear_nobias": ("L.Linear(3, 4, nobias=True)", None),
    "bilinear": ("L.Bilinear(2, 3, 4)", None),
    "bilinear_nobias": ("L.Bilinear(2, 3, 4, nobias=True)", None),
    "bias": ("L.Bias(shape=(3,))", None),
    "bias_free": ("L.Bias()", None),
    "scale": ("L.Scale(W_shape=(3,), bias_term=True)", None),
    "scale_given": ("L.Scale(bias_term=True, bias_shape=(3,))", None),
    "embed_id": ("L.EmbedID(5, 3)", None),
    "highway": ("L.Highway(3)", None),
    "inception": ("L.Inception(3, 2, 2, 2, 2, 2, 2)", None),
    "inception_lazy": ("L.Inception(None, 2, 2, 2, 2, 2, 2)", "link(x(1, 3, 5, 5))"),
    "inception_bn": ("L.InceptionBN(3, 2, 2, 2, 2, 2, 'max', proj_pool=2)", None),
    "inception_bn_stride": ("L.InceptionBN(3, 0, 2, 2, 2, 2, 'avg', stride=2)", None),
    "maxout": ("L.Maxout(3, 2, 4)", None),
    "maxout_lazy": ("L.Maxout(None, 2, 4)", "link(x(2, 3))"),
    "mlp_convolution_2d": ("L.MLPConvolution2D(3, (4, 5), 3)", None),
    "mlp_convolution_2d_lazy": ("L.MLPConvolution2D((4, 5), 3)", "link(x(1, 3, 5, 5))"),
    "parameter": ("L.Parameter(numpy.zeros((2, 3), numpy.float32))", None),
    "prelu": ("L.PReLU()", None),
    "prelu_shape": ("L.PReLU((3,))", None),
    "swish": ("L.Swish((3,))", None),
    "swish_lazy": ("L.Swish(None)", "link(x(2, 3))"),
    "simplified_dropconnect": ("L.SimplifiedDropconnect(3, 4)", None),
    "simplified_dropconnect_lazy": ("L.SimplifiedDropconnect(None, 4)", "link(x(2, 3))"),
    "convolution_1d": ("L.Convolution1D(2, 3, 3)", None),
    "convolution_2d": ("L.Convolution2D(2, 3, 3)", None),
    "convolution_2d_lazy": ("L.Convolution2D(3, 3)", "link(x(1, 2, 5, 5))"),
    "convolution_2d_groups": ("L.Convolution2D(4, 6, 3, groups=2)", None),
    "convolution_3d": ("L.Convolution3D(2, 3, 2)", None),
    "convolution_nd": ("L.ConvolutionND(2, 2, 3, 3, nobias=True)", None),
    "deconvolution_1d": ("L.Deconvolution1D(2, 3, 3)", None),
    "deconvolution_2d": ("L.Deconvolution2D(2, 3, 3)", None),
    "deconvolution_2d_lazy": ("L.Deconvolution2D(3, 3)", "link(x(1, 2, 4, 4))"),
    "deconvolution_3d": ("L.Deconvolution3D(2, 3, 2)", None),
    "deconvolution_nd": ("L.DeconvolutionND(2, 2, 3, 3)", None),
    "deformable_convolution_2d": ("L.DeformableConvolution2D(2, 3, 3)", None),
    "depthwise_convolution_2d": ("L.DepthwiseConvolution2D(2, 3, 3)", None),
    "depthwise_convolution_2d_lazy": ("L.DepthwiseConvolution2D(None, 3, 3)", "link(x(1, 2, 5, 5))"),
    "dilated_convolution_2d": ("L.DilatedConvolution2D(2, 3, 3, dilate=2)", None),
    "dilated_convolution_2d_lazy": ("L.DilatedConvolution2D(3, 3)", "link(x(1, 2, 5, 5))"),
    "local_convolution_2d": ("L.LocalConvolution2D(2, 3, 5, 3)", None),
    "local_convolution_2d_lazy": ("L.LocalConvolution2D(None, 3, ksize=3)", "link(x(1, 2, 5, 5))"),
    "batch_normalization": ("L.BatchNormalization(3)", None),
    "batch_normalization_lazy": ("L.BatchNormalization(axis=0)", "link(x(4, 3))"),
    "batch_normalization_no_gamma": ("L.BatchNormalization(3, use_gamma=False)", None),
    "batch_renormalization": ("L.BatchRenormalization(3)", None),
    "decorrelated_batch_normalization": ("L.DecorrelatedBatchNormalization(4, groups=2)", None),
    "group_normalization": ("L.GroupNormalization(2, 4)", None),
    "group_normalization_lazy": ("L.GroupNormalization(2)", "link(x(2, 4, 3))"),
    "layer_normalization": ("L.LayerNormalization(3)", None),
    "layer_normalization_lazy": ("L.LayerNormalization()", "link(x(2, 3))"),
    "lstm": ("L.LSTM(3, 4)", None),
    "lstm_lazy": ("L.LSTM(4)", "link(x(2, 3))"),
    "stateless_lstm": ("L.StatelessLSTM(3, 4)", None),
    "gru": ("L.GRU(3, 4)", None),
    "stateful_gru": ("L.StatefulGRU(3, 4)", None),
    "stateless_gru": ("L.StatelessGRU(3, 4)", None),
    "stateful_zoneout_lstm": ("L.StatefulZoneoutLSTM(3, 4)", None),
    "stateless_mgu": ("L.StatelessMGU(3, 4)", None),
    "stateful_mgu": ("L.StatefulMGU(3, 4)", None),
    "n_step_lstm": ("L.NStepLSTM(2, 3, 4, 0.0)", None),
    "n_step_bilstm": ("L.NStepBiLSTM(1, 3, 4, 0.0)", None),
    "n_step_gru": ("L.NStepGRU(1, 3, 4, 0.0)", None),
    "n_step_bigru": ("L.NStepBiGRU(2, 3, 4, 0.0)", None),
    "n_step_rnn_tanh": ("L.NStepRNNTanh(1, 3, 4, 0.0)", None),
    "n_step_rnn_relu": ("L.NStepRNNReLU(2, 3, 4, 0.0)", None),
    "n_step_birnn_tanh": ("L.NStepBiRNNTanh(2, 3, 4, 0.0)", None),
    "n_step_birnn_relu": ("L.NStepBiRNNReLU(1, 3, 4, 0.0)", None),
    "binary_hierarchical_softmax": ("L.BinaryHierarchicalSoftmax(3, ((0, 1), 2))", None),
    "black_out": ("L.BlackOut(3, [1, 2, 3], 2)", None),
    "crf1d": ("L.CRF1d(3)", None),
    "negative_sampling": ("L.NegativeSampling(3, [1, 2, 3], 2)", None),
    "classifier": ("L.Classifier(L.Linear(3, 2))", None),
    "stateful_peephole_lstm": ("L.StatefulPeepholeLSTM(3, 4)", None),
    "stateful_peephole_lstm_lazy": ("L.StatefulPeepholeLSTM(None, 4)", "link(x(2, 3))"),
    "child_sum_tree_lstm": ("L.ChildSumTreeLSTM(3, 4)", None),
    "child_sum_tree_lstm_lazy": ("L.ChildSumTreeLSTM(None, 4)", "link(x(2, 3))"),
    "nary_tree_lstm": ("L.NaryTreeLSTM(3, 4, n_ary=3)", None),
    "nary_tree_lstm_lazy": ("L.NaryTreeLSTM(None, 4)", "link(None, None, None, None, x(2, 3))"),
}


def layout(chainer, link) -> dict:
    """The keys a serializer writes for ``link``: ``[shape, dtype]``, None if uninitialized."""
    serializer = chainer.serializers.DictionarySerializer()
    serializer.save(link)
    result = {}
    for key, value in sorted(serializer.target.items()):
        value = numpy.asarray(value)
        result[key] = None if value.dtype == object else [list(value.shape), str(value.dtype)]
    return result


def main() -> None:
    import chainer
    import chainer.links as L

    namespace = {
        "L": L,
        "numpy": numpy,
        "x": lambda *shape: numpy.ones(shape, numpy.float32),
        "ids": lambda *shape: numpy.zeros(shape, numpy.int32),
    }
    golden = {}
    for case, (make, call) in CASES.items():
        numpy.random.seed(0)
        link = eval(make, namespace)
        entry = {"make": make, "call": call, "before": layout(chainer, link)}
        if call is not None:
            eval(call, {**namespace, "link": link})
            entry["after"] = layout(chainer, link)
        golden[case] = entry
    (HERE / "links_names.json").write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
    classes = sorted({make.split("(")[0].removeprefix("L.") for make, _ in CASES.values()})
    signatures = {name: signature(getattr(L, name)) for name in classes}
    (HERE / "links_signatures.json").write_text(json.dumps(signatures, indent=1, sort_keys=True) + "\n")


def signature(cls) -> list:
    """``[name, kind, default]`` for each parameter of ``cls``'s constructor."""
    rows = []
    for param in inspect.signature(cls).parameters.values():
        default = param.default
        if default is inspect.Parameter.empty:
            default = None
        elif callable(default) and hasattr(default, "__name__"):
            default = default.__name__
        else:
            default = repr(default)
        rows.append([param.name, param.kind.name, default])
    return rows


if __name__ == "__main__":
    main()
