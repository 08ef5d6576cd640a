"""``chainerx.testing``: what ChainerX's own tests use: assertions over NumPy and ChainerX arrays,
the dtype lists, and the decorators that run a test with ``xp`` as NumPy and as ChainerX and
compare the results. Needs pytest (imported here, not by ``chainerx``)."""

import pytest

pytest.register_assert_rewrite("fnet.compat.chainerx.testing.array")
pytest.register_assert_rewrite("fnet.compat.chainerx.testing.helper")

from . import array, helper  # noqa: E402
from ._buffer import _DeviceBuffer, _fromnumpy  # noqa: E402
from .array import assert_allclose, assert_allclose_ex, assert_array_equal, assert_array_equal_ex  # noqa: E402
from .dtypes import (  # noqa: E402
    all_dtypes,
    float_dtypes,
    integral_dtypes,
    nonfloat_dtypes,
    numeric_dtypes,
    parametrize_dtype_specifier,
    signed_dtypes,
    signed_integral_dtypes,
    unsigned_dtypes,
)
from .helper import ignore, numpy_chainerx_allclose, numpy_chainerx_array_equal  # noqa: E402

__all__ = [
    "array",
    "helper",
    "assert_allclose",
    "assert_allclose_ex",
    "assert_array_equal",
    "assert_array_equal_ex",
    "all_dtypes",
    "float_dtypes",
    "integral_dtypes",
    "nonfloat_dtypes",
    "numeric_dtypes",
    "signed_dtypes",
    "signed_integral_dtypes",
    "unsigned_dtypes",
    "parametrize_dtype_specifier",
    "ignore",
    "numpy_chainerx_allclose",
    "numpy_chainerx_array_equal",
    "_DeviceBuffer",
    "_fromnumpy",
]
