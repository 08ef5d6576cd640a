"""``chainer.initializers.constant``: objects of ``chainer.initializers`` under Chainer's module path."""

from . import Constant, Identity, NaN, One, Zero

__all__ = ["Constant", "Identity", "NaN", "One", "Zero"]
