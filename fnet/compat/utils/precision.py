"""``chainer.utils.precision``: run a FunctionNode's forward in float32 when its inputs are float16."""

from __future__ import annotations

import functools

import numpy

__all__: list[str] = []  # Chainer's one name here is semi-public: _fp16_mixed_precision_helper


def _fp16_mixed_precision_helper(forward):
    """Decorate ``forward(self, inputs)`` so that float16 inputs arrive as float32, and, when no
    input is a wider float, its float32 outputs go back as float16 (others pass unchanged)."""

    @functools.wraps(forward)
    def wrapper(self, inputs):
        half = all(x.dtype.kind != "f" or x.dtype == numpy.float16 for x in inputs)
        widened = tuple(x.astype(numpy.float32) if x.dtype == numpy.float16 else x for x in inputs)
        outputs = forward(self, widened)
        if not half:
            return outputs
        return tuple(
            y.astype(numpy.float16) if y is not None and y.dtype == numpy.float32 else y for y in outputs
        )

    return wrapper
