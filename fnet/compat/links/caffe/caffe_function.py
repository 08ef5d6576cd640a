"""``chainer.links.caffe.CaffeFunction``: a Caffe network run as a Chain of Chainer's links.

The file is read by ``fnet.io.caffe``; each layer becomes a link (its blobs as the link's
parameters) or a call of ``chainer.functions``, and ``func(inputs={'data': x}, outputs=['fc8'])``
runs the layers in the file's order, each once its bottom blobs are known, as Chainer does.
Layers of a type that is not supported are skipped with a warning (as are the layers that follow
from them); a supported layer with a setting Chainer does not support raises ``RuntimeError``.
"""

from __future__ import annotations

import functools
import warnings

from ....errors import message
from ....io.caffe import reader
from ....io.caffe import schema as caffe_pb
from ... import configuration, functions
from ...link import Chain
from ...utils import argument
from ..connection import Convolution2D, Deconvolution2D, Linear, Scale
from ..normalization import BatchNormalization

__all__ = ["CaffeFunction", "caffe_pb"]


def _call_in(setting: str, value, func, *args, **kwargs):
    """``func(*args, **kwargs)`` with the configuration ``setting`` set to ``value``."""
    with configuration.using_config(setting, value):
        return func(*args, **kwargs)


def _on_tuple(func, *xs, **kwargs):
    """``func`` of the bottoms as one tuple (``concat``)."""
    return func(xs, **kwargs)


def _eltwise(operation: int, coeffs, *xs):
    """Caffe's Eltwise: the product, the (weighted) sum or the maximum of ``xs``."""
    if operation == 0:
        return (functools.reduce(lambda a, b: a * b, xs),)
    if operation == 1:
        if coeffs:
            if len(coeffs) != len(xs):
                raise AssertionError(
                    message(
                        "CaffeFunction Eltwise",
                        f"got {len(coeffs)} coefficients for {len(xs)} bottoms",
                        hint="give one coeff per bottom blob, or none",
                    )  # fmt: skip
                )
            xs = [x * c for x, c in zip(xs, coeffs, strict=True)]
        return (functools.reduce(lambda a, b: a + b, xs),)
    if operation == 2:
        return (functools.reduce(functions.maximum, xs),)
    raise ValueError(
        f"CaffeFunction Eltwise: unknown operation {operation}; expected PROD (0), SUM (1) or MAX (2)"
    )


def _with_engine(func, engine: int):
    """``func`` run with Caffe's ``engine`` choice: cuDNN (2), not cuDNN (1), or the default (0)."""
    return func if engine == 0 else functools.partial(_call_in, "use_cudnn", engine == 2, func)


def _global_pooling(func, x, stride, pad):
    return func(x, x.shape[2:], stride=stride, pad=pad)


class CaffeFunction(Chain):
    """A Caffe network (``model_path``: a binary ``.caffemodel``) as a Chain.

    ``layers`` lists ``(name, bottoms, tops)`` in the file's order, ``forwards`` maps a layer's
    name to what runs it, and the layers with parameters are children under their layer names.
    """

    def __init__(self, model_path):
        super().__init__()
        net = reader.read_net(model_path)
        self.forwards = {}
        self.split_map = {}
        self.layers = []
        v1 = not len(net.layer)
        for layer in reader.net_layers(net):
            typ = reader.layer_type(layer)
            setup = _SETUPS.get(typ)
            if setup is None or (v1 and typ in _V2_ONLY):
                shown = typ or caffe_pb.V1LayerParameter.LayerType.Name(layer.type)
                warnings.warn(
                    f'Skip the layer "{layer.name}", since CaffeFunction does not support {shown} layer',
                    stacklevel=2,
                )
                continue
            setup(self, layer)

    def forward(self, inputs, outputs, disable=(), **kwargs):
        """Run the layers whose bottoms are known, from ``inputs`` (blob name to Variable), and
        return the Variables of the blobs named in ``outputs``; layers named in ``disable`` are skipped."""
        if kwargs:
            argument.check_unexpected_kwargs(
                kwargs, train="train argument is not supported anymore. Use chainer.using_config"
            )
            argument.assert_kwargs_empty(kwargs)
        variables = dict(inputs)
        disable = set(disable)
        for name, bottom, top in self.layers:
            if name in disable or name not in self.forwards or any(b not in variables for b in bottom):
                continue
            out = self.forwards[name](*(variables[b] for b in bottom))
            for var, blob in zip(out if isinstance(out, (tuple, list)) else (out,), top):
                variables[blob] = var
        self.variables = variables
        missing = [blob for blob in outputs if blob not in variables]
        if missing:
            raise KeyError(
                message(
                    "CaffeFunction",
                    f"the blobs {missing} were not computed from the inputs {sorted(inputs)}",
                    hint="name blobs that are tops of layers reached from the inputs",
                )  # fmt: skip
            )
        return tuple(variables[blob] for blob in outputs)

    # -- building ----------------------------------------------------------------------------
    def _add(self, layer, forward) -> None:
        self.forwards[layer.name] = forward
        self.layers.append((layer.name, [self.split_map.get(b, b) for b in layer.bottom], list(layer.top)))

    def _add_link(self, layer, link, forward=None) -> None:
        with self.init_scope():
            setattr(self, layer.name, link)
        self._add(layer, forward or functools.partial(self._call_child, layer.name))

    def _call_child(self, name, *xs, **kwargs):
        return self[name](*xs, **kwargs)

    def _concat(self, layer):
        param = layer.concat_param
        axis = param.concat_dim if param.axis == 1 and param.concat_dim != 1 else param.axis
        self._add(layer, functools.partial(_on_tuple, functions.concat, axis=axis))

    def _convolution(self, layer, deconvolution=False):
        param, blobs = layer.convolution_param, layer.blobs
        shape = reader.blob_shape(blobs[0])
        num, channels = shape[0], shape[1] * param.group
        n_in, n_out = (num, channels) if deconvolution else (channels, num)
        ksize = reader.kernel_size(param)
        kh, kw = ksize if isinstance(ksize, tuple) else (ksize, ksize)
        weight = reader.grouped_weight(blobs[0], param.group, (num, channels, kh, kw))
        cls = Deconvolution2D if deconvolution else Convolution2D
        link = cls(
            n_in, n_out, ksize, reader.stride(param), reader.pad(param),
            nobias=not param.bias_term, initialW=weight,
            initial_bias=reader.blob_array(blobs[1], (n_out,)) if param.bias_term else None,
        )  # fmt: skip
        self._add_link(layer, link)

    def _dropout(self, layer):
        self._add(layer, functools.partial(functions.dropout, ratio=layer.dropout_param.dropout_ratio))

    def _inner_product(self, layer):
        param, blobs = layer.inner_product_param, layer.blobs
        if param.axis != 1:
            raise RuntimeError("Non-default axis in InnerProduct is not supported")
        shape = reader.blob_shape(blobs[0])
        if len(shape) not in (2, 4):
            raise RuntimeError(f"{len(shape)}-dimensional array is not supported")
        out_size, in_size = (shape[0], shape[1]) if len(shape) == 2 else (shape[2], shape[3])
        link = Linear(
            in_size, out_size, nobias=not param.bias_term,
            initialW=reader.blob_array(blobs[0], (out_size, in_size)),
            initial_bias=reader.blob_array(blobs[1], (out_size,)) if param.bias_term else None,
        )  # fmt: skip
        self._add_link(layer, link)

    def _lrn(self, layer):
        param = layer.lrn_param
        if param.norm_region != param.ACROSS_CHANNELS:
            raise RuntimeError("Within-channel LRN is not supported")
        lrn = functools.partial(
            functions.local_response_normalization,
            n=param.local_size, k=param.k, alpha=param.alpha / param.local_size, beta=param.beta,
        )  # fmt: skip
        self._add(layer, lrn)

    def _pooling(self, layer):
        param = layer.pooling_param
        if param.pool == param.MAX:
            func = functions.max_pooling_2d
        elif param.pool == param.AVE:
            func = functions.average_pooling_2d
        else:
            raise RuntimeError("Stochastic pooling is not supported")
        ksize, stride, pad = reader.kernel_size(param), reader.stride(param), reader.pad(param)
        if param.global_pooling and not ksize:
            self._add(layer, functools.partial(_global_pooling, func, stride=stride, pad=pad))
        else:
            self._add(layer, lambda x: func(x, ksize, stride=stride, pad=pad))

    def _relu(self, layer):
        slope = layer.relu_param.negative_slope
        self._add(
            layer, functools.partial(functions.leaky_relu, slope=slope) if slope != 0 else functions.relu
        )

    def _reshape(self, layer):
        self._add(layer, functools.partial(functions.reshape, shape=layer.reshape_param.shape.dim))

    def _batch_norm(self, layer):
        param, blobs = layer.batch_norm_param, layer.blobs
        size = reader.blob_shape(blobs[0])[0]
        link = BatchNormalization(size, decay=param.moving_average_fraction, eps=param.eps,
                                  use_gamma=False, use_beta=False)  # fmt: skip
        factor = reader.blob_array(blobs[2]).ravel()[0] if len(blobs) >= 3 else 1.0
        link.avg_mean[...] = reader.blob_array(blobs[0], (size,)) / (factor or 1.0)
        link.avg_var[...] = reader.blob_array(blobs[1], (size,)) / (factor or 1.0)
        child = functools.partial(self._call_child, layer.name, finetune=False)
        self._add_link(
            layer,
            link,
            functools.partial(_call_in, "train", False, child) if param.use_global_stats else child,
        )

    def _eltwise(self, layer):
        param = layer.eltwise_param
        self._add(layer, functools.partial(_eltwise, param.operation, list(param.coeff)))

    def _scale(self, layer):
        param, blobs = layer.scale_param, layer.blobs
        if len(layer.bottom) == 1:
            link = Scale(param.axis, reader.blob_shape(blobs[0]), param.bias_term)
            link.W.array[...] = reader.blob_array(blobs[0])
            if param.bias_term:
                link.bias.b.array[...] = reader.blob_array(blobs[1]).reshape(link.bias.b.shape)
        else:
            link = Scale(param.axis, bias_term=param.bias_term,
                         bias_shape=reader.blob_shape(blobs[0]) if param.bias_term else None)  # fmt: skip
            if param.bias_term:
                link.bias.b.array[...] = reader.blob_array(blobs[0])
        self._add_link(layer, link)

    def _slice(self, layer):
        param = layer.slice_param
        axis = param.axis if param.HasField("axis") else param.slice_dim if param.HasField("slice_dim") else 1
        sections = list(param.slice_point) if len(param.slice_point) else len(layer.top)
        self._add(layer, functools.partial(functions.split_axis, indices_or_sections=sections, axis=axis))

    def _softmax(self, layer):
        if layer.softmax_param.axis != 1:
            raise RuntimeError("Softmax along non-channel axis is not supported")
        self._add(layer, _with_engine(functions.softmax, layer.softmax_param.engine))

    def _sigmoid(self, layer):
        self._add(layer, _with_engine(functions.sigmoid, layer.sigmoid_param.engine))

    def _softmax_with_loss(self, layer):
        if layer.softmax_param.axis != 1:
            raise RuntimeError("Softmax along non-channel axis is not supported")
        self._add(layer, functions.softmax_cross_entropy)

    def _split(self, layer):
        for top in layer.top:
            self.split_map[top] = layer.bottom[0]


_SETUPS = {
    "Concat": CaffeFunction._concat,
    "Convolution": CaffeFunction._convolution,
    "Deconvolution": lambda self, layer: self._convolution(layer, deconvolution=True),
    "Data": lambda self, layer: None,
    "Dropout": CaffeFunction._dropout,
    "InnerProduct": CaffeFunction._inner_product,
    "LRN": CaffeFunction._lrn,
    "Pooling": CaffeFunction._pooling,
    "ReLU": CaffeFunction._relu,
    "Reshape": CaffeFunction._reshape,
    "BatchNorm": CaffeFunction._batch_norm,
    "Eltwise": CaffeFunction._eltwise,
    "Scale": CaffeFunction._scale,
    "Slice": CaffeFunction._slice,
    "Softmax": CaffeFunction._softmax,
    "Sigmoid": CaffeFunction._sigmoid,
    "SoftmaxWithLoss": CaffeFunction._softmax_with_loss,
    "Split": CaffeFunction._split,
}
_V2_ONLY = {"Reshape", "BatchNorm", "Scale"}  # types the v1 format cannot name
