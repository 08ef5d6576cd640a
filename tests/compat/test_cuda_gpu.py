"""``chainer.backends.cuda.to_gpu``/``to_cpu`` and ``Link.to_device`` round trips on the GPU under
test (CuPy only: these functions are CuPy's by definition; skipped on other devices)."""

from __future__ import annotations

import numpy
import pytest

import fnet.compat as chainer
from fnet import backend


@pytest.fixture
def gpu(gpu_device):
    if not isinstance(gpu_device, backend.GpuDevice) or not chainer.backends.cuda.available:
        pytest.skip("chainer.backends.cuda needs CuPy and a CUDA device")
    return gpu_device


@pytest.mark.gpu
def test_to_gpu_and_back(gpu):
    cuda = chainer.backends.cuda
    x, y = numpy.arange(6.0).reshape(2, 3), numpy.ones(3, numpy.float32)
    there = cuda.to_gpu([x, y], device=gpu.id)
    assert all(isinstance(a, cuda.ndarray) and a.device.id == gpu.id for a in there)
    assert cuda.to_gpu(there[0], device=gpu.id) is there[0]  # already there: not copied
    assert cuda.get_array_module(there[0]) is cuda.cupy
    back = cuda.to_cpu(there)
    assert all(type(a) is numpy.ndarray for a in back)
    numpy.testing.assert_array_equal(back[0], x)
    numpy.testing.assert_array_equal(back[1], y)


@pytest.mark.gpu
def test_link_to_device_and_back(gpu):
    link = chainer.links.Linear(3, 2)
    W = link.W.array.copy()
    link.to_device(str(gpu))
    assert isinstance(link.W.array, chainer.backends.cuda.ndarray)
    y = link(chainer.backends.cuda.to_gpu(numpy.ones((1, 3), numpy.float32), device=gpu.id))
    assert isinstance(y.array, chainer.backends.cuda.ndarray)
    link.to_cpu()
    assert type(link.W.array) is numpy.ndarray
    numpy.testing.assert_array_equal(link.W.array, W)
