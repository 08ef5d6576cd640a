"""The names of cuDNN's array layouts and the axes that convert an array between them: shared by
``chainer.memory_layouts`` and ``Variable.as_layout`` (which checks the layout it is given)."""

from __future__ import annotations

__all__ = [
    "CUDNN_CHANNEL_FIRST_X",
    "CUDNN_CHANNEL_LAST_X",
    "CUDNN_CHANNEL_FIRST_W",
    "CUDNN_CHANNEL_LAST_W",
    "FIRST_OF",
    "layout_transpose_axes",
]

CUDNN_CHANNEL_FIRST_X = None  # images (n, c, h, w): the standard layout
CUDNN_CHANNEL_LAST_X = "CUDNN_CHANNEL_LAST_X"  # images (n, h, w, c)
CUDNN_CHANNEL_FIRST_W = None  # filters (out, in, kh, kw): the standard layout
CUDNN_CHANNEL_LAST_W = "CUDNN_CHANNEL_LAST_W"  # filters (out, kh, kw, in)

FIRST_OF = {CUDNN_CHANNEL_LAST_X: CUDNN_CHANNEL_FIRST_X, CUDNN_CHANNEL_LAST_W: CUDNN_CHANNEL_FIRST_W}


def layout_transpose_axes(ndim: int, src_layout, dst_layout, inverse: bool = False):
    """The axes that ``transpose`` takes to turn an array of ``ndim`` axes in ``src_layout`` into
    ``dst_layout`` (None when they are the same).

    >>> layout_transpose_axes(4, None, CUDNN_CHANNEL_LAST_X)
    (0, 2, 3, 1)
    >>> layout_transpose_axes(4, CUDNN_CHANNEL_LAST_X, None)
    (0, 3, 1, 2)
    """
    if src_layout == dst_layout:
        return None
    if dst_layout in FIRST_OF and src_layout == FIRST_OF[dst_layout]:
        axes = (0, *range(2, ndim), 1)
    elif src_layout in FIRST_OF and dst_layout == FIRST_OF[src_layout]:
        axes = (0, ndim - 1, *range(1, ndim - 1))
    else:
        raise ValueError(
            f"memory_layouts: unknown layout conversion from {src_layout!r} to {dst_layout!r}\n"
            "  hint: a channel-last layout converts only to and from the channel-first one of its kind"
        )
    if ndim < 3:
        raise ValueError(
            f"memory_layouts: a channel-last layout needs 3 or more axes (batch, space, channel), got {ndim}"
        )
    if inverse:
        inverted = [0] * ndim
        for position, axis in enumerate(axes):
            inverted[axis] = position
        axes = tuple(inverted)
    return axes
