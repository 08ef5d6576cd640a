"""``chainer.datasets.cifar``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import get_cifar10, get_cifar100

__all__ = ["get_cifar10", "get_cifar100"]
