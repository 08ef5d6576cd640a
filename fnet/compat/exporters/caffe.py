"""``chainer.exporters.caffe.export``: a model's forward pass written as a Caffe network.

The model runs once on ``args`` in evaluation mode; the graph of the output is walked from the
input (the blob ``data``) and each function becomes a Caffe layer named as Chainer names it
(``LABEL-RANK-N``) whose top blob has the layer's name. The functions Chainer's exporter
supports are supported: ``linear``, ``convolution_2d``, ``deconvolution_2d``,
``max_pooling_2d``, ``average_pooling_2d``, ``batch_normalization`` in evaluation mode
(a BatchNorm layer, then a Scale layer for gamma and beta), ``local_response_normalization``,
``relu``, ``leaky_relu``, ``concat``, ``softmax``, ``sigmoid``, ``reshape`` and ``+``.
Files are written atomically by ``fnet.io.caffe``.
"""

from __future__ import annotations

import os

import numpy

from ... import backend
from ...autodiff.tracer import Tracer, unbox_all
from ...io.caffe import writer
from .. import configuration
from .._tape import tracer_node
from ..links.caffe.caffe_function import caffe_pb as schema  # also makes chainer.links.caffe, as in Chainer
from ..variable import Variable

__all__ = ["export"]


def _array(value) -> numpy.ndarray:
    return numpy.asarray(backend.to_cpu(unbox_all(getattr(value, "array", value))), numpy.float32)


def _pair(value) -> tuple[int, int]:
    return (int(value), int(value)) if numpy.isscalar(value) else tuple(int(v) for v in value)


def _add_blob(layer, data) -> None:
    data = _array(data)
    blob = layer.blobs.add()
    blob.shape.dim.extend(data.shape)
    blob.data.extend(data.ravel().tolist())


def _geometry(param, ksize, stride, pad) -> None:
    (param.kernel_h, param.kernel_w), (param.stride_h, param.stride_w) = _pair(ksize), _pair(stride)
    param.pad_h, param.pad_w = _pair(pad)


def _weights(arguments: dict):
    """The spec (None for a function's node), W and b of a linear or convolution node."""
    if "params" in arguments:  # a link's node: (spec, params, x)
        params = arguments["params"]
        return arguments["self"], params["W"], params.get("b")
    return None, arguments["W"], arguments.get("b")


def _linear(layer, node, arguments):
    _, W, b = _weights(arguments)
    layer.type = "InnerProduct"
    layer.inner_product_param.num_output = _array(W).shape[0]
    layer.inner_product_param.bias_term = b is not None
    _add_blob(layer, W)
    if b is not None:
        _add_blob(layer, b)


def _convolution(layer, node, arguments, deconvolution=False):
    spec, W, b = _weights(arguments)
    source = (
        arguments if spec is None else {k: getattr(spec, k) for k in ("groups", "dilate", "stride", "pad")}
    )
    W = _array(W)
    groups = int(source.get("groups", 1))
    if _pair(source.get("dilate", 1)) != (1, 1):
        raise ValueError(
            f"caffe.export: {node.label} with dilate={source['dilate']} has no Caffe layer; use dilate=1"
        )
    layer.type = "Deconvolution" if deconvolution else "Convolution"
    param = layer.convolution_param
    param.num_output = W.shape[1] * groups if deconvolution else W.shape[0]
    param.bias_term, param.group = b is not None, groups
    _geometry(param, W.shape[2:], source.get("stride", 1), source.get("pad", 0))
    _add_blob(layer, W)
    if b is not None:
        _add_blob(layer, b)


def _pooling(layer, pool, ksize, stride, pad, ndim: int) -> None:
    if ndim != 2:
        raise ValueError(f"caffe.export: a {ndim}-d pooling has no Caffe layer; only 2-d pooling")
    layer.type = "Pooling"
    layer.pooling_param.pool = pool
    _geometry(layer.pooling_param, ksize, ksize if stride is None else stride, pad)


def _average_pooling(layer, node, arguments):
    _pooling(layer, layer.pooling_param.AVE, arguments["ksize"], arguments["stride"], arguments["pad"], 2)


def _max_pooling(layer, node, arguments):
    """A max pooling applied by its primitive (a pure layer's): its plan holds the geometry."""
    plan = node.params["plan"]
    _pooling(layer, layer.pooling_param.MAX, plan.ksize, plan.stride, plan.pad, len(plan.ksize))


def _max_pooling_nd(layer, node, arguments):
    """``F.max_pooling_2d``'s node, ``MaxPoolingND`` as in Chainer: its arguments hold the geometry."""
    ndim = len(arguments["x"].shape) - 2
    _pooling(layer, layer.pooling_param.MAX, arguments["ksize"], arguments["stride"], arguments["pad"], ndim)


def _lrn(layer, node, arguments):
    layer.type = "LRN"
    param = layer.lrn_param
    param.local_size, param.k = int(arguments["n"]), float(arguments["k"])
    param.alpha, param.beta = float(arguments["alpha"]) * int(arguments["n"]), float(arguments["beta"])


def _relu(layer, node, arguments):
    layer.type = "ReLU"


def _leaky_relu(layer, node, arguments):
    layer.type = "ReLU"
    layer.relu_param.negative_slope = float(arguments["slope"])


def _concat(layer, node, arguments):
    layer.type = "Concat"
    layer.concat_param.axis = int(arguments["axis"])


def _softmax(layer, node, arguments):
    if int(arguments.get("axis", 1)) != 1:
        raise ValueError(
            f"caffe.export: softmax over axis={arguments['axis']} has no Caffe layer; use axis=1"
        )
    layer.type = "Softmax"


def _sigmoid(layer, node, arguments):
    layer.type = "Sigmoid"


def _reshape(layer, node, arguments):
    layer.type = "Reshape"
    layer.reshape_param.shape.dim.extend(int(d) for d in arguments["shape"])


def _add(layer, node, arguments):
    layer.type = "Eltwise"


def _batch_normalization(layer, node, arguments):
    """A BatchNorm layer of the running statistics; the Scale layer of gamma and beta follows."""
    if "state" in arguments:  # the link's node
        if arguments.get("train"):
            raise ValueError("caffe.export: batch normalization in training mode has no Caffe layer")
        params, state = arguments["params"], arguments["state"]
        gamma, beta, mean, var = params.get("gamma"), params.get("beta"), state["avg_mean"], state["avg_var"]
        eps = arguments["self"].eps
    else:
        gamma, beta, mean, var = (arguments[k] for k in ("gamma", "beta", "mean", "var"))
        eps = arguments["eps"]
    layer.type = "BatchNorm"
    layer.batch_norm_param.use_global_stats = True
    layer.batch_norm_param.eps = float(eps)
    for blob in (mean, var, numpy.ones(1, numpy.float32)):
        _add_blob(layer, _array(blob).ravel())
    if gamma is None and beta is None:
        return None
    mean = _array(mean).ravel()
    return gamma if gamma is not None else numpy.ones_like(mean), beta


_LAYERS = {
    "LinearFunction": (_linear, 1),
    "Convolution2DFunction": (_convolution, 1),
    "Deconvolution2DFunction": (lambda layer, node, a: _convolution(layer, node, a, deconvolution=True), 1),
    "AveragePooling2D": (_average_pooling, 1),
    "pooling_window_max": (_max_pooling, 1),
    "MaxPoolingND": (_max_pooling_nd, 1),
    "LocalResponseNormalization": (_lrn, 1),
    "BatchNormalization": (_batch_normalization, 1),
    "FixedBatchNormalization": (_batch_normalization, 1),
    "ReLU": (_relu, 1),
    "LeakyReLU": (_leaky_relu, 1),
    "Concat": (_concat, None),
    "Softmax": (_softmax, 1),
    "Sigmoid": (_sigmoid, 1),
    "Reshape": (_reshape, 1),
    "_ + _": (_add, None),
}  # label: (the layer's writer, how many inputs are bottoms: None for all)


def _functions(outputs) -> list:
    """The nodes that made ``outputs``, each after the nodes that made its inputs."""
    order, seen = [], set()
    stack = [(v.creator_node if isinstance(v, Variable) else v.creator, False) for v in reversed(outputs)]
    while stack:
        node, expanded = stack.pop()
        if node is None or (node in seen and not expanded):
            continue
        if expanded:
            order.append(node)
            continue
        seen.add(node)
        stack.append((node, True))
        stack.extend((i.creator, False) for i in reversed(node.inputs))
    return order


def _bottoms(node, arguments: dict, count: int | None) -> list:
    """The nodes that made the data inputs of ``node`` (None: the network's input)."""
    if "params" in arguments:  # a link's node: its parameters come before x among its inputs
        x = arguments["x"]
        return [tracer_node(x).creator if type(x) is Tracer else None]
    return [i.creator for i in node.inputs[:count]]


class _Names:
    """Chainer's layer names: ``LABEL-RANK-N``, N counting the nodes of that label and rank."""

    def __init__(self):
        self._counts: dict[str, dict] = {}

    def __call__(self, node) -> str:
        if node is None:
            return "data"
        base = f"{node.label}-{node.rank}"
        known = self._counts.setdefault(base, {})
        return f"{base}-{known.setdefault(node, len(known) + 1)}"


def _network(graph_name: str, outputs) -> object:
    net = schema.NetParameter(name=graph_name)
    name = _Names()
    for node in _functions(outputs):
        label = node.label
        if label not in _LAYERS:
            raise ValueError(
                f"caffe.export: the function {label} (rank {node.rank}) has no Caffe layer here; the "
                f"supported ones are {sorted(_LAYERS)}"
            )
        write, bottoms = _LAYERS[label]
        layer = net.layer.add(name=name(node), phase=schema.TEST)
        arguments = node.arguments() if hasattr(node, "arguments") else {}
        layer.bottom.extend(name(creator) for creator in _bottoms(node, arguments, bottoms))
        scale = write(layer, node, arguments)
        layer.top.append(layer.name)
        if scale is not None:  # batch normalization's gamma and beta
            gamma, beta = scale
            layer.name = layer.top[0] = f"{layer.name}_bn"
            scaled = net.layer.add(name=name(node), type="Scale", bottom=[layer.name], phase=schema.TEST)
            scaled.top.append(scaled.name)
            scaled.scale_param.axis, scaled.scale_param.bias_term = 1, beta is not None
            _add_blob(scaled, _array(gamma).ravel())
            if beta is not None:
                _add_blob(scaled, _array(beta).ravel())
    return net


def export(model, args, directory=None, export_params=True, graph_name="Graph"):
    """Run ``model(*args)`` in evaluation mode and write its graph as a Caffe network in
    ``directory``: ``chainer_model.prototxt`` and (with ``export_params``) ``chainer_model.caffemodel``.
    ``args`` is a list of one Variable (the blob ``data``); nothing is written if ``directory`` is None."""
    if not isinstance(args, (tuple, list)) or len(args) != 1 or not isinstance(args[0], Variable):
        raise ValueError(
            f"caffe.export: args must be a list of one Variable (the network's input), got {args!r:.80}; "
            "wrap the input: export(model, [chainer.Variable(x)])"
        )
    with configuration.using_config("enable_backprop", True), configuration.using_config("train", False):
        outputs = model(*args)
    outputs = [outputs] if isinstance(outputs, Variable) else list(outputs)
    net = _network(graph_name, outputs)
    if directory is not None:
        writer.write_net(
            net,
            caffemodel=os.path.join(directory, "chainer_model.caffemodel") if export_params else None,
            prototxt_path=os.path.join(directory, "chainer_model.prototxt"),
            inputs={"data": args[0].shape},
        )
