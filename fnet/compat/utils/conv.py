"""``chainer.utils.conv``: the output-size helpers of convolutions, under Chainer's module path."""

from . import get_conv_outsize, get_deconv_outsize

__all__ = ["get_conv_outsize", "get_deconv_outsize"]
