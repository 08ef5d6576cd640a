"""Assertions that take NumPy and ChainerX arrays alike (NumPy's, after moving to the host);
the ``_ex`` forms also compare dtypes and strides."""

import numpy
import numpy.testing

from .._array import ndarray
from ..creation import to_numpy

__all__ = ["assert_allclose", "assert_array_equal", "assert_allclose_ex", "assert_array_equal_ex"]


def _host(x):
    if isinstance(x, ndarray):
        return to_numpy(x)
    if not (isinstance(x, numpy.ndarray) or numpy.isscalar(x)):
        raise TypeError(
            f"chainerx.testing: expected a NumPy or ChainerX array or a scalar, got {type(x).__name__}"
        )
    return x


def assert_allclose(x, y, rtol=1e-7, atol=0, equal_nan=True, err_msg="", verbose=True):
    """``numpy.testing.assert_allclose`` on the host copies of ``x`` and ``y``."""
    numpy.testing.assert_allclose(
        _host(x), _host(y), rtol=rtol, atol=atol, equal_nan=equal_nan, err_msg=err_msg, verbose=verbose
    )


def assert_array_equal(x, y, err_msg="", verbose=True):
    """``numpy.testing.assert_array_equal`` on the host copies of ``x`` and ``y``."""
    numpy.testing.assert_array_equal(_host(x), _host(y), err_msg=err_msg, verbose=verbose)


def _check_layout(x, y, dtype_check, strides_check):
    if dtype_check is False and strides_check:
        raise ValueError(
            "chainerx.testing: strides_check=True needs dtype_check (strides depend on the dtype)"
        )
    dtype_check = True if dtype_check is None else dtype_check
    strides_check = dtype_check if strides_check is None else strides_check
    arrays = (numpy.ndarray, ndarray)
    if not (isinstance(x, arrays) and isinstance(y, arrays)):
        return
    if strides_check:
        assert x.strides == y.strides, f"Strides mismatch: x: {x.strides}, y: {y.strides}"
    if dtype_check:
        assert x.dtype.name == y.dtype.name, f"Dtype mismatch: x: {x.dtype}, y: {y.dtype}"


def assert_allclose_ex(x, y, rtol=1e-7, atol=0, equal_nan=True, err_msg="", verbose=True, **kwargs):
    """``assert_allclose``, with per-dtype tolerances (``float16_rtol``...) and ``dtype_check``,
    ``strides_check`` (both on by default; no dtype check means no strides check)."""
    dtype_check = kwargs.pop("dtype_check", None)
    strides_check = kwargs.pop("strides_check", None)
    name = x.dtype.name
    rtol = kwargs.pop(f"{name}_rtol", rtol)
    atol = kwargs.pop(f"{name}_atol", atol)
    assert_allclose(x, y, rtol, atol, equal_nan, err_msg, verbose)
    _check_layout(x, y, dtype_check, strides_check)


def assert_array_equal_ex(x, y, *args, **kwargs):
    """``assert_array_equal`` with ``dtype_check`` and ``strides_check``."""
    dtype_check = kwargs.pop("dtype_check", None)
    strides_check = kwargs.pop("strides_check", None)
    assert_array_equal(x, y, *args, **kwargs)
    _check_layout(x, y, dtype_check, strides_check)
