"""The one backward engine: propagate cotangents from outputs to every Record that made them.

Records are visited in descending sequence number, which is a topological order, so no sort
is needed. Cotangents are accumulated with the ``add`` primitive, so with ``create_graph`` the
backward pass is itself recorded and can be differentiated again.

A Record whose output is a tuple (a primitive with several outputs, such as a Chainer
``FunctionNode``) gets a tuple of cotangents, one per output, None where none arrived; its
outputs are taken apart with ``take_output``, whose VJP puts the cotangent in its slot.

A VJP may return a ``Deferred`` cotangent (``deferred.py``): deferred terms of one kind are
merged as they arrive and computed once, when their Record is visited. Deferred cotangents that
share a batch key are computed together, when the first of them is needed. So that they have
all arrived by then, the engine, on reaching the first Record with such a cotangent, first
visits every scheduled Record that is not an ancestor of it. That is still a topological order:
no Record left aside sends a cotangent to one visited meanwhile, since ancestors send only to
ancestors. It reorders once per pass, for the first batch key it meets (the output layer of
a recurrent model, whose cotangents come first): a walk over the graph for every key would
cost more than it saves.
"""

from __future__ import annotations

import heapq

from ..errors import VJPRuleError, aval, message
from .deferred import batch_key_of, is_deferred, value_of
from .tracer import Record, Tracer, unbox_all

__all__ = ["backward"]

_add = None  # the add primitive, bound on first use (fnet.ops imports this package)


def _accumulate(a, b):
    global _add
    if _add is None:
        from ..ops.elementwise import add as _add_primitive

        _add = _add_primitive
    return _add(a, b)


def _add_slots(total: tuple, ct: tuple) -> tuple:
    """Cotangents of a tuple-valued output added slot by slot (None is a zero)."""
    return tuple(a if b is None else b if a is None else _accumulate(a, b) for a, b in zip(total, ct))


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
    grads: dict = {}
    kept: dict = {}
    heap: list = []
    # Records whose cotangent is a sum this engine made: no one else holds that array, so
    # further cotangents are added into it in place (one pass, no new array). Not while the
    # backward pass is itself recorded: then every sum must be a recorded operation.
    owned: set = set()
    batches: dict = {}  # batch key -> the Records whose first cotangent had that key

    def send(record: Record, ct) -> None:
        """Add ``ct`` to the cotangent of ``record``, scheduling it on its first arrival."""
        if record not in grads:
            grads[record] = ct
            heapq.heappush(heap, (-record.seq, record))
            key = batch_key_of(ct)
            if key is not None:
                batches.setdefault(key, []).append(record)
            return
        total = grads[record]
        if type(total) is tuple:
            grads[record] = _add_slots(total, ct)
            return
        if is_deferred(total) or is_deferred(ct):
            merged = total.merge(ct) if is_deferred(total) else None
            if merged is not None:
                grads[record] = merged
                return
            total, ct = value_of(total), value_of(ct)
        if record in owned and type(ct) is not Tracer and getattr(ct, "dtype", None) == total.dtype:
            total += ct
            return
        total = grads[record] = _accumulate(total, ct)
        if not create_graph and type(total) is not Tracer and getattr(total, "flags", None) is not None:
            if total.flags.writeable:
                owned.add(record)

    def computed(ct):
        """The value of the deferred cotangent ``ct``, computed with the others of its batch."""
        key = ct.batch_key
        if key is None:
            return ct.value()
        others = [r for r in batches.pop(key) if batch_key_of(grads.get(r)) == key]
        values = type(ct).values([ct] + [grads[r] for r in others])
        grads.update(zip(others, values[1:]))
        return values[0]

    def visit_unrelated_first(record: Record) -> None:
        """Visit every scheduled Record that is not an ancestor of ``record``."""
        ancestors = _ancestors(record)
        held = []
        while heap:
            other = heapq.heappop(heap)[1]
            if other in ancestors:
                held.append(other)
            else:
                visit(other)
        for other in held:
            heapq.heappush(heap, (-other.seq, other))

    def visit(record: Record) -> None:
        """Send the VJPs of ``record`` to its parents (or keep its cotangent)."""
        primitive = record.primitive
        g = grads.pop(record)
        if is_deferred(g):
            g = computed(g)
        if primitive is None or (keep is not None and keep(record)):
            kept[record] = g
            if primitive is None:
                return
        params = record.params
        if create_graph:
            args = [v if p is None else p for p, v in zip(record.parents, record.args)]
            ans = Tracer(record.ans, record.level, record)
        else:
            args = record.args
            ans = record.ans
        vjps = primitive.vjps
        for index, parent in enumerate(record.parents):
            if parent is None:
                continue
            vjp = vjps[index]
            if vjp is None:  # declared as having no gradient in this operand
                continue
            ct = vjp(g, ans, *args, **params)
            if ct is not None and _check_cotangent(record, index, ct, parent):
                send(parent.record, ct)

    for tracer, ct in roots:
        send(tracer.record, ct)
    reordered = False
    while heap:
        record = heapq.heappop(heap)[1]
        if not reordered and batch_key_of(grads[record]) is not None:
            reordered = True
            visit_unrelated_first(record)
        visit(record)
    return kept
