"""The normalization layers of the CPU tests' table on the device under test, in float64, with
Chainer's recorded inputs: the training-mode output and new statistics (batch norms) or the
output (group and layer norm), gradients and a second-order quantity, compared with the CPU
(``tests/_gpu.py``)."""

from __future__ import annotations

import inspect

import pytest

from .._gpu import as_float64, compare_with_cpu
from .test_normalization import CASES, KEY, make


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES)
def test_normalization_layer_on_device(case, gpu_device):
    layer, x = make(case)
    params = as_float64(layer.init(KEY, x) if layer.lazy else layer.init(KEY))
    if "state" in inspect.signature(layer.apply).parameters:
        state = as_float64(layer.init_state(x) if layer.lazy else layer.init_state())
        compare_with_cpu(lambda p, x, *, state: layer(p, x, state), (params, x), gpu_device, state=state)
    else:
        compare_with_cpu(layer, (params, x), gpu_device)
