"""``F.forget`` and its node ``Forget``: a function run without keeping its graph, run again
with one during backward (Chainer's memory-saving recomputation).

>>> import numpy
>>> from fnet.compat import Variable
>>> x = Variable(numpy.array([1.0, 2.0], numpy.float32))
>>> y = forget(lambda a: a * a, x)
>>> y.grad = numpy.ones(2, numpy.float32)
>>> y.backward()
>>> x.grad
array([2., 4.], dtype=float32)
"""

from __future__ import annotations

from ...autodiff import Tracer
from .. import configuration
from ..function_node import FunctionNode
from ..variable import Variable, backward, force_backprop_mode, no_backprop_mode

__all__ = ["Forget", "forget"]

_SUFFIXES = {1: "st", 2: "nd", 3: "rd"}


def _ordinal(n: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``... ``11th``, ``12th``, ``13th``, ``21st``."""
    return f"{n}{_SUFFIXES.get(n if n < 20 else n % 10, 'th')}"


def _outputs(func, xs) -> tuple:
    """``func(*xs)`` as a tuple of Variables; anything else returned is Chainer's RuntimeError."""
    outs = func(*xs)
    if isinstance(outs, Variable):
        return (outs,)
    if not isinstance(outs, tuple):
        raise RuntimeError(
            f"forget: expected func to return a Variable or a tuple of Variables, got {type(outs)}\n"
            "  hint: return the outputs as Variables, e.g. (y,) or (y1, y2)"
        )
    for i, out in enumerate(outs):
        if not isinstance(out, Variable):
            raise RuntimeError(
                f"forget: the {_ordinal(i + 1)} element of the tuple func returned is not a Variable, "
                f"but {type(out)}\n  hint: compute every output with chainer.functions on the inputs"
            )
    return outs


class Forget(FunctionNode):
    """The node of ``F.forget(func, *xs)``: its forward runs ``func`` without a graph (under
    ``config._will_recompute``); its backward runs ``func`` again with one (under
    ``config.in_recomputing``, so that links do not update their statistics twice) and
    backpropagates through it, into the parameters ``func`` uses too."""

    def __init__(self, func):
        if not callable(func):
            raise TypeError(
                f"forget: expected func to be callable, got {type(func).__name__}\n"
                "  hint: pass the function (or link) first, then its inputs: F.forget(f, x)"
            )
        self.func = func

    def forward(self, inputs):
        self.retain_inputs(tuple(range(len(inputs))))
        with no_backprop_mode(), configuration.using_config("_will_recompute", True):
            outs = _outputs(self.func, [Variable(x) for x in inputs])
        return tuple(out.array for out in outs)

    def backward(self, target_input_indexes, grad_outputs):
        if any(type(x) is Tracer for x in self._retained_inputs):  # the backward pass is recorded
            raise RuntimeError(
                "forget: double backpropagation through F.forget is not supported\n"
                "  hint: call backward() without enable_double_backprop, or do not use F.forget there"
            )
        inputs = [Variable(x.array) for x in self.get_retained_inputs()]
        with force_backprop_mode(), configuration.using_config("in_recomputing", True):
            outs = _outputs(self.func, inputs)
        pairs = [(out, g) for out, g in zip(outs, grad_outputs) if g is not None]
        backward([out for out, _ in pairs], [g for _, g in pairs])
        return tuple(inputs[i].grad_var for i in target_input_indexes)


def forget(func, *xs):
    """``func(*xs)`` without keeping its intermediate values: they are computed again during
    backward (Chainer's ``F.forget``). ``func`` takes and returns Variables (one, or a tuple);
    arrays among ``xs`` become Variables that need a gradient. Double backpropagation is not
    supported, and ``func`` must give the same result twice (no dropout)."""
    xs = tuple(x if isinstance(x, Variable) else Variable(x, requires_grad=True) for x in xs)
    outs = Forget(func).apply(xs)
    return outs[0] if len(outs) == 1 else outs
