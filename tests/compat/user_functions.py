"""The guide's user-defined function ``x * y + z``, written as Chainer's documentation writes
it, for the tests of function nodes and of gradient checks."""

from __future__ import annotations

import fnet.compat as chainer


class MulAdd(chainer.FunctionNode):
    """New style: ``forward_cpu`` on arrays (retaining ``x`` and ``y``), a ``backward`` on
    Variables, so that it can be differentiated again."""

    def forward_cpu(self, inputs):
        self.retain_inputs((0, 1))
        x, y, z = inputs
        return (x * y + z,)

    def backward(self, target_input_indexes, grad_outputs):
        x, y = self.get_retained_inputs()
        (gw,) = grad_outputs
        return y * gw, x * gw, gw


class MulAddOld(chainer.Function):
    """Old style: ``forward_cpu`` and ``backward_cpu``, both on arrays."""

    def forward_cpu(self, inputs):
        x, y, z = inputs
        return (x * y + z,)

    def backward_cpu(self, inputs, grad_outputs):
        x, y, _ = inputs
        (gw,) = grad_outputs
        return y * gw, x * gw, gw


def muladd(x, y, z):
    """``MulAdd`` applied to ``x``, ``y``, ``z``: its one output."""
    return MulAdd().apply((x, y, z))[0]
