"""Caffe's model files (needs the ``protobuf`` package: ``pip install fnet-chainer[caffe]``).

``schema`` declares Caffe's messages; ``reader`` reads a ``.caffemodel`` into them and its
blobs into arrays; ``writer`` writes a network as ``.caffemodel`` and ``.prototxt``, atomically.
The module is not imported by ``fnet.io``: only a program that reads or writes Caffe files needs
protobuf.
"""

from __future__ import annotations

from . import reader, schema, writer
from .reader import blob_array, layer_type, net_layers, read_net
from .writer import write_net

__all__ = ["schema", "reader", "writer", "read_net", "net_layers", "layer_type", "blob_array", "write_net"]
