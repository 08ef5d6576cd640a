"""The layers of the CPU tests' tables (connections and convolutions) on the device under test,
with Chainer's recorded params and inputs in float64: output, gradients with respect to params
and inputs, and a second-order quantity, compared with the CPU (``tests/_gpu.py``)."""

from __future__ import annotations

import pytest

from .._gpu import as_float64, compare_with_cpu
from .nn_connection_golden import inputs, params
from .test_connection import CASES, STATELESS
from .test_convolution import CASES as CONVOLUTIONS

LAYERS = {**{name: CASES[name][0] for name in STATELESS}, **CONVOLUTIONS}


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layer_on_device(name, gpu_device):
    layer = LAYERS[name]()
    args = as_float64((params(name), *inputs(name)))
    compare_with_cpu(lambda p, *x: layer(p, *x), args, gpu_device)
