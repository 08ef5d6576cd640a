"""Deferred cotangents: gradients whose sum is cheaper to compute at once than term by term.

A parameter used at every step of a loop (the output layer of a language model, an embedding)
gets one cotangent per use. Summed as they arrive, each term is a full ``(out, in)`` matrix
written and added once more; kept as their factors and summed when the parameter's cotangent
is read, they become one call: the matrix products ``g_t.T @ x_t`` one product of the stacked
factors, the row scatters of an embedding one scatter.

A VJP may return a ``Deferred`` in place of an array when it works on raw arrays (never while
the backward pass is recorded: then every term must be a traced operation). The engine merges
deferred terms of one kind and takes ``value()`` before the cotangent is used anywhere else.
"""

from __future__ import annotations

import abc

__all__ = ["Deferred", "value_of"]


class Deferred(abc.ABC):
    """A cotangent kept as the terms of a sum; ``shape`` and ``dtype`` are those of its value."""

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple, dtype):
        self.shape = shape
        self.dtype = dtype

    def merge(self, other) -> Deferred | None:
        """The sum of ``self`` and ``other`` as one deferred cotangent, or None when they do not
        combine (another kind, another dtype, another shape): then both are computed."""
        if type(other) is not type(self) or other.shape != self.shape or other.dtype != self.dtype:
            return None
        return self._joined(other)

    @abc.abstractmethod
    def _joined(self, other: Deferred) -> Deferred:
        """The sum of ``self`` and ``other``, of this kind, shape and dtype."""

    @abc.abstractmethod
    def value(self):
        """The array this cotangent stands for."""


def value_of(ct):
    """``ct`` as an array: the value of a deferred cotangent, anything else unchanged."""
    return ct.value() if isinstance(ct, Deferred) else ct
