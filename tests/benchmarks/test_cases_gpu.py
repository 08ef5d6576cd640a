"""The fnet-captured benchmark cases on the device under test (``--gpu-device``): each step's
result is the eager step's on that device, bit for bit (the same device calls in the same order)."""

from __future__ import annotations

import numpy
import pytest

import fnet

from .test_cases import BENCHMARKS, cases  # noqa: F401  (the fixture)

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not BENCHMARKS.exists(), reason="needs the repository's benchmarks/"),
]


@pytest.mark.parametrize(
    "case, steps",
    [
        ("mlp_adam_step", 3),
        ("grad_penalty", 3),
        ("softmax_xent", 2),
        ("lstm_lm_step", 2),
        ("cnn_step", 3),
        ("resnet50_step", 2),  # the CPU's batch of 4 (make_data's default device)
    ],
)
def test_captured_cases_on_the_device_are_the_eager_ones(cases, case, steps, gpu_device):  # noqa: F811
    shared, _, cases_fnet = cases
    data = shared.make_data(case)

    def results():
        step = cases_fnet.CASES[case](fnet.backend.to_device(data, gpu_device))
        return [fnet.backend.to_cpu(step()) for _ in range(steps)]

    saved = cases_fnet.DEVICE
    cases_fnet.DEVICE = gpu_device
    try:
        eager = results()
        cases_fnet.WRAP = fnet.capture
        captured = results()
    finally:
        cases_fnet.WRAP, cases_fnet.DEVICE = None, saved
    for e, c in zip(eager, captured):
        assert e.dtype == c.dtype and numpy.array_equal(e, c), (e, c)
