"""Every row and case of the gradient table of fnet.ops on the device under test, compared with
the CPU: values, first-order gradients and a second-order quantity (``tests/_gpu.py``)."""

from __future__ import annotations

import pytest

from .._gpu import compare_with_cpu
from .test_grad_table import TABLE

# Cases whose function closes over a host condition: on a GPU that mixes devices, which raises a
# DeviceError (tests/ops/test_device_leaks.py); "traced-condition" runs where on the device.
HOST_CONDITION = {"where-(3,1),(4,),(3,4)", "where-0-d"}
CASES = [
    pytest.param(
        f,
        args,
        id=f"{name}-{case_id}",
        marks=[pytest.mark.skip(reason="closes over a host array")]
        if f"{name}-{case_id}" in HOST_CONDITION
        else [],
    )
    for name, cases in TABLE.items()
    for case_id, f, args, _ in cases
]


@pytest.mark.gpu
@pytest.mark.parametrize("f, args", CASES)
def test_grad_table_on_device(f, args, gpu_device):
    compare_with_cpu(f, args, gpu_device)
