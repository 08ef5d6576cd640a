"""Deferred cotangents: gradients whose sum is cheaper to compute at once than term by term.

A parameter used at every step of a loop (the output layer of a language model, an embedding)
gets one cotangent per use. Summed as they arrive, each term is a full ``(out, in)`` matrix
written and added once more; kept as their factors and summed when the parameter's cotangent
is read, they become one call: the matrix products ``g_t.T @ x_t`` one product of the stacked
factors, the row scatters of an embedding one scatter.

Deferred cotangents of *different* operands may be computed together too: those with one
``batch_key`` are computed by one call of ``values``. The input cotangents ``g_t @ W`` of a
weight applied at every time step become one product of the stacked ``g_t``; the engine
visits what does not lead to the first of them before it (``backward.py``), so that every
``g_t`` is there when the product is made.

A VJP may return a ``Deferred`` in place of an array when it works on raw arrays (never while
the backward pass is recorded: then every term must be a traced operation). The engine merges
deferred terms of one kind and takes ``value()`` before the cotangent is used anywhere else.
"""

from __future__ import annotations

import abc

__all__ = ["Deferred", "batch_key_of", "is_deferred", "value_of"]

_KINDS: set = set()  # the subclasses of Deferred: a type lookup is faster than isinstance of an ABC


class Deferred(abc.ABC):
    """A cotangent kept as the terms of a sum; ``shape`` and ``dtype`` are those of its value."""

    __slots__ = ("shape", "dtype")

    #: Deferred cotangents with one key (not None) are computed together by ``values``.
    batch_key = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _KINDS.add(cls)

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
    def _joined(self, other: Deferred) -> Deferred | None:
        """The sum of ``self`` and ``other``, of this kind, shape and dtype (None when they
        differ in something else that keeps them apart)."""

    @abc.abstractmethod
    def value(self):
        """The array this cotangent stands for."""

    @classmethod
    def values(cls, deferred: list) -> list:
        """The arrays of several cotangents of this kind that share a ``batch_key``."""
        return [d.value() for d in deferred]


def is_deferred(ct) -> bool:
    """Whether ``ct`` is a deferred cotangent."""
    return type(ct) in _KINDS


def batch_key_of(ct):
    """The batch key of a deferred cotangent; None for one computed alone, or for an array."""
    return ct.batch_key if type(ct) in _KINDS else None


def value_of(ct):
    """``ct`` as an array: the value of a deferred cotangent, anything else unchanged."""
    return ct.value() if type(ct) in _KINDS else ct
