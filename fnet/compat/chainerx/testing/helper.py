"""Decorators that run a test twice, ``xp`` being ChainerX then NumPy, and compare the results
(arrays, lists or tuples of them, scalars) or check that both raised an accepted error."""

import functools
import traceback
import warnings

import numpy
import pytest

from ... import chainerx
from .. import _device
from .._array import ndarray
from . import array

__all__ = ["ignore", "numpy_chainerx_allclose", "numpy_chainerx_array_equal"]


class _Ignored:
    """What a test returns for a case it does not compare."""


_IGNORED = _Ignored()


def ignore():
    """The result that tells the decorators to compare nothing for this case."""
    return _IGNORED


class _Mismatch(Exception):
    def __init__(self, what: str, path: tuple):
        super().__init__(what)
        self.what = what
        self.path = path


def _run(impl, args, kwargs):
    try:
        return impl(*args, **kwargs), None, None
    except Exception as error:  # noqa: BLE001 (the error is the result compared)
        return None, error, traceback.format_exc()


def _compare(check, chx, np_, path):
    if chx is _IGNORED and np_ is _IGNORED:
        return
    if isinstance(chx, (list, tuple)):
        if type(chx) is not type(np_) or len(chx) != len(np_):
            raise _Mismatch(
                f"different result containers: {type(chx).__name__} vs {type(np_).__name__}", path
            )
        for i, (a, b) in enumerate(zip(chx, np_)):
            _compare(check, a, b, (*path, i))
        return
    if isinstance(chx, ndarray):
        if not isinstance(np_, (numpy.ndarray, numpy.generic)):
            raise _Mismatch("return ndarrays from both (or chainerx.testing.ignore())", path)
        if chx.shape != np_.shape:
            raise _Mismatch(f"shape mismatch: chainerx {chx.shape}, numpy {np_.shape}", path)
        if chx.device is not _device.get_default_device():
            raise _Mismatch(f"chainerx result on {chx.device}, not the default device", path)
        try:
            check(chx, np_)
        except AssertionError as error:
            raise _Mismatch(str(error), path) from None
        return
    if isinstance(chx, (numpy.ndarray, numpy.generic)):
        raise _Mismatch("the chainerx result is a NumPy value", path)
    if type(chx) is not type(np_) or chx != np_:
        raise _Mismatch(f"results differ: chainerx {chx!r}, numpy {np_!r}", path)


def _decorator(check, name, accept_error):
    def decorate(impl):
        @functools.wraps(impl)
        def test(*args, **kwargs):
            kwargs[name] = chainerx
            chx, chx_error, chx_tb = _run(impl, args, kwargs)
            kwargs[name] = numpy
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                np_, np_error, np_tb = _run(impl, args, kwargs)
            if chx_error is not None or np_error is not None:
                if chx_error is None:
                    pytest.fail("Only numpy raises error\n\n" + np_tb)
                if np_error is None:
                    pytest.fail("Only chainerx raises error\n\n" + chx_tb)
                if not (isinstance(chx_error, accept_error) and isinstance(np_error, accept_error)):
                    pytest.fail(
                        f"Both chainerx and numpy raise exceptions\nchainerx\n{chx_tb}\nnumpy\n{np_tb}"
                    )
                return
            assert chx is not None and np_ is not None, f"a result is None: chainerx {chx}, numpy {np_}"
            try:
                _compare(check, chx, np_, ())
            except _Mismatch as failure:
                where = "".join(f"[{i}]" for i in failure.path)
                raise AssertionError(
                    f"{failure.what}\nchainerx results{where}:\n{chx}\nnumpy results{where}:\n{np_}"
                ) from None

        return pytest.mark.parametrize(name, [None])(test)

    return decorate


_TOLERANCES = ("float16_rtol", "float32_rtol", "float64_rtol", "float16_atol", "float32_atol", "float64_atol")


def numpy_chainerx_allclose(**kwargs):
    """Run the test with ``xp`` (``name``) as ChainerX and as NumPy; their results must agree
    within ``rtol``/``atol`` (per dtype: ``float16_rtol``...), with ``dtype_check``,
    ``strides_check``; errors of ``accept_error`` types raised by both pass."""
    rtol, atol = kwargs.pop("rtol", 1e-7), kwargs.pop("atol", 0)
    equal_nan, err_msg, verbose = (
        kwargs.pop("equal_nan", True),
        kwargs.pop("err_msg", ""),
        kwargs.pop("verbose", True),
    )
    name, accept_error = kwargs.pop("name", "xp"), kwargs.pop("accept_error", ())
    layout = {
        "dtype_check": kwargs.pop("dtype_check", None),
        "strides_check": kwargs.pop("strides_check", None),
    }
    tolerances = {k: kwargs[k] for k in _TOLERANCES if k in kwargs}

    def check(x, y):
        array.assert_allclose_ex(x, y, rtol, atol, equal_nan, err_msg, verbose, **layout, **tolerances)

    return _decorator(check, name, accept_error)


def numpy_chainerx_array_equal(**kwargs):
    """Run the test with ``xp`` (``name``) as ChainerX and as NumPy; their results must be
    equal, with ``dtype_check``, ``strides_check``; errors of ``accept_error`` types raised by
    both pass."""
    err_msg, verbose = kwargs.pop("err_msg", ""), kwargs.pop("verbose", True)
    name, accept_error = kwargs.pop("name", "xp"), kwargs.pop("accept_error", ())
    layout = {
        "dtype_check": kwargs.pop("dtype_check", None),
        "strides_check": kwargs.pop("strides_check", None),
    }

    def check(x, y):
        array.assert_array_equal_ex(x, y, err_msg, verbose, **layout)

    return _decorator(check, name, accept_error)
