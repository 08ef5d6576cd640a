"""``chainer.initializers.normal``: objects of ``chainer.initializers`` under Chainer's module path."""

from . import GlorotNormal, HeNormal, LeCunNormal, Normal

__all__ = ["GlorotNormal", "HeNormal", "LeCunNormal", "Normal"]
