"""``chainer._backprop_utils``: one FunctionNode's backward step on lists of gradients.

Chainer's backward loop calls ``backprop_step`` for each node, with the gradients gathered so
far per input node in lists (``_reduce`` sums a list into one Variable). fnet's loop is the
core engine (``fnet.autodiff.backward``), which does not use these: they are kept for code and
tests written against Chainer's private helpers, and run a node's own ``backward`` (or
``backward_accumulate``) with the checks the engine applies.
"""

from __future__ import annotations

from . import configuration
from .function_node import FunctionNode
from .variable import Variable

__all__ = ["backprop_step"]


def _reduce(grad_list: list):
    """The sum of the gradients in ``grad_list`` (None for an empty list); the list is left
    holding that sum alone."""
    if not grad_list:
        return None
    if len(grad_list) >= 2:
        total = grad_list[0]
        for g in grad_list[1:]:
            total = total + g
        grad_list[:] = [total]
    return grad_list[0]


def _pop_or_none(grad_list: list):
    return grad_list.pop() if grad_list else None


def backprop_step(func, target_input_indexes, grad_outputs, grad_inputs: dict, is_debug: bool) -> None:
    """Run ``func``'s backward for ``target_input_indexes`` and append each gradient to the
    list ``grad_inputs[func.inputs[i]]`` (summed at once unless ``config.lazy_grad_sum``).

    ``grad_outputs`` holds a gradient (Variable or array) or None per output. With
    ``is_debug``, a gradient that is not a Variable, or of the wrong shape or dtype, and NaN
    in the results are errors, as in Chainer's debug mode.
    """
    targets = tuple(target_input_indexes)
    grad_outputs = tuple(None if g is None or isinstance(g, Variable) else Variable(g) for g in grad_outputs)
    if type(func).backward_accumulate is not FunctionNode.backward_accumulate:
        so_far = tuple(_pop_or_none(grad_inputs[func.inputs[i]]) for i in targets)
        gxs = tuple(func.backward_accumulate(targets, grad_outputs, so_far))
    else:
        gxs = func.backward(targets, grad_outputs)
        if is_debug:
            for gx in gxs:
                if gx is not None and not isinstance(gx, Variable):
                    raise ValueError(
                        f"{func.label}.backward: type of gradients returned from backward is incorrect: "
                        f"{type(gx).__name__} != expected Variable\n"
                        "  hint: wrap gradients with chainer.Variable"
                    )
        gxs = func._per_target(gxs, targets)
    for i, gx in zip(targets, gxs):
        if gx is None or gx.array is None:
            continue
        node = func.inputs[i]
        if is_debug and gx.shape != node.shape:
            raise ValueError(
                f"{func.label}.backward: shape of gradients returned from backward is incorrect: "
                f"input-index={i}, actual {gx.shape} != expected {node.shape}"
            )
        grad_inputs[node].append(gx)
    if is_debug:
        for grads in grad_inputs.values():
            for g in grads:
                if g.dtype.kind == "f" and g.xp.isnan(g.array).any():
                    raise RuntimeError(f"NaN is detected on backward computation of {func.label}")
    if not configuration.config.lazy_grad_sum:
        for grads in grad_inputs.values():
            _reduce(grads)
