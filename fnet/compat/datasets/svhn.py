"""``chainer.datasets.svhn``: objects of ``chainer.datasets`` under Chainer's module path."""

from . import get_svhn

__all__ = ["get_svhn"]
