"""``chainer.datasets.fashion_mnist``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import get_fashion_mnist, get_fashion_mnist_labels

__all__ = ["get_fashion_mnist", "get_fashion_mnist_labels"]
