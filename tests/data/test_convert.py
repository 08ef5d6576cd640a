"""Tests of the batch converters: ``concat_examples`` against Chainer 7.8.1
(``tests/golden/make_iterators.py``), its errors, ``to_device`` and the ``converter`` decorator."""

from __future__ import annotations

import collections
import json

import numpy
import pytest

import fnet
import fnet.compat.backend
from fnet.data import convert
from fnet.data.convert import Converter, concat_examples, concat_examples_func, converter, to_device

from .._scripts import GOLDEN, load_golden


def test_matches_chainer():
    module = load_golden("make_iterators")
    expected = json.loads((GOLDEN / "iterators.json").read_text())["convert"]
    assert json.loads(json.dumps(module.convert_cases(convert))) == expected


def test_errors_name_the_problem():
    a = numpy.array
    with pytest.raises(ValueError, match="concat_examples: the batch is empty"):
        concat_examples([])
    with pytest.raises(ValueError, match=r"arrays \[0\] of the examples differ in shape: \(1,\) and \(2,\)"):
        concat_examples([(a([1, 2]), 0), (a([3]), 1)])
    with pytest.raises(ValueError, match="hint: pass padding=<value>"):
        concat_examples([a([1, 2]), a([3])])
    with pytest.raises(
        ValueError, match="cannot pad the arrays of the examples to one shape: they have 1 and 2"
    ):
        concat_examples([a([1, 2]), a([[3]])], padding=0)
    with pytest.raises(ValueError, match="padding has 1 values for examples of 2 items"):
        concat_examples([(a([1]), 0), (a([2]), 1)], padding=(0,))
    with pytest.raises(KeyError, match="padding has no value for the key 'y'"):
        concat_examples([{"x": 1, "y": 2}], padding={"x": 0})
    with pytest.raises(IndexError, match=r"example 1 of the batch has no \[1\], unlike the first example"):
        concat_examples([(1, 2), (3,)])
    with pytest.raises(KeyError, match=r"example 2 of the batch has no \['y'\]"):
        concat_examples([{"x": 1, "y": 2}, {"x": 1, "y": 2}, {"x": 3}])
    with pytest.raises(TypeError, match="to_device: expected an array"):
        to_device(-1, object())
    with pytest.raises(TypeError, match="converter: can only decorate a callable"):
        converter()(3)


def test_padding_per_item_and_longer_examples():
    a = numpy.array
    x, t = concat_examples([(a([1.0, 2.0]), a([1])), (a([3.0]), a([2, 3]))], padding=(0.5, -1))
    numpy.testing.assert_array_equal(x, [[1.0, 2.0], [3.0, 0.5]])
    numpy.testing.assert_array_equal(t, [[1, -1], [2, 3]])
    # items after those of the first example are ignored, as in Chainer
    x, y = concat_examples([(1, 2), (3, 4, 5)])
    assert x.tolist() == [1, 3] and y.tolist() == [2, 4]


def test_converter_hands_a_device_object():
    seen = []

    @converter()
    def pair(batch, device, scale=1):
        """Doubles the batch."""
        seen.append(device)
        return [scale * x for x in batch]

    assert isinstance(pair, Converter) and pair.__name__ == "pair" and pair.__doc__ == "Doubles the batch."
    assert pair([1, 2], -1, 2) == [2, 4]
    assert pair([1], device="@numpy") == [1]
    assert pair([1], None) == [1]
    assert seen[0] == fnet.backend.CPU and seen[1] == fnet.backend.CPU and seen[2] is None
    # with the Chainer layer loaded, converters get Chainer's device classes
    assert isinstance(seen[0], fnet.compat.backend.CpuDevice)


def test_device_specs_without_the_chainer_layer(monkeypatch):
    monkeypatch.setattr(convert, "_device_reader", None)  # as before any layer registers one
    assert type(convert._get_device(-1)) is fnet.backend.CpuDevice
    assert type(convert._get_device("@numpy")) is fnet.backend.CpuDevice
    assert convert._get_device(-3) == fnet.backend.CPU


def test_a_registered_device_reader_reads_the_specs(monkeypatch):
    monkeypatch.setattr(convert, "_device_reader", None)
    read = []
    convert.set_device_reader(lambda spec: read.append(spec) or fnet.backend.CPU)
    assert convert._get_device("@anything") == fnet.backend.CPU and read == ["@anything"]
    assert convert._get_device(None) is None and read == ["@anything"]  # None never reaches it


def test_call_converter_old_and_new_style():
    calls = []
    cpu = fnet.backend.CPU
    convert._call_converter(lambda batch, device: calls.append(device), [1], cpu)
    convert._call_converter(lambda batch, device: calls.append(device), [1], -1)
    convert._call_converter(converter()(lambda batch, device: calls.append(device)), [1], -1)
    assert calls[:2] == [-1, -1] and calls[2] == cpu


def test_converter_base_is_abstract():
    with pytest.raises(TypeError):
        Converter()

    class Doubling(Converter):
        def __call__(self, batch, device):
            return to_device(device, numpy.asarray(batch) * 2)

    assert convert._call_converter(Doubling(), [1, 2], None).tolist() == [2, 4]


def test_to_device_keeps_containers():
    a = numpy.arange(2)
    Pair = collections.namedtuple("Pair", "x y")
    sent = to_device("@numpy", Pair(a, None))
    assert type(sent) is Pair and sent.x is a and sent.y is None
    assert type(to_device(-1, (a, 1.5))) is tuple and to_device(-1, (a, 1.5))[1].ndim == 0
    assert to_device(None, [1, 2]) == [1, 2]


def test_concat_examples_is_the_converter_of_concat_examples_func():
    assert concat_examples.base_callable is concat_examples_func
    x, t = concat_examples([(1, 2.5)], "@numpy")
    assert x.dtype == numpy.int64 and t.dtype == numpy.float64


@pytest.mark.gpu
def test_concat_examples_on_gpu():
    import cupy

    batch = [(numpy.array([1.0, 2.0], numpy.float32), 1), (numpy.array([3.0], numpy.float32), 2)]
    x, t = concat_examples(batch, 0, padding=0)
    assert isinstance(x, cupy.ndarray) and isinstance(t, cupy.ndarray)
    assert x.get().tolist() == [[1.0, 2.0], [3.0, 0.0]] and t.get().tolist() == [1, 2]
    on_gpu = [(cupy.asarray(x), t) for x, t in batch]
    x, t = concat_examples(on_gpu, padding=-1)
    assert isinstance(x, cupy.ndarray) and x.get().tolist() == [[1.0, 2.0], [3.0, -1.0]]
    back = concat_examples([(cupy.arange(2), 0)], -1)
    assert isinstance(back[0], numpy.ndarray)
