"""The layers of the CPU tests' table on the device under test, with Chainer's recorded params
and inputs in float64: output, gradients with respect to params and inputs, and a second-order
quantity, compared with the CPU (``tests/_gpu.py``)."""

from __future__ import annotations

import pytest

from .._gpu import as_float64, compare_with_cpu
from .nn_connection_golden import inputs, params
from .test_connection import CASES, STATELESS


@pytest.mark.gpu
@pytest.mark.parametrize("name", STATELESS)
def test_layer_on_device(name, gpu_device):
    layer = CASES[name][0]()
    args = as_float64((params(name), *inputs(name)))
    compare_with_cpu(lambda p, *x: layer(p, *x), args, gpu_device)
