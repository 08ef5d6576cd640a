"""``chainer.exporters``: a model's computation written in another framework's format."""

from . import caffe

__all__ = ["caffe"]
