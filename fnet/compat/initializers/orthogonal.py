"""``chainer.initializers.orthogonal``: objects of ``chainer.initializers`` under Chainer's module path."""

from . import Orthogonal

__all__ = ["Orthogonal"]
