"""Chainer's submodules of ``chainer.utils``: argument, cache, conv/conv_nd (im2col, col2im),
precision, and ``tempdir``."""

from __future__ import annotations

import itertools
import os

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat.utils import argument, cache, conv, conv_nd, precision, tempdir


def test_parse_kwargs_takes_the_known_names_and_names_the_caller_of_the_unknown():
    def caller(**kwargs):
        return argument.parse_kwargs(kwargs, ("foo", 1), ("bar", 2), train="train was removed")

    assert caller() == (1, 2)
    assert caller(bar=5) == (1, 5)
    with pytest.raises(TypeError, match=r"caller\(\) got unexpected keyword argument\(s\) 'ham', 'spam'"):
        caller(spam=1, ham=2)
    with pytest.raises(ValueError, match="train was removed"):
        caller(train=True)


def test_assert_kwargs_empty_names_its_caller():
    def user(**kwargs):
        argument.assert_kwargs_empty(kwargs)

    user()
    with pytest.raises(TypeError, match=r"user\(\) got unexpected keyword argument\(s\) 'x'"):
        user(x=1)


def test_cached_property_is_computed_once_per_backprop_mode():
    class Holder:
        calls = 0

        @cache.cached_property
        def value(self):
            Holder.calls += 1
            return object()

    holder = Holder()
    first = holder.value
    assert holder.value is first and Holder.calls == 1
    with chainer.no_backprop_mode():
        detached = holder.value
    assert detached is not first and Holder.calls == 2
    assert holder.value is first
    with pytest.raises(AttributeError, match="read-only"):
        holder.value = 1


def _patch_reference(img, ksize, stride, pad, dilate, outs, pval=0.0):
    """im2col written out, pixel by pixel."""
    n, c = img.shape[:2]
    col = numpy.full((n, c, *ksize, *outs), pval, img.dtype)
    for k in itertools.product(*map(range, ksize)):
        for o in itertools.product(*map(range, outs)):
            at = [oi * s - p + ki * d for oi, s, p, ki, d in zip(o, stride, pad, k, dilate)]
            if all(0 <= a < size for a, size in zip(at, img.shape[2:])):
                col[(slice(None), slice(None), *k, *o)] = img[(slice(None), slice(None), *at)]
    return col


@pytest.mark.parametrize(
    ("ksize", "stride", "pad", "dilate"),
    [((2, 3), (1, 2), (1, 0), (1, 1)), ((3, 2), (2, 2), (2, 1), (2, 1)), ((1, 1), (1, 1), (0, 0), (1, 1))],
)
def test_im2col_reads_each_pixel_and_col2im_is_its_adjoint(ksize, stride, pad, dilate):
    rng = numpy.random.default_rng(0)
    img = rng.uniform(-1, 1, (2, 3, 7, 6)).astype(numpy.float32)
    outs = tuple(
        conv.get_conv_outsize(s, k, st, p, d=d) for s, k, st, p, d in zip((7, 6), ksize, stride, pad, dilate)
    )
    col = conv.im2col(img, *ksize, *stride, *pad, dy=dilate[0], dx=dilate[1])
    numpy.testing.assert_array_equal(col, _patch_reference(img, ksize, stride, pad, dilate, outs))
    # <im2col(x), y> == <x, col2im(y)>, within a few float32 roundings of a sum of ~500 terms
    other = rng.uniform(-1, 1, col.shape).astype(numpy.float32)
    back = conv.col2im(other, *stride, *pad, 7, 6, dy=dilate[0], dx=dilate[1])
    assert back.shape == img.shape
    numpy.testing.assert_allclose(numpy.vdot(col, other), numpy.vdot(img, back), rtol=1e-5)


def test_im2col_cpu_fills_the_padding_with_pval():
    img = numpy.arange(9, dtype=numpy.float32).reshape(1, 1, 3, 3)
    col = conv.im2col_cpu(img, 2, 2, 1, 1, 1, 1, pval=-numpy.inf)
    numpy.testing.assert_array_equal(
        col, _patch_reference(img, (2, 2), (1, 1), (1, 1), (1, 1), (4, 4), -numpy.inf)
    )


def test_conv_nd_works_on_three_spatial_axes_and_checks_ranks_as_chainer_does():
    img = numpy.random.default_rng(1).uniform(-1, 1, (1, 2, 4, 3, 5))
    col = conv_nd.im2col_nd(img, (2, 2, 3), (1, 2, 1), (0, 1, 1))
    outs = col.shape[-3:]
    numpy.testing.assert_array_equal(
        col, _patch_reference(img, (2, 2, 3), (1, 2, 1), (0, 1, 1), (1, 1, 1), outs)
    )
    assert conv_nd.col2im_nd(col, (1, 2, 1), (0, 1, 1), (4, 3, 5)).shape == img.shape
    with pytest.raises(AssertionError, match="one entry per spatial axis"):
        conv_nd.im2col_nd_cpu(img, (2,), (1, 1, 1), (0, 0, 0))
    with pytest.raises(AssertionError, match="length 3"):
        conv_nd.as_tuple((1,), 3)


def test_fp16_mixed_precision_helper_computes_in_float32_and_returns_float16():
    seen = []

    class Node:
        @precision._fp16_mixed_precision_helper
        def forward(self, inputs):
            seen.extend(x.dtype for x in inputs)
            return inputs

    half = numpy.zeros(2, numpy.float16)
    out = Node().forward((half, numpy.zeros(2, numpy.int8)))
    assert seen == [numpy.float32, numpy.int8]
    assert [y.dtype for y in out] == [numpy.float16, numpy.int8]
    wide = Node().forward((half, numpy.zeros(2, numpy.float64)))  # a wider float: outputs stay
    assert [y.dtype for y in wide] == [numpy.float32, numpy.float64]


def test_tempdir_is_removed_after_the_block():
    with tempdir(prefix="fnet-test") as path:
        open(os.path.join(path, "file"), "w").close()
    assert not os.path.exists(path)


def test_get_order_tells_row_sorted_column_sorted_and_other():
    from fnet.compat.utils import get_order

    row, col = numpy.array([0, 0, 1, 2, -1]), numpy.array([1, 3, 0, 2, -1])  # the last is padding
    assert get_order(row, col) == "C"
    assert get_order(col, row) == "F"
    assert get_order(numpy.array([0, 2, 4, 1, 3]), numpy.array([1, 3, 0, 2, 4])) == "other"
    batch_row = numpy.array([[0, 1], [1, 0]])
    assert get_order(batch_row, numpy.zeros((2, 2), int)) == "other"  # the second matrix is not sorted
    with pytest.raises(ValueError, match="invalid index combination of row and col"):
        get_order(numpy.array([0, -1]), numpy.array([0, 1]))
