"""``assert_allclose`` for NumPy and CuPy arrays and Variables, with Chainer's failure report."""

from __future__ import annotations

import io

import numpy

from ... import backend
from .. import chainerx
from ..backends._chainerx import array_to_chx, from_chx
from ..variable import Variable
from . import _util

__all__ = ["assert_allclose"]


def _to_host(x):
    """``x`` (a Variable, an array on any device, or a scalar) as a NumPy array."""
    if isinstance(x, Variable):
        x = x.array
    if numpy.isscalar(x):
        return numpy.array(x)
    return backend.CPU.send(x)


def _report_worst(f, x, y, atol: float, rtol: float) -> None:
    """Write where ``x`` is furthest outside the tolerance of ``y``, and by how much."""
    xx, yy = numpy.atleast_1d(x), numpy.atleast_1d(y)
    err = numpy.abs(xx - yy)
    rtol_part = rtol * numpy.abs(yy).astype(numpy.float64)
    tolerance = atol + rtol_part
    i = numpy.unravel_index(numpy.argmax(err.astype(numpy.float64) - tolerance), err.shape)
    relative = "inf" if yy[i] == 0 else err[i] / numpy.abs(yy[i])
    f.write(
        f"  i: {i}\n"
        f"  x[i]: {xx[i]}\n"
        f"  y[i]: {yy[i]}\n"
        f"  relative error[i]: {relative}\n"
        f"  absolute error[i]: {err[i]}\n"
        f"  relative tolerance * |y[i]|: {rtol_part[i]}\n"
        f"  absolute tolerance: {atol}\n"
        f"  total tolerance: {tolerance[i]}\n"
    )


def assert_allclose(x, y, atol: float = 1e-5, rtol: float = 1e-4, verbose: bool = True) -> None:
    """Assert that ``x`` and ``y`` agree elementwise: ``|x - y| <= atol + rtol * |y|``.

    They may be NumPy or CuPy arrays (on different devices), Variables or scalars. On failure
    the AssertionError shows NumPy's report, the shapes and dtypes, where the error is largest
    compared to the tolerance, and both arrays.

    >>> import numpy
    >>> assert_allclose(numpy.array([1.0, 2.0]), numpy.array([1.0, 2.00001]))
    """
    x, y = _to_host(x), _to_host(y)
    try:
        numpy.testing.assert_allclose(x, y, atol=atol, rtol=rtol, verbose=verbose)
    except AssertionError as error:
        f = io.StringIO()
        f.write(f"{error}\n\nassert_allclose failed:\n")
        f.write(f"  shape: {x.shape} {y.shape}\n  dtype: {x.dtype} {y.dtype}\n")
        with _util.numpy1_printing():
            if x.shape == y.shape:
                _report_worst(f, x, y, atol, rtol)
            with numpy.printoptions(threshold=10000):
                f.write("x: " + numpy.array2string(x, prefix="x: ") + "\n")
                f.write("y: " + numpy.array2string(y, prefix="y: ") + "\n")
        raise AssertionError(f.getvalue()) from None


def _as_noncontiguous_array(array):
    """A copy of ``array`` (or of each array in a list or tuple) that is not contiguous in
    memory, on the same device; None and arrays of at most one element are kept as they are.

    The test cases use it to check that functions do not assume contiguous inputs.
    """
    if isinstance(array, (list, tuple)):
        return type(array)(_as_noncontiguous_array(a) for a in array)
    if array is None or array.size <= 1:
        return array
    if type(array) is chainerx.ndarray:  # the same spread-out copy of its data, as ChainerX
        return array_to_chx(_as_noncontiguous_array(from_chx(array)), array.device)
    xp = backend.xp(array)
    every_other = (slice(None, None, -2),) * array.ndim
    with backend.using_device(backend.get_device_from_array(array)):
        spread = xp.empty(tuple(2 * n for n in array.shape), dtype=array.dtype)
        spread[every_other] = array
        return spread[every_other]
