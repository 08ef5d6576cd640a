"""The converters' ``device=`` on the device under test: batches arrive there, unchanged."""

from __future__ import annotations

import numpy
import pytest

from fnet import data
from fnet.data.iterators import SerialIterator

from .._gpu import host


@pytest.mark.gpu
def test_to_device_sends_arrays_and_lists(gpu_device):
    x, y = numpy.arange(6.0).reshape(2, 3), numpy.array([1, 2], numpy.int32)
    sent = data.to_device(gpu_device, [x, y, x])
    assert sent[0] is sent[2]  # an array given twice is sent once
    back = host(sent, gpu_device)
    numpy.testing.assert_array_equal(back[0], x)
    numpy.testing.assert_array_equal(back[1], y)


@pytest.mark.gpu
def test_concat_examples_of_an_iterator_batch_on_the_device(gpu_device):
    examples = [(numpy.full(3, i, numpy.float32), numpy.int32(i)) for i in range(5)]
    batch = SerialIterator(examples, 4, shuffle=False).next()
    xs, ts = data.concat_examples(batch, device=gpu_device)
    xs, ts = host((xs, ts), gpu_device)
    numpy.testing.assert_array_equal(
        xs, numpy.repeat(numpy.arange(4.0, dtype=numpy.float32), 3).reshape(4, 3)
    )
    numpy.testing.assert_array_equal(ts, numpy.arange(4, dtype=numpy.int32))
    padded = data.concat_examples([numpy.ones(2), numpy.ones(3)], device=gpu_device, padding=-1)
    numpy.testing.assert_array_equal(host(padded, gpu_device), [[1.0, 1.0, -1.0], [1.0, 1.0, 1.0]])
