"""Backprop in ChainerX's terms over fnet's one backward engine.

``backward`` runs ``fnet.autodiff.backward`` from the outputs' tracers on the graph's level and
hands each array that requires grad the cotangent of its record (adding to a gradient already
there); ``enable_double_backprop`` records the pass on the same level, so the gradients are in
the graph too. ``grad`` returns the cotangents instead of storing them. Backprop IDs are scoped
by ``backprop_scope``; the modes by ``no_backprop_mode``/``force_backprop_mode``.
"""

from __future__ import annotations

from ...autodiff import backward as _engine_backward
from ...errors import message
from . import _graph
from ._array import ndarray, resolve_backprop_id, wrap
from ._device import CHAINER_LEVEL, BackpropId, Context, get_default_context
from ._errors import GradientError

__all__ = [
    "BackpropScope",
    "backprop_scope",
    "backward",
    "grad",
    "no_backprop_mode",
    "force_backprop_mode",
    "is_backprop_required",
    "NoBackpropMode",
    "ForceBackpropMode",
    "on_shared_graph_gradients",
]


class BackpropScope:
    """``with``: a new backprop ID (``as`` gives it), released when the block ends."""

    def __init__(self, name: str, context: Context | None = None):
        self._name = name
        self._context = context
        self._id: BackpropId | None = None

    def __enter__(self) -> BackpropId:
        self._id = (self._context or get_default_context()).make_backprop_id(self._name)
        return self._id

    def __exit__(self, *exc) -> None:
        self._id._expire()


def backprop_scope(name: str, context: Context | None = None) -> BackpropScope:
    return BackpropScope(name, context)


def _levels(args, where: str):
    """The levels named by a mode's argument: None (all) for nothing or a Context, else the
    levels of one backprop ID or of a sequence of them."""
    if not args or args[0] is None or isinstance(args[0], Context):
        return None
    target = args[0]
    ids = target if isinstance(target, (list, tuple)) else (target,)
    return [resolve_backprop_id(b).tape_level for b in ids]


class NoBackpropMode:
    """``with``: the named graphs (all, by default) do not record."""

    _on = False

    def __init__(self, *args, context=None):
        self._levels = _levels(args, type(self).__name__)
        given = context if context is not None else args[0] if args and isinstance(args[0], Context) else None
        self._context = given or get_default_context()
        self._blocks: list = []

    def __enter__(self) -> None:
        block = _graph.set_mode(self._on, self._levels, self._context)
        block.__enter__()
        self._blocks.append(block)

    def __exit__(self, *exc) -> None:
        self._blocks.pop().__exit__(*exc)


class ForceBackpropMode(NoBackpropMode):
    """``with``: the named graphs (all, by default) record, even inside ``no_backprop_mode``."""

    _on = True


def no_backprop_mode(*args, context=None) -> NoBackpropMode:
    """No recording in the graphs of a backprop ID, a list of them, or all of a context (the
    default one)."""
    return NoBackpropMode(*args, context=context)


def force_backprop_mode(*args, context=None) -> ForceBackpropMode:
    """Recording in the graphs of a backprop ID, a list of them, or all of a context (the
    default one)."""
    return ForceBackpropMode(*args, context=context)


def is_backprop_required(backprop_id=None, context=None) -> bool:
    """Whether the graph ``backprop_id`` (the default one; a Context: its default) records now."""
    if backprop_id is None and context is not None:
        if not isinstance(context, Context):
            raise TypeError(
                message("is_backprop_required", f"expected a chainerx.Context, got {type(context).__name__}")
            )
        backprop_id = context
    if isinstance(backprop_id, Context):
        backprop_id = backprop_id.default_backprop_id
    return _graph.recording(resolve_backprop_id(backprop_id).tape_level)


def _roots(outputs, bid: BackpropId, where: str, grad_outputs=None) -> list:
    """``(tracer, cotangent)`` for the outputs in graph ``bid`` (the others have nothing to
    propagate); the cotangent is the given one, the output's gradient, or ones."""
    if grad_outputs is not None and len(grad_outputs) != len(outputs):
        raise GradientError(
            message(
                where,
                f"expected one output gradient per output ({len(outputs)}), got {len(grad_outputs)}",
                hint="pass grad_outputs of the same length as outputs",
            )
        )
    roots = []
    for index, output in enumerate(outputs):
        tracer = _graph.at_level(output._v, bid.tape_level)
        if tracer is None:
            continue
        given = None
        if grad_outputs is not None:
            given = grad_outputs[index]
        elif output._grads is not None and output._grads.get(bid) is not None:
            given = output._grads[bid]
        if given is None:
            cotangent = output.device.xp.ones_like(_data(output))
        else:
            if given.shape != output.shape or given.dtype != output.dtype:
                raise GradientError(
                    message(
                        where,
                        f"the output gradient must match the output: expected {output.shape} {output.dtype}, "
                        f"got {given.shape} {given.dtype}",
                        hint="pass gradients of the outputs' shapes and dtypes",
                    )
                )
            cotangent = given._v
        roots.append((tracer, cotangent))
    return roots


def _data(array):
    return _graph.strip(array._v)


def _as_list(outputs) -> list:
    return [outputs] if isinstance(outputs, ndarray) else list(outputs)


def backward(outputs, backprop_id=None, enable_double_backprop=False) -> None:
    """Backpropagate from ``outputs`` (an array or a list) in graph ``backprop_id``: every array
    there that requires grad gets (adds to) its gradient."""
    bid = resolve_backprop_id(backprop_id)
    outputs = _as_list(outputs)
    roots = _roots(outputs, bid, "chainerx.backward")
    wanted = bid.arrays
    found = _engine_backward(roots, create_graph=enable_double_backprop, keep=wanted.__contains__)
    # an output that has a gradient keeps it; one without (an input backpropagated from) gets its own
    given = {
        _graph.level_records(o._v, bid.tape_level)
        for o in outputs
        if o._grads and o._grads.get(bid) is not None
    }
    _store(found, bid, skip=given)
    if bid.tape_level == CHAINER_LEVEL:
        for hook in _shared_graph_hooks:
            hook(found)


# what the Chainer layer does with the gradients a backward pass finds in the default graph it
# shares (its Variables that are inputs of the graph take theirs): ``on_shared_graph_gradients``
_shared_graph_hooks: list = []


def on_shared_graph_gradients(hook) -> None:
    """Call ``hook({record: cotangent})`` after each backward pass in the graph shared with the
    Chainer layer (trace level 0)."""
    _shared_graph_hooks.append(hook)


def grad(
    outputs,
    inputs,
    backprop_id=None,
    enable_double_backprop=False,
    set_grad=False,
    retain_grad=False,
    grad_outputs=None,
    grad_inputs=None,
) -> list:
    """The gradients of ``outputs`` with respect to ``inputs`` in graph ``backprop_id`` (None for
    an input the outputs do not depend on); ``set_grad`` also stores them on the inputs."""
    bid = resolve_backprop_id(backprop_id)
    outputs = _as_list(outputs)
    tracers = [_graph.at_level(x._v, bid.tape_level) for x in inputs]
    records = [None if t is None else t.record for t in tracers]
    wanted = {r for r in records if r is not None}
    kept = bid.arrays if retain_grad else {}
    roots = _roots(outputs, bid, "chainerx.grad", grad_outputs or None)
    found = _engine_backward(
        roots, create_graph=enable_double_backprop, keep=lambda r: r in wanted or r in kept
    )
    grads = [None if r not in found else wrap(found[r], x.device) for r, x in zip(records, inputs)]
    if set_grad:
        for x, g in zip(inputs, grads):
            if g is not None and x.is_grad_required(bid):
                x._set_grad_unchecked(bid, g)
    if retain_grad:
        _store(found, bid, skip=wanted)
    return grads


def _store(found: dict, bid: BackpropId, skip=()) -> None:
    """Give each array of ``bid`` that requires grad its cotangent among ``found``."""
    arrays = bid.arrays
    for record, cotangent in found.items():
        if record in skip:
            continue
        array = arrays.get(record)
        if array is None or array._grads is None or bid not in array._grads:
            continue
        array._set_grad_unchecked(bid, wrap(cotangent, array.device))


def _array_backward(self, backprop_id=None, enable_double_backprop=False) -> None:
    """Backpropagate from this array (see ``chainerx.backward``)."""
    backward([self], backprop_id, enable_double_backprop)


ndarray.backward = _array_backward
