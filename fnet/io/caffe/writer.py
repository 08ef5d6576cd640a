"""Writing a Caffe network: the binary ``.caffemodel`` and the text ``.prototxt``, atomically.

The prototxt is the network in protobuf's text format without the blobs, after an ``Input``
layer per input blob (Caffe's deploy files start so); the caffemodel holds the layers with
their blobs.
"""

from __future__ import annotations

from google.protobuf import text_format

from ..atomic import atomic_write
from .schema import NetParameter

__all__ = ["write_net", "prototxt"]


def prototxt(net, inputs: dict) -> str:
    """The text of ``net`` without its blobs, after an ``Input`` layer for each ``inputs`` item
    (blob name to shape)."""
    text = NetParameter()
    text.name = net.name
    for name, shape in inputs.items():
        layer = text.layer.add(name=name, type="Input")
        layer.top.append(name)
        layer.input_param.shape.add().dim.extend(int(d) for d in shape)
    for layer in net.layer:
        copy = text.layer.add()
        copy.CopyFrom(layer)
        del copy.blobs[:]
    return text_format.MessageToString(text)


def write_net(net, caffemodel=None, prototxt_path=None, inputs: dict | None = None) -> None:
    """Write ``net`` (a ``NetParameter``) to the paths given: ``caffemodel`` in binary, and
    ``prototxt_path`` as text with ``Input`` layers for ``inputs`` (blob name to shape)."""
    if prototxt_path is not None:
        text = prototxt(net, inputs or {}).encode()
        atomic_write("caffe.write_net", prototxt_path, lambda f: f.write(text))
    if caffemodel is not None:
        data = net.SerializeToString()
        atomic_write("caffe.write_net", caffemodel, lambda f: f.write(data))
