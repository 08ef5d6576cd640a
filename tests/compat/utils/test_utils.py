"""chainer.utils helpers, compared with Chainer 7.8.1 (golden data) where it defines values."""

import json
import pathlib
import warnings

import numpy
import pytest

import fnet.compat
from fnet.compat import Variable, utils

GOLDEN = json.loads((pathlib.Path(__file__).parents[2] / "golden" / "compat_utils.json").read_text())


@pytest.mark.parametrize("probs, seed, shape, expected", GOLDEN["walker"])
def test_walker_alias_draws_chainers_samples(probs, seed, shape, expected):
    numpy.random.seed(seed)
    samples = utils.WalkerAlias(probs).sample(tuple(shape))
    assert samples.dtype == numpy.int32
    # exact: the tables come from the same probabilities by basic arithmetic, and the uniform
    # numbers from the same integers, so every comparison between them goes the same way
    assert samples.tolist() == expected


def test_walker_alias_follows_the_probabilities():
    numpy.random.seed(0)
    sampler = utils.WalkerAlias([1.0, 3.0, 0.0, 4.0])
    counts = numpy.bincount(sampler.sample((40000,)), minlength=4) / 40000
    numpy.testing.assert_allclose(counts, [0.125, 0.375, 0.0, 0.5], atol=0.01)
    assert sampler.threshold.dtype == numpy.float32 and sampler.values.dtype == numpy.int32
    assert len(sampler.threshold) == 4 and len(sampler.values) == 8
    assert not sampler.use_gpu and str(sampler.device) == "@numpy"
    assert sampler.to_cpu() is sampler
    assert sampler.sample_xp(numpy, (3,)).shape == (3,)


@pytest.mark.gpu
def test_walker_alias_on_gpu():
    import cupy

    sampler = utils.WalkerAlias([0.0, 1.0]).to_gpu()
    assert sampler.use_gpu and isinstance(sampler.threshold, cupy.ndarray)
    assert cupy.asnumpy(sampler.sample((5,))).tolist() == [1] * 5
    assert not sampler.to_cpu().use_gpu


@pytest.mark.parametrize("args, conv, deconv", GOLDEN["conv"])
def test_conv_outsizes_match_chainer(args, conv, deconv):
    assert utils.get_conv_outsize(*args) == conv
    assert utils.get_deconv_outsize(*args) == deconv


def test_force_array_and_force_type():
    assert utils.force_array(numpy.float64(2.0)).shape == ()
    assert utils.force_array(3, numpy.float32).dtype == numpy.float32
    x = numpy.ones(3, numpy.float32)
    assert utils.force_array(x) is x and utils.force_array(x, numpy.float32) is x
    assert utils.force_array(x, numpy.float64).dtype == numpy.float64
    assert type(utils.force_type(numpy.dtype(numpy.float16), 1.5)) is numpy.float16
    assert utils.force_type(numpy.dtype(numpy.float32), x) is x
    assert utils.force_type(numpy.dtype(numpy.int32), x).dtype == numpy.int32


def test_size_of_shape_and_sum_to():
    assert utils.size_of_shape((2, 3, 4)) == 24 and utils.size_of_shape(()) == 1
    assert type(utils.size_of_shape(numpy.array([2, 3]))) is int
    x = numpy.arange(12.0).reshape(2, 3, 2)
    numpy.testing.assert_array_equal(utils.sum_to(x, (3, 1)), x.sum(axis=(0, 2)).reshape(3, 1))
    assert utils.sum_to(x, (2, 3, 2)) is x
    with pytest.raises(TypeError, match="use chainer.functions.sum_to"):
        utils.sum_to(Variable(x), (3, 1))


def test_experimental_warns_unless_disabled(monkeypatch):
    with pytest.warns(FutureWarning, match="chainer.foo.bar.f is experimental. The interface can change"):
        utils.experimental("chainer.foo.bar.f")
    monkeypatch.setattr(fnet.compat, "disable_experimental_feature_warning", True, raising=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        utils.experimental("chainer.foo.bar.f")


def test_coo_to_dense_is_an_array_as_in_chainer():
    x = numpy.array([[0.0, 2.0], [-1.0, 0.0]], numpy.float32)
    dense = utils.to_coo(x, ldnz=3).to_dense()
    assert type(dense) is numpy.ndarray and dense.dtype == numpy.float32
    numpy.testing.assert_array_equal(dense, x)


@pytest.mark.parametrize(
    "row, col, order",
    [
        ((0, 0, 1, 1, 2), (0, 1, 1, 2, 2), "C"),  # sorted both ways: 'C' wins
        ((0, 1, 1, 2), (2, 0, 1, 0), "C"),
        ((1, 0, 1, 2), (0, 1, 1, 1), "F"),
        ((0, 2, 4, 1, 3), (1, 3, 0, 2, 4), "other"),
        ([[0, 1, -1], [1, 0, -1]], [[1, 0, -1], [0, 0, -1]], "other"),
        ([[0, 1, -1], [0, 1, 1]], [[1, 0, -1], [0, 0, 1]], "C"),
    ],
)
def test_get_order(row, col, order):
    assert utils.get_order(numpy.array(row, numpy.int32), numpy.array(col, numpy.int32)) == order


def test_get_order_errors():
    with pytest.raises(ValueError, match=r"get_order: expected row.shape == col.shape, got \(4,\) != \(5,\)"):
        utils.get_order(numpy.arange(4), numpy.arange(5))
    with pytest.raises(
        ValueError, match=r"get_order: invalid index combination of row and col: expected both >= 0"
    ):
        utils.get_order(numpy.array([0, -1]), numpy.array([-1, 0]))
