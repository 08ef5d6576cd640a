"""``chainer._backprop_utils``: one node's backward step on lists of gradients."""

from __future__ import annotations

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import _backprop_utils


class _Twice(chainer.FunctionNode):
    def forward(self, inputs):
        return (inputs[0] * 2,)

    def backward(self, indexes, grad_outputs):
        return (grad_outputs[0] * 2,)


def test_backprop_step_appends_and_sums_the_gradients_of_the_inputs():
    x = chainer.Variable(numpy.ones(3, numpy.float32))
    node = _Twice()
    node.apply((x,))
    earlier = chainer.Variable(numpy.full(3, 5, numpy.float32))
    grads = {node.inputs[0]: [earlier]}
    _backprop_utils.backprop_step(node, (0,), (numpy.ones(3, numpy.float32),), grads, False)
    assert len(grads[node.inputs[0]]) == 1  # summed at once (config.lazy_grad_sum is off)
    numpy.testing.assert_array_equal(_backprop_utils._reduce(grads[node.inputs[0]]).array, [7, 7, 7])
    assert _backprop_utils._reduce([]) is None


def test_backprop_step_in_debug_mode_checks_the_gradients():
    class Wrong(_Twice):
        def backward(self, indexes, grad_outputs):
            return (numpy.ones(3, numpy.float32),)

    x = chainer.Variable(numpy.ones(3, numpy.float32))
    node = Wrong()
    node.apply((x,))
    with pytest.raises(ValueError, match="type of gradients returned from backward is incorrect"):
        _backprop_utils.backprop_step(node, (0,), (numpy.ones(3, numpy.float32),), {node.inputs[0]: []}, True)
