"""Every optimizer of the CPU tests' list on the device under test: three steps from the same
parameters and gradients give the CPU's parameters and slots (``tests/_gpu.py`` tolerances)."""

from __future__ import annotations

import pytest

from fnet import optim

from .._gpu import assert_close, host, on_device
from .test_optimizers import NAMES, problem


def _three_steps(tx, params, grads):
    state = tx.init(params)
    for _ in range(3):
        params, state = tx.step(grads, state, params)
    return params, state.slots


@pytest.mark.gpu
@pytest.mark.parametrize("name", NAMES)
def test_optimizer_on_device(name, gpu_device):
    params, grads = problem()
    expected = _three_steps(getattr(optim, name)(), params, grads)
    actual = host(_three_steps(getattr(optim, name)(), *on_device((params, grads), gpu_device)), gpu_device)
    assert_close(actual, expected, name)
