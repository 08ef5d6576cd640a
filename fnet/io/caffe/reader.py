"""Reading a ``.caffemodel``: the network message, its layers in either format, and their blobs.

``read_net(path)`` parses the file (a clear ``CheckpointError`` if it is missing or is not a
Caffe network); ``net_layers(net)`` gives its layers, each with ``layer_type(layer)`` spelled as
the current format spells it (``"InnerProduct"``, also for the v1 format's ``INNER_PRODUCT``);
``blob_array`` and ``grouped_weight`` turn blobs into arrays, and ``kernel_size``, ``stride``
and ``pad`` read a convolution's or pooling's geometry in any of Caffe's spellings.
"""

from __future__ import annotations

import os

import numpy
from google.protobuf.message import DecodeError

from ...errors import CheckpointError, InvalidInputError, message
from .schema import NetParameter, V1LayerParameter

__all__ = ["read_net", "net_layers", "layer_type", "blob_shape", "blob_array", "grouped_weight",
           "kernel_size", "stride", "pad"]  # fmt: skip

# The v1 format's layer types that have a name in the current format.
_V1_NAMES = {
    "CONCAT": "Concat", "CONVOLUTION": "Convolution", "DECONVOLUTION": "Deconvolution",
    "DATA": "Data", "DROPOUT": "Dropout", "INNER_PRODUCT": "InnerProduct", "LRN": "LRN",
    "POOLING": "Pooling", "RELU": "ReLU", "ELTWISE": "Eltwise", "SLICE": "Slice",
    "SOFTMAX": "Softmax", "SIGMOID": "Sigmoid", "SOFTMAX_LOSS": "SoftmaxWithLoss", "SPLIT": "Split",
}  # fmt: skip


def read_net(path) -> NetParameter:
    """The ``NetParameter`` stored in the ``.caffemodel`` file at ``path``."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as error:
        raise CheckpointError(
            message(
                "read_net",
                f"cannot read the Caffe model {os.fspath(path)!r}: {error}",
                hint="pass the path of a .caffemodel file",
            )  # fmt: skip
        ) from error
    net = NetParameter()
    try:
        net.MergeFromString(data)
    except DecodeError as error:
        raise CheckpointError(
            message(
                "read_net",
                f"{os.fspath(path)!r} ({len(data)} bytes) is not a Caffe network: {error}",
                hint="the file is truncated or is not a binary .caffemodel (a .prototxt is text; "
                "it holds no weights)",
            )
        ) from error
    return net


def net_layers(net) -> list:
    """The layers of ``net``: those of the current format, or of the v1 format if it has none."""
    return list(net.layer) if len(net.layer) else list(net.layers)


def layer_type(layer) -> str | None:
    """The type of ``layer`` as the current format names it (None: a v1 type it has no name for)."""
    if isinstance(layer, V1LayerParameter):
        return _V1_NAMES.get(V1LayerParameter.LayerType.Name(layer.type))
    return layer.type


def blob_shape(blob) -> tuple[int, ...]:
    """The shape of ``blob``: its ``shape`` field, or the old 4-d ``num, channels, height, width``."""
    if blob.HasField("shape"):
        return tuple(int(d) for d in blob.shape.dim)
    old = (blob.num, blob.channels, blob.height, blob.width)
    return tuple(int(d) for d in old) if any(old) else (len(blob.data),)


def blob_array(blob, shape=None, dtype=numpy.float32) -> numpy.ndarray:
    """The data of ``blob`` as an array of ``shape`` (default: the blob's own)."""
    data = numpy.asarray(blob.double_data if len(blob.double_data) else blob.data, dtype=dtype)
    shape = blob_shape(blob) if shape is None else tuple(shape)
    if data.size != int(numpy.prod(shape)):
        raise InvalidInputError(
            message(
                "blob_array",
                f"the blob has {data.size} values, its shape {shape} needs {int(numpy.prod(shape))}",
                hint="the model file is damaged or inconsistent",
            )  # fmt: skip
        )
    return data.reshape(shape)


def grouped_weight(blob, group: int, shape) -> numpy.ndarray:
    """A dense weight of ``shape`` ``(n_out, n_in, ...)`` from the weight blob of a convolution
    of ``group`` groups: the blob's groups on the block diagonal, zeros elsewhere."""
    weight = numpy.zeros(shape, numpy.float32)
    n_out, n_in = shape[0] // group, shape[1] // group
    parts = blob_array(blob, (group, n_out, n_in, *shape[2:]))
    for i in range(group):
        weight[i * n_out : (i + 1) * n_out, i * n_in : (i + 1) * n_in] = parts[i]
    return weight


def _pair(param, name: str, prefix: str, default):
    """A geometry field: the ``_h``/``_w`` pair if set, else the one value (repeated or not)."""
    h, w = getattr(param, f"{prefix}_h"), getattr(param, f"{prefix}_w")
    if h > 0 or (prefix == "pad" and w > 0):
        return int(h), int(w)
    value = getattr(param, name)
    if isinstance(value, int):
        return value
    values = [int(v) for v in value]
    return default if not values else values[0] if len(values) == 1 else tuple(values)


def kernel_size(param):
    """The window of a convolution or pooling parameter: an int or an ``(h, w)`` pair (0: unset)."""
    return _pair(param, "kernel_size", "kernel", 0)


def stride(param):
    """The stride of a convolution or pooling parameter (1 if unset)."""
    return _pair(param, "stride", "stride", 1)


def pad(param):
    """The padding of a convolution or pooling parameter (0 if unset)."""
    return _pair(param, "pad", "pad", 0)
