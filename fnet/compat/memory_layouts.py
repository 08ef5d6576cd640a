"""``chainer.memory_layouts``: the names of the array layouts cuDNN can compute in, and the
conversions between their shapes.

Chainer (experimentally, with ``chainer.config.compute_mode = 'cudnn_fast'``) may keep
images channel-last (NHWC) while a Variable's shape stays channel-first (NCHW). fnet's arrays
are always in the layout their shape says, so a Variable's raw shape is its semantic shape; the
shape conversions here serve code that handles channel-last arrays itself.
"""

from __future__ import annotations

from ._layouts import (
    CUDNN_CHANNEL_FIRST_W,
    CUDNN_CHANNEL_FIRST_X,
    CUDNN_CHANNEL_LAST_W,
    CUDNN_CHANNEL_LAST_X,
)
from ._layouts import FIRST_OF as _FIRST_OF
from ._layouts import layout_transpose_axes as _get_layout_transpose_axes
from .variable import Variable

__all__ = [
    "CUDNN_CHANNEL_FIRST_X",
    "CUDNN_CHANNEL_LAST_X",
    "CUDNN_CHANNEL_FIRST_W",
    "CUDNN_CHANNEL_LAST_W",
    "get_raw_shape",
    "get_semantic_shape",
]

_UNSPECIFIED = object()


def _transpose_shape(shape: tuple, src_layout, dst_layout) -> tuple:
    """``shape`` of an array in ``src_layout`` as the shape of that array in ``dst_layout``."""
    axes = _get_layout_transpose_axes(len(shape), src_layout, dst_layout)
    return tuple(shape) if axes is None else tuple(shape[i] for i in axes)


def _transpose_array(array, src_layout, dst_layout):
    """``array`` in ``src_layout`` transposed into ``dst_layout``."""
    axes = _get_layout_transpose_axes(array.ndim, src_layout, dst_layout)
    return array if axes is None else array.transpose(*axes)


def get_raw_shape(arr_or_var) -> tuple:
    """The shape of the data as stored (an fnet Variable stores it in its semantic layout)."""
    return tuple(arr_or_var.shape)


def get_semantic_shape(arr_or_var, *, assumed_layout=_UNSPECIFIED) -> tuple:
    """The channel-first shape of an array stored in ``assumed_layout`` (the array's own shape
    if none is given), or of a Variable.

    >>> import numpy
    >>> get_semantic_shape(numpy.zeros((2, 5, 5, 3)), assumed_layout=CUDNN_CHANNEL_LAST_X)
    (2, 3, 5, 5)
    """
    if assumed_layout is _UNSPECIFIED or isinstance(arr_or_var, Variable):
        return tuple(arr_or_var.shape)
    return _transpose_shape(arr_or_var.shape, assumed_layout, _FIRST_OF.get(assumed_layout, assumed_layout))
