"""float16 products on the CPU: NumPy's own loop accumulates in float32 without BLAS; fnet's go
through float32 BLAS and round once, so the two agree to float16's rounding of the same sum."""

import numpy
import pytest

from fnet import functions as F
from fnet import ops


def _half(shape, seed):
    return numpy.random.default_rng(seed).standard_normal(shape).astype(numpy.float16)


@pytest.mark.parametrize("shapes", [((7, 300), (300, 5)), ((3, 4, 64), (3, 64, 2)), ((64,), (64, 6))])
def test_float16_matmul_keeps_dtype_and_numpys_precision(shapes):
    a, b = _half(shapes[0], 0), _half(shapes[1], 1)
    got = ops.matmul(a, b)
    assert got.dtype == numpy.float16
    exact = numpy.matmul(a.astype(numpy.float64), b.astype(numpy.float64))
    numpys = numpy.matmul(a, b)
    # Both sum in float32 and round to float16 once; the order of the float32 sums differs, so
    # allow one float16 ulp of the exact result (plus float32's summation error, far below it).
    ulp = numpy.spacing(numpy.abs(exact).astype(numpy.float16)).astype(numpy.float64)
    assert numpy.all(numpy.abs(got - exact) <= ulp)
    assert numpy.all(numpy.abs(numpys - exact) <= ulp)


def test_float16_convolution_matches_float32_rounded():
    x, W = _half((2, 3, 9, 9), 2), _half((4, 3, 3, 3), 3)
    got = F.convolution_2d(x, W, pad=1)
    assert got.dtype == numpy.float16
    wide = F.convolution_2d(x.astype(numpy.float32), W.astype(numpy.float32), pad=1)
    # The same float32 products and sums, rounded once: bit for bit.
    numpy.testing.assert_array_equal(got, numpy.asarray(wide).astype(numpy.float16))
