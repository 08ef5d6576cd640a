"""The dtype names ChainerX's tests parameterize over, and ``parametrize_dtype_specifier``."""

import numpy
import pytest

__all__ = [
    "all_dtypes",
    "float_dtypes",
    "signed_dtypes",
    "unsigned_dtypes",
    "integral_dtypes",
    "signed_integral_dtypes",
    "nonfloat_dtypes",
    "numeric_dtypes",
    "parametrize_dtype_specifier",
]

float_dtypes = ("float16", "float32", "float64")
signed_integral_dtypes = ("int8", "int16", "int32", "int64")
unsigned_dtypes = ("uint8",)
signed_dtypes = signed_integral_dtypes + float_dtypes
integral_dtypes = unsigned_dtypes + signed_integral_dtypes
nonfloat_dtypes = ("bool_", *signed_integral_dtypes, *unsigned_dtypes)
numeric_dtypes = signed_dtypes + unsigned_dtypes
all_dtypes = ("bool_", *numeric_dtypes)


def parametrize_dtype_specifier(argname, dtypes=None, additional_args=None):
    """Parameterize ``argname`` over every way to name each dtype: its name, the numpy.dtype,
    its one-letter code, then ``additional_args``."""
    names = all_dtypes if dtypes is None else dtypes
    if not isinstance(argname, str) or not isinstance(names, (tuple, list)):
        raise TypeError(
            "parametrize_dtype_specifier: expected a str argname and a tuple or list of dtype names"
        )
    specs = [*names, *(numpy.dtype(n) for n in names), *(numpy.dtype(n).char for n in names)]
    if additional_args is not None:
        specs += list(additional_args)
    return pytest.mark.parametrize(argname, specs)
