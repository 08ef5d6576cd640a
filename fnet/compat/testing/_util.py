"""Small helpers shared by the modules of ``chainer.testing``."""

from __future__ import annotations

import contextlib
import functools
import importlib

import numpy

__all__ = ["pytest_or_none", "numpy1_printing", "raise_wrapped"]


@functools.cache
def pytest_or_none():
    """The pytest module, or None where it is not installed (imported on first use: importing
    ``fnet.compat`` does not pay for it)."""
    try:
        return importlib.import_module("pytest")
    except ImportError:
        return None


def numpy1_printing():
    """A context printing NumPy scalars as NumPy 1 does (``0.5``, not ``np.float32(0.5)``): the
    texts Chainer makes (class names, failure reports) stay the same under NumPy 2."""
    if numpy.lib.NumpyVersion(numpy.__version__) >= "2.0.0":
        return numpy.printoptions(legacy="1.25")
    return contextlib.nullcontext()


def raise_wrapped(error_type: type, message: str, error: BaseException):
    """Raise ``error_type(message)``, saying what ``error`` was and keeping its traceback.

    Chainer's test helpers re-raise failures this way, with the original error's class so that
    ``pytest.raises`` and ``xfail(raises=...)`` still match. An error class that cannot be made
    from one message gets the message added to the original error as a note instead.
    """
    text = f"{message}\n\n(caused by)\n{type(error).__name__}: {error}\n"
    try:
        wrapped = error_type(text)
    except Exception:
        error.add_note(message)
        raise error from None
    raise wrapped.with_traceback(error.__traceback__) from None
