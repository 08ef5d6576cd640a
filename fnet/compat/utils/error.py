"""``chainer.utils.error``: the description of arrays in Chainer's error messages."""

from __future__ import annotations

__all__ = ["_format_array_props"]


def _format_array_props(arrays) -> str:
    """``'(2, 3):float32, None'``: the shape and dtype of each array of a list (None as is)."""
    if not isinstance(arrays, (list, tuple)):
        raise TypeError(
            f"_format_array_props: expected a list or tuple of arrays, got {type(arrays).__name__}"
        )
    return ", ".join("None" if a is None else f"{a.shape}:{a.dtype.name}" for a in arrays)
