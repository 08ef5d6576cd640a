"""``chainer.links.caffe``: a network read from a Caffe model file (needs ``protobuf``)."""

from . import caffe_function
from .caffe_function import CaffeFunction

__all__ = ["caffe_function", "CaffeFunction"]
