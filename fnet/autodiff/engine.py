"""The one backward engine: propagate cotangents from outputs to every Record that made them.

Records are visited in descending sequence number, which is a topological order, so no sort
is needed. An accumulator sums the cotangents sent to each Record and hands the Records out in
that order; the loop calls their VJPs and sends what they return. The plain accumulator,
``Sum``, adds with the ``accumulate`` primitive, so with ``create_graph`` the backward pass is
itself recorded and can be differentiated again. A faster one may be registered (``fnet.deferred``
registers one); ``accumulator`` chooses it for the passes that are not recorded.

A Record whose output is a tuple (a primitive with several outputs, such as a Chainer
``FunctionNode``) gets a tuple of cotangents, one per output, None where none arrived; its
outputs are taken apart with ``take_output``, whose VJP puts the cotangent in its slot.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

from ..errors import VJPRuleError, aval, message
from ..recording._record import call_recorded, recordings
from .primitive import primitive
from .tracer import Record, Tracer, unbox_all

__all__ = [
    "backward",
    "accumulate",
    "add_cotangents",
    "Sum",
    "accumulator",
    "register_fast_accumulator",
    "set_record_observer",
]


@primitive
def accumulate(total, ct):
    """``total + ct``: two cotangents of one Record, of one shape and dtype by construction."""
    return total + ct


accumulate.defvjp(lambda g, ans, total, ct: g, lambda g, ans, total, ct: g)


def add_cotangents(total, ct):
    """The sum of two cotangents of one Record; those of a tuple-valued output slot by slot
    (None is a zero)."""
    if type(total) is not tuple:
        return accumulate(total, ct)
    return tuple(a if b is None else b if a is None else accumulate(a, b) for a, b in zip(total, ct))


class Sum:
    """The plain accumulator, and the interface of every accumulator.

    ``send(record, ct)`` adds a cotangent for ``record``; ``take()`` removes the waiting Record
    of highest sequence number and returns it with its total cotangent, or ``(None, None)``
    when none waits; ``vjps(record, g)`` gives the VJPs that the loop calls on ``g``.
    """

    __slots__ = ("grads", "heap")

    def __init__(self):
        self.grads: dict = {}
        self.heap: list = []

    def send(self, record: Record, ct) -> None:
        grads = self.grads
        if record in grads:
            grads[record] = add_cotangents(grads[record], ct)
        else:
            grads[record] = ct
            heapq.heappush(self.heap, (-record.seq, record))

    def take(self) -> tuple:
        if not self.heap:
            return None, None
        record = heapq.heappop(self.heap)[1]
        return record, self.grads.pop(record)

    def vjps(self, record: Record, g) -> tuple:
        return record.primitive.vjps


_fast: Callable[[], Sum] | None = None
# Called as ``observer(record, g, starting)`` before (True) and after (False) the VJPs of each
# Record a pass differentiates, when a layer above sets one (fnet.compat's function hooks).
_record_observer = None


def set_record_observer(observer):
    """From now on call ``observer(record, g, starting)`` around the VJPs of every Record a
    backward pass differentiates (None: no one); returns the previous one."""
    global _record_observer
    previous, _record_observer = _record_observer, observer
    return previous


def register_fast_accumulator(factory: Callable[[], Sum]) -> None:
    """Have ``accumulator`` make ``factory()`` for every pass that is not recorded."""
    global _fast
    _fast = factory


def accumulator(create_graph: bool) -> Sum:
    """The accumulator of one pass: the registered fast one, unless the pass is recorded."""
    return Sum() if create_graph or _fast is None else _fast()


def _check_cotangent(record: Record, index: int, ct, parent: Tracer) -> bool:
    """Whether ``ct`` flows into ``parent``: False for integer operands, which have no gradient."""
    value = parent.value
    if type(ct) is tuple and type(unbox_all(value)) is tuple and len(ct) == len(unbox_all(value)):
        return True
    try:
        if ct.shape == value.shape and ct.dtype == value.dtype:
            return True
        if value.dtype.kind not in "fc":
            return False
    except AttributeError:
        pass
    raise VJPRuleError(
        message(
            f"{record.primitive.name} (VJP of operand {index})",
            f"the cotangent must have the operand's shape and dtype, expected {aval(value)}, got {aval(ct)}",
            hint="this is a bug in the primitive's VJP rule: it must sum over broadcast axes "
            "and cast back to the operand's dtype",
        )
    )


def backward(roots, *, create_graph: bool = False, keep=None) -> dict:
    """Propagate cotangents backward from ``roots`` and return those of the kept Records.

    Args:
        roots: ``(tracer, cotangent)`` pairs; tracers on one level, cotangents of their shape.
        create_graph: call each VJP on the traced operands of its level, so that the backward
            computation is recorded on that level too (double backprop within one level).
        keep: a predicate ``record -> bool`` selecting intermediate Records whose cotangent is
            kept in the result; inputs of a trace (``primitive`` None) are always kept.

    Returns:
        A dict ``record -> cotangent``.
    """
    acc = accumulator(create_graph)
    observer = _record_observer
    for tracer, ct in roots:
        acc.send(tracer.record, ct)
    kept: dict = {}
    while True:
        record, g = acc.take()
        if record is None:
            return kept
        primitive = record.primitive
        if primitive is None or (keep is not None and keep(record)):
            kept[record] = g
            if primitive is None:
                continue
        if create_graph:
            args = [v if p is None else p for p, v in zip(record.parents, record.args)]
            ans = Tracer(record.ans, record.level, record)
        else:
            args = record.args
            ans = record.ans
        params = record.params
        vjps = acc.vjps(record, g)
        if observer is not None:
            observer(record, g, True)
        for index, parent in enumerate(record.parents):
            if parent is None:
                continue
            vjp = vjps[index]
            if vjp is None:  # declared as having no gradient in this operand
                continue
            if recordings.count:  # a step is being captured: a VJP that branches on values is kept whole
                ct = call_recorded(vjp, (g, ans, *args), params)
            else:
                ct = vjp(g, ans, *args, **params)
            if ct is not None and _check_cotangent(record, index, ct, parent):
                acc.send(parent.record, ct)
        if observer is not None:
            observer(record, g, False)
