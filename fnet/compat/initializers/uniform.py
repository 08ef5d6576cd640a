"""``chainer.initializers.uniform``: objects of ``chainer.initializers`` under Chainer's module path."""

from . import GlorotUniform, HeUniform, LeCunUniform, Uniform

__all__ = ["GlorotUniform", "HeUniform", "LeCunUniform", "Uniform"]
