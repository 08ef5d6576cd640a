"""``chainer.link_hooks``: hooks called around the ``forward`` of links."""

from .link_hook import LinkHook
from .spectral_normalization import SpectralNormalization
from .timer import TimerHook
from .weight_standardization import WeightStandardization

__all__ = ["LinkHook", "SpectralNormalization", "TimerHook", "WeightStandardization"]
