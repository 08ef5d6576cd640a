"""``chainer.initializers.sampling``: objects of ``chainer.initializers`` under Chainer's module path."""

from . import DownsamplingConvFilter, UpsamplingDeconvFilter

__all__ = ["DownsamplingConvFilter", "UpsamplingDeconvFilter"]
