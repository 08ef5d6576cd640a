"""``chainer.utils.conv_nd``: the output length of a convolution along one axis, and the patches
of N-dimensional images (im2col) and their adjoint (col2im) on raw arrays, as Chainer's
convolutions and poolings lay them out.

Both are lifts of fnet's pure convolution: im2col is ``convolution_nd`` with the identity
filters (one per kernel offset), col2im the matching ``deconvolution_nd``. They run on NumPy and
CuPy arrays alike, so the ``_cpu`` and ``_gpu`` names are the same functions.
"""

from __future__ import annotations

import math

from ... import backend
from ...functions import convolution as _convolution

__all__ = [
    "get_conv_outsize",
    "get_deconv_outsize",
    "as_tuple",
    "im2col_nd",
    "im2col_nd_cpu",
    "im2col_nd_gpu",
    "col2im_nd",
    "col2im_nd_cpu",
    "col2im_nd_gpu",
]


def get_conv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False, d: int = 1) -> int:
    """The output length of a convolution over an axis of ``size`` with kernel ``k``, stride
    ``s``, padding ``p`` and dilation ``d`` (``cover_all`` adds the windows needed to read
    every input element).

    >>> get_conv_outsize(7, 3, 2, 1), get_conv_outsize(6, 3, 2, 0, cover_all=True)
    (4, 3)
    """
    return _convolution._conv_outsize(size, k, s, p, cover_all, d)


def get_deconv_outsize(size: int, k: int, s: int, p: int, cover_all: bool = False, d: int = 1) -> int:
    """The output length of a deconvolution (transposed convolution): the input length of the
    convolution with the same arguments that gives ``size``.

    >>> get_deconv_outsize(4, 3, 2, 1), get_deconv_outsize(3, 3, 2, 0, cover_all=True)
    (7, 6)
    """
    return _convolution._deconv_outsize(size, k, s, p, d) - (s - 1 if cover_all else 0)


def as_tuple(x, n: int) -> tuple:
    """``x`` as an ``n``-tuple: a sequence of length ``n`` as it is, a scalar repeated.

    >>> as_tuple(2, 3), as_tuple([1, 2], 2)
    ((2, 2, 2), (1, 2))
    """
    if hasattr(x, "__getitem__"):
        if len(x) != n:
            raise AssertionError(
                f"as_tuple: expected a sequence of length {n}, got {len(x)} ({tuple(x)})\n"
                f"  hint: give one value per spatial axis ({n}), or a single int for all"
            )
        return tuple(x)
    return (x,) * n


def _check_ranks(fn: str, ndim: int, **parameters) -> None:
    """Chainer's AssertionError when a parameter has not one entry per spatial axis."""
    for name, value in parameters.items():
        if len(value) != ndim:
            raise AssertionError(
                f"{fn}: expected {name} with one entry per spatial axis ({ndim}), got {tuple(value)}\n"
                f"  hint: the images have {ndim} spatial axes"
            )


def _identity_filters(xp, ksize: tuple[int, ...], dtype):
    """``(prod(ksize), 1, *ksize)``: filter ``i`` is 1 at the ``i``-th kernel offset, 0 elsewhere."""
    size = math.prod(ksize)
    return xp.eye(size, dtype=dtype).reshape(size, 1, *ksize)


def im2col_nd_cpu(img, ksize, stride, pad, pval=0, cover_all: bool = False, dilate=1):
    """The patches of ``img`` ``(n, c, d_1, ..., d_N)`` as ``(n, c, k_1, ..., k_N, out_1, ...,
    out_N)``: entry ``[.., j_1, .., j_N, o_1, .., o_N]`` is the pixel at ``o * stride - pad + j *
    dilate`` on each axis, or ``pval`` where that falls in the padding.

    >>> import numpy
    >>> im2col_nd_cpu(numpy.arange(4.0).reshape(1, 1, 4), (2,), (2,), (0,))[0, 0]
    array([[0., 2.],
           [1., 3.]])
    """
    n, c, *dims = img.shape
    ndim = len(dims)
    _check_ranks("im2col_nd", ndim, ksize=ksize, stride=stride, pad=pad)
    ksize, dilate = tuple(ksize), as_tuple(dilate, ndim)
    xp = backend.xp(img)
    filters = _identity_filters(xp, ksize, img.dtype)
    images = img.reshape(n * c, 1, *dims)
    col = _convolution.convolution_nd(images, filters, None, stride, pad, cover_all, dilate)
    if pval != 0:  # the padding holds pval: where the patches of an all-ones image read 0
        inside = _convolution.convolution_nd(
            xp.ones((1, 1, *dims), img.dtype), filters, None, stride, pad, cover_all, dilate
        )
        col = xp.where(inside != 0, col, xp.asarray(pval, dtype=img.dtype))
    return col.reshape(n, c, *ksize, *col.shape[2:])


def col2im_nd_cpu(col, stride, pad, dims, dilate=1):
    """The adjoint of :func:`im2col_nd_cpu`: the patches ``col`` ``(n, c, k_1, ..., k_N, out_1,
    ..., out_N)`` added back onto images ``(n, c, *dims)``.

    >>> import numpy
    >>> col2im_nd_cpu(numpy.ones((1, 1, 2, 3)), (1,), (0,), (4,))
    array([[[1., 2., 2., 1.]]])
    """
    ndim = (col.ndim - 2) // 2
    n, c = col.shape[:2]
    ksize, outs = col.shape[2 : 2 + ndim], col.shape[2 + ndim :]
    _check_ranks("col2im_nd", ndim, ksize=ksize, stride=stride, pad=pad, dims=dims)
    filters = _identity_filters(backend.xp(col), tuple(ksize), col.dtype)
    patches = col.reshape(n * c, math.prod(ksize), *outs)
    images = _convolution.deconvolution_nd(patches, filters, None, stride, pad, tuple(dims), dilate)
    return images.reshape(n, c, *dims)


def im2col_nd(img, ksize, stride, pad, cover_all: bool = False, dilate=1):
    """:func:`im2col_nd_cpu` with zero padding (Chainer's device-dispatching name)."""
    return im2col_nd_cpu(img, ksize, stride, pad, cover_all=cover_all, dilate=dilate)


im2col_nd_gpu = im2col_nd
col2im_nd = col2im_nd_gpu = col2im_nd_cpu
