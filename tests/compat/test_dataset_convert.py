"""``chainer.dataset.convert``: Chainer's ConcatWithAsyncTransfer and _concat_arrays."""

from __future__ import annotations

import pickle

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat.dataset import convert


def test_concat_with_async_transfer_converts_as_concat_examples_on_the_cpu():
    batch = [(numpy.arange(2), 0), (numpy.arange(1), 1)]
    to_convert = pickle.loads(pickle.dumps(chainer.dataset.ConcatWithAsyncTransfer()))
    got = to_convert(batch, -1, padding=(-1, 0))
    expected = chainer.dataset.concat_examples(batch, -1, padding=(-1, 0))
    for a, b in zip(got, expected):
        numpy.testing.assert_array_equal(a, b)


def test_concat_with_async_transfer_keeps_to_its_first_device():
    to_convert = convert.ConcatWithAsyncTransfer()
    to_convert([numpy.zeros(2)], None)
    with pytest.raises(ValueError, match="device is different: the first call used None, this one -1"):
        to_convert([numpy.zeros(2)], -1)


def test_concat_arrays_stacks_and_pads_one_column():
    got = convert._concat_arrays([numpy.ones((1, 2)), numpy.ones((2, 1))], 0)
    numpy.testing.assert_array_equal(got, [[[1, 1], [0, 0]], [[1, 0], [1, 0]]])
