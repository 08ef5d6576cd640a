"""``chainer.datasets.mnist``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import get_mnist

__all__ = ["get_mnist"]
