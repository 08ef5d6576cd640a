"""The fast accumulator of backward passes: deferred cotangents, batched products, sums in place.

The backward engine (``fnet.autodiff.engine``) sums cotangents with a recorded primitive; when
the pass is not recorded, it uses ``DeferringSum`` instead, registered by this module. Each of
its three speed-ups is invisible in the results:

- **Deferred cotangents.** A parameter used at every step of a loop (the output layer of a
  language model, an embedding) gets one cotangent per use. Summed as they arrive, each term is
  a full ``(out, in)`` matrix written and added once more; kept as their factors and summed when
  the parameter's cotangent is read, they become one call: the matrix products ``g_t.T @ x_t``
  one product of the stacked factors, the row scatters of an embedding one scatter. A primitive
  offers such terms through ``deferrable``: forms of its VJPs, asked for only when the operands
  and the cotangent are plain arrays, that return a ``Deferred`` instead of an array.
- **Batches.** Deferred cotangents of *different* Records that share a ``batch_key`` are
  computed by one call of ``values``: the input cotangents ``g_t @ W`` of a weight applied at
  every time step become one product of the stacked ``g_t``. So that every ``g_t`` has arrived
  when the product is made, the accumulator, on reaching the first Record with a batch key,
  hands out first every waiting Record that is not an ancestor of it. That is still a
  topological order: no Record held back sends a cotangent to one handed out meanwhile, since
  ancestors send only to ancestors. It does so once per pass, for the first batch key (the output
  layer of a recurrent model, whose cotangents come first), and only when another Record that
  could send cotangents is waiting (not in a plain feed-forward pass): the walk over the graph
  that finds the ancestors costs more than it saves otherwise.
- **Sums in place.** A cotangent that is a sum this accumulator made is held by no one else, so
  further cotangents are added into it in place (one pass, no new array).
"""

from __future__ import annotations

import abc
import heapq
from collections.abc import Callable

from .autodiff.engine import Sum, accumulate, add_cotangents, register_fast_accumulator
from .autodiff.primitive import Primitive
from .autodiff.tracer import Record, Tracer

__all__ = ["Deferred", "DeferringSum", "deferrable", "value_of"]

_KINDS: set = set()  # the subclasses of Deferred: a type lookup is faster than isinstance of an ABC
_FORMS: dict = {}  # primitive -> its VJPs, with the deferring forms in place of some


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


def value_of(ct):
    """``ct`` as an array: the value of a deferred cotangent, anything else unchanged."""
    return ct.value() if type(ct) in _KINDS else ct


def deferrable(prim: Primitive, *forms: Callable | None) -> None:
    """Offer deferring forms of the VJPs of ``prim``, one per operand in order (None, or none
    given for the last operands: the VJP itself).

    A form takes the VJP's arguments, all plain arrays, and returns a ``Deferred`` of the
    value the VJP would return. ``prim``'s VJPs must be declared first.
    """
    forms += (None,) * (len(prim.vjps) - len(forms))
    _FORMS[prim] = tuple(vjp if form is None else form for form, vjp in zip(forms, prim.vjps))


def _ancestors(record: Record) -> set:
    """``record`` and every Record it depends on."""
    found = {record}
    stack = [record]
    while stack:
        for parent in stack.pop().parents:
            if parent is not None and parent.record not in found:
                found.add(parent.record)
                stack.append(parent.record)
    return found


class DeferringSum(Sum):
    """The accumulator of the backward passes that are not recorded (see the module)."""

    __slots__ = ("owned", "batches", "reordered", "ancestors", "held")

    def __init__(self):
        super().__init__()
        self.owned: set = set()  # Records whose cotangent is a sum made here
        self.batches: dict = {}  # batch key -> the Records whose first cotangent had that key
        self.reordered = False  # whether this pass has held ancestors back once already
        self.ancestors: set | None = None  # while some are held back: the Records to hold
        self.held: list = []

    def send(self, record: Record, ct) -> None:
        grads = self.grads
        if record not in grads:
            grads[record] = ct
            heapq.heappush(self.heap, (-record.seq, record))
            if type(ct) in _KINDS and ct.batch_key is not None:
                self.batches.setdefault(ct.batch_key, []).append(record)
            return
        total = grads[record]
        if type(total) is tuple:
            grads[record] = add_cotangents(total, ct)
            return
        if type(total) in _KINDS or type(ct) in _KINDS:
            merged = total.merge(ct) if type(total) in _KINDS else None
            if merged is not None:
                grads[record] = merged
                return
            total, ct = value_of(total), value_of(ct)
        if record in self.owned and type(ct) is not Tracer and getattr(ct, "dtype", None) == total.dtype:
            total += ct
            return
        total = grads[record] = accumulate(total, ct)
        flags = getattr(total, "flags", None)  # CuPy's have no writeable: a CuPy array always is
        if type(total) is not Tracer and flags is not None and getattr(flags, "writeable", True):
            self.owned.add(record)

    def take(self) -> tuple:
        heap = self.heap
        while heap or self.held:
            if not heap:  # every other Record is handed out: back to the held ones
                for record in self.held:
                    heapq.heappush(heap, (-record.seq, record))
                self.held, self.ancestors = [], None
            record = heapq.heappop(heap)[1]
            g = self.grads.pop(record)
            if self.ancestors is not None and record in self.ancestors:
                self.grads[record] = g
                self.held.append(record)
                continue
            if type(g) in _KINDS:
                if g.batch_key is not None and self._hold_ancestors(record):
                    self.grads[record] = g
                    continue
                g = self._computed(g)
            return record, g
        return None, None

    def _hold_ancestors(self, record: Record) -> bool:
        """Before ``record``, whose cotangent has a batch key, hand out the Records that do not
        lead to it (once per pass, when there are any that could send cotangents)."""
        if self.reordered:
            return False
        self.reordered = True
        if not any(other.primitive is not None for _, other in self.heap):
            return False
        self.ancestors = _ancestors(record)
        self.held.append(record)
        return True

    def _computed(self, ct):
        """The value of the deferred cotangent ``ct``, computed with the others of its batch."""
        key = ct.batch_key
        if key is None:
            return ct.value()
        grads = self.grads
        others = [r for r in self.batches.pop(key, ()) if _batch_key_of(grads.get(r)) == key]
        values = type(ct).values([ct] + [grads[r] for r in others])
        grads.update(zip(others, values[1:]))
        return values[0]

    def vjps(self, record: Record, g) -> tuple:
        forms = _FORMS.get(record.primitive)
        if forms is None or type(g) is Tracer or any(type(a) is Tracer for a in record.args):
            return record.primitive.vjps
        return forms


def _batch_key_of(ct):
    return ct.batch_key if type(ct) in _KINDS else None


register_fast_accumulator(DeferringSum)
