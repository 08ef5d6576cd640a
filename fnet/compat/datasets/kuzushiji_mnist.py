"""``chainer.datasets.kuzushiji_mnist``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import get_kuzushiji_mnist, get_kuzushiji_mnist_labels

__all__ = ["get_kuzushiji_mnist", "get_kuzushiji_mnist_labels"]
