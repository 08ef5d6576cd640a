"""Lazy sizes declared on the spec (``lazy_field``): ``lazy``, ``shapes()`` / ``state_shapes()``
and ``stand_in``, checked against what the spec really draws for inputs of two sizes."""

from __future__ import annotations

import attrs
import numpy
import pytest

import fnet
from fnet import nn
from fnet.nn.layer import stand_in

KEY = fnet.random.key(0)

# (a lazy spec, two example inputs of different sizes)
LAZY = [
    (nn.Linear(3), (2, 4), (2, 7)),
    (nn.SimplifiedDropconnect(None, 3), (2, 4), (2, 7)),
    (nn.Swish(None), (2, 4), (2, 7)),
    (nn.Maxout(None, 2, 3), (2, 4), (2, 7)),
    (nn.Convolution2D(3, 2), (1, 2, 5, 5), (1, 4, 5, 5)),
    (nn.ConvolutionND(1, None, 3, 2), (1, 2, 5), (1, 4, 5)),
    (nn.Convolution1D(None, 3, 2), (1, 2, 5), (1, 4, 5)),
    (nn.Deconvolution2D(3, 2), (1, 2, 5, 5), (1, 4, 5, 5)),
    (nn.DeconvolutionND(1, None, 3, 2), (1, 2, 5), (1, 4, 5)),
    (nn.DilatedConvolution2D(None, 3, 2, dilate=2), (1, 2, 5, 5), (1, 4, 5, 5)),
    (nn.DepthwiseConvolution2D(None, 2, 3), (1, 2, 5, 5), (1, 4, 5, 5)),
    (nn.LocalConvolution2D(None, 2, ksize=3), (1, 2, 5, 5), (1, 4, 6, 6)),
    (nn.LocalConvolution2D(2, 2, ksize=3), (1, 2, 5, 5), (1, 2, 6, 6)),
    (nn.DeformableConvolution2DSampler(None, 3, 2), (1, 2, 5, 5), (1, 4, 5, 5)),
    (nn.DeformableConvolution2D(None, 3, 2), (1, 2, 5, 5), (1, 4, 5, 5)),
    (nn.MLPConvolution2D((4, 5), 3), (1, 2, 5, 5), (1, 4, 5, 5)),
    (nn.Inception(None, 1, 2, 3, 4, 5, 6), (1, 2, 5, 5), (1, 4, 5, 5)),
    (nn.InceptionBN(None, 1, 2, 3, 2, 3, "max", 2), (1, 2, 5, 5), (1, 4, 5, 5)),
    (nn.BatchNormalization(axis=0), (2, 3), (2, 5)),
    (nn.BatchNormalization(axis=(0, 2)), (2, 3, 4), (2, 5, 4)),
    (nn.GroupNormalization(1), (2, 4), (2, 6)),
    (nn.LayerNormalization(), (2, 4), (2, 6)),
    (nn.LSTM(3), (2, 4), (2, 7)),
    (nn.StatelessLSTM(None, 3), (2, 4), (2, 7)),
    (nn.StatelessGRU(None, 3), (2, 4), (2, 7)),
    (nn.StatefulGRU(None, 3), (2, 4), (2, 7)),
]


def _shapes(tree):
    return fnet.tree.map(numpy.shape, tree)


def _changed(one, two):
    """The shapes of ``one`` with None where ``two`` has another shape."""
    return {
        k: _changed(v, two[k]) if isinstance(v, dict) else (None if v != two[k] else v)
        for k, v in one.items()
    }


@pytest.mark.parametrize(
    ("spec", "small", "large"), LAZY, ids=lambda v: type(v).__name__ if isinstance(v, nn.Layer) else ""
)
def test_shapes_mark_exactly_the_leaves_the_input_sizes(spec, small, large):
    x1, x2 = numpy.zeros(small, numpy.float32), numpy.zeros(large, numpy.float32)
    assert spec.lazy
    params1, params2 = _shapes(spec.init(KEY, x1)), _shapes(spec.init(KEY, x2))
    assert spec.shapes() == _changed(params1, params2)
    assert spec.shapes(x1) == params1
    if isinstance(spec, (nn.BatchNormalization, nn.InceptionBN)):
        state1, state2 = _shapes(spec.init_state(x1)), _shapes(spec.init_state(x2))
        assert spec.state_shapes() == _changed(state1, state2)


@pytest.mark.parametrize(
    ("spec", "small", "large"), LAZY, ids=lambda v: type(v).__name__ if isinstance(v, nn.Layer) else ""
)
def test_the_stand_in_draws_what_the_spec_draws_where_the_input_does_not_matter(spec, small, large):
    standing = stand_in(spec)
    assert not standing.lazy
    drawn, real = standing.init(KEY), spec.init(KEY, numpy.zeros(small, numpy.float32))

    def check(shapes, a, b):
        for k, shape in shapes.items():
            if isinstance(shape, dict):
                check(shape, a[k], b[k])
            elif shape is not None:
                numpy.testing.assert_array_equal(a[k], b[k])  # the same draw, exactly

    check(spec.shapes(), drawn, real)


def test_a_sized_spec_is_not_lazy_and_its_shapes_are_its_params():
    spec = nn.Linear(4, 3)
    assert not spec.lazy and stand_in(spec) is spec
    assert spec.shapes() == {"W": (3, 4), "b": (3,)}
    assert nn.BatchNormalization(3).state_shapes() == {"N": (), "avg_mean": (3,), "avg_var": (3,)}
    assert nn.Linear(4, 3).state_shapes() == {}


@attrs.frozen
class _Head(nn.Module):
    norm: nn.BatchNormalization
    inception: nn.Inception

    def apply(self, params, x):  # pragma: no cover - only init is under test
        raise AssertionError


def test_a_module_gives_the_example_to_every_lazy_child():
    """A child whose laziness is not an ``in_size``/``in_channels`` (a size, or a lazy child of
    its own) gets the example input too."""
    module = _Head(nn.BatchNormalization(axis=(0, 2, 3)), nn.Inception(None, 1, 2, 3, 4, 5, 6))
    assert module.lazy
    params = module.init(KEY, numpy.zeros((1, 4, 5, 5), numpy.float32))
    assert params["norm"]["gamma"].shape == (4,)
    assert params["inception"]["conv1"]["W"].shape == (1, 4, 1, 1)
    assert module.shapes()["norm"] == {"gamma": None, "beta": None}
    state = module.init_state(numpy.zeros((1, 4, 5, 5), numpy.float32))
    assert state["norm"]["avg_mean"].shape == (4,)
