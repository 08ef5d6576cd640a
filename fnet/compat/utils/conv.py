"""``chainer.utils.conv``: output sizes of convolutions, and the patches of 2-d images (im2col)
with their adjoint (col2im) on raw arrays, the 2-d case of :mod:`.conv_nd`."""

from __future__ import annotations

from . import conv_nd
from .conv_nd import get_conv_outsize, get_deconv_outsize

__all__ = [
    "get_conv_outsize",
    "get_deconv_outsize",
    "im2col",
    "im2col_cpu",
    "im2col_gpu",
    "col2im",
    "col2im_cpu",
    "col2im_gpu",
]


def im2col_cpu(img, kh, kw, sy, sx, ph, pw, pval=0, cover_all=False, dy=1, dx=1, out_h=None, out_w=None):
    """The ``(kh, kw)`` patches of images ``(n, c, h, w)`` as ``(n, c, kh, kw, out_h, out_w)``
    (``pval`` in the padding); ``out_h``/``out_w``, when given, must be the computed sizes.

    >>> import numpy
    >>> im2col_cpu(numpy.ones((1, 1, 3, 3)), 2, 2, 1, 1, 0, 0).shape
    (1, 1, 2, 2, 2, 2)
    """
    col = conv_nd.im2col_nd_cpu(img, (kh, kw), (sy, sx), (ph, pw), pval, cover_all, (dy, dx))
    for name, given, got in (("out_h", out_h, col.shape[4]), ("out_w", out_w, col.shape[5])):
        if given is not None and given != got:
            raise ValueError(
                f"im2col: expected {name} to be the output size of the convolution, {got}, got {given}\n"
                f"  hint: leave {name} out; it is computed from the image, kernel, stride, pad and dilation"
            )
    return col


def im2col(img, kh, kw, sy, sx, ph, pw, cover_all=False, dy=1, dx=1, out_h=None, out_w=None):
    """:func:`im2col_cpu` with zero padding (Chainer's device-dispatching name)."""
    return im2col_cpu(img, kh, kw, sy, sx, ph, pw, 0, cover_all, dy, dx, out_h, out_w)


def col2im_cpu(col, sy, sx, ph, pw, h, w, dy=1, dx=1):
    """The adjoint of :func:`im2col_cpu`: patches ``(n, c, kh, kw, out_h, out_w)`` added back onto
    images ``(n, c, h, w)``.

    >>> import numpy
    >>> col2im_cpu(numpy.ones((1, 1, 2, 2, 2, 2)), 1, 1, 0, 0, 3, 3)[0, 0]
    array([[1., 2., 1.],
           [2., 4., 2.],
           [1., 2., 1.]])
    """
    return conv_nd.col2im_nd_cpu(col, (sy, sx), (ph, pw), (h, w), (dy, dx))


im2col_gpu = im2col
col2im = col2im_gpu = col2im_cpu
