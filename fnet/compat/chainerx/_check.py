"""``check_backward`` and ``check_double_backward``: the gradients ``grad`` computes against
central differences of the function, within ``atol + rtol * |numerical|``."""

from __future__ import annotations

import numpy

from ...errors import message
from ._array import raw, resolve_backprop_id, wrap
from ._backprop import grad
from ._errors import GradientCheckError

__all__ = ["check_backward", "check_double_backward"]


def _as_tuple(outputs) -> tuple:
    return tuple(outputs) if isinstance(outputs, (list, tuple)) else (outputs,)


def _projected(func, xs, grad_outputs) -> float:
    """``sum_i <func(xs)[i], grad_outputs[i]>`` in float64, on arrays outside every graph."""
    ys = _as_tuple(func(list(xs)))
    return sum(
        float(numpy.sum(numpy.asarray(raw(y), numpy.float64) * raw(g))) for y, g in zip(ys, grad_outputs)
    )


def _numerical(func, inputs, grad_outputs, eps) -> list:
    data = [raw(x).copy() for x in inputs]
    grads = []
    for i, x in enumerate(data):
        g = numpy.zeros(x.shape, numpy.float64)
        step = raw(eps[i])
        for j in numpy.ndindex(*x.shape):
            values = []
            for sign in (1, -1):
                shifted = [d.copy() for d in data]
                shifted[i][j] = x[j] + sign * step[j]
                values.append(_projected(func, [wrap(d, inputs[0].device) for d in shifted], grad_outputs))
            g[j] = (values[0] - values[1]) / (2 * float(step[j]))
        grads.append(g)
    return grads


def check_backward(func, inputs, grad_outputs, eps, atol=1e-5, rtol=1e-4, backprop_id=None) -> None:
    """Raise ``GradientCheckError`` unless the gradients of ``func(inputs)`` (projected on
    ``grad_outputs``) match central differences with steps ``eps`` (one array per input)."""
    bid = resolve_backprop_id(backprop_id)
    inputs = list(inputs)
    outputs = _as_tuple(func(inputs))
    analytic = grad(list(outputs), inputs, bid, grad_outputs=list(grad_outputs))
    numerical = _numerical(func, inputs, [raw(g) for g in grad_outputs], eps)
    for index, (a, n) in enumerate(zip(analytic, numerical)):
        computed = numpy.zeros_like(n) if a is None else numpy.asarray(raw(a), numpy.float64)
        if not numpy.allclose(computed, n, rtol=rtol, atol=atol):
            raise GradientCheckError(
                message(
                    "chainerx.check_backward",
                    f"the gradient of input {index} does not match central differences "
                    f"(atol={atol}, rtol={rtol}):\n  computed: {computed.tolist()}"
                    f"\n  numerical: {n.tolist()}",
                    hint="the function's backward does not differentiate its forward",
                )
            )


def check_double_backward(
    func, inputs, grad_outputs, grad_grad_inputs, eps, atol=1e-5, rtol=1e-4, backprop_id=None
) -> None:
    """``check_backward`` of the first-order gradients of ``func`` as a function of the inputs
    and the output gradients, projected on ``grad_grad_inputs``; ``eps`` has one array per
    input and per output gradient."""
    bid = resolve_backprop_id(backprop_id)
    n_inputs = len(inputs)

    def first_order(arrays):
        xs, gys = arrays[:n_inputs], arrays[n_inputs:]
        for a in arrays:
            if not a.is_backprop_required(bid):
                a.require_grad(bid)
        grads = grad(list(_as_tuple(func(xs))), xs, bid, enable_double_backprop=True, grad_outputs=gys)
        return tuple(g if g is not None else x.as_grad_stopped() * 0 for g, x in zip(grads, xs))

    check_backward(first_order, [*inputs, *grad_outputs], grad_grad_inputs, eps, atol, rtol, bid)
