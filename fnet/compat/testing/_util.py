"""Small helpers shared by the modules of ``chainer.testing``."""

from __future__ import annotations

import contextlib
import functools
import importlib

import numpy

__all__ = ["pytest_or_none", "availability", "numpy1_printing", "raise_wrapped"]


@functools.cache
def pytest_or_none():
    """The pytest module, or None where it is not installed (imported on first use: importing
    ``fnet.compat`` does not pay for it)."""
    try:
        return importlib.import_module("pytest")
    except ImportError:
        return None


@functools.cache
def _pytest_import_error() -> ImportError | None:
    try:
        importlib.import_module("pytest")
    except ImportError as error:
        return error
    return None


def availability(module_name: str):
    """``(is_available, check_available, get_error)`` of a Chainer testing module that needs pytest:
    whether pytest imports, raising ``RuntimeError`` (naming the module) if not, and the ImportError.

    >>> is_available, check_available, get_error = availability("fnet.compat.testing.attr")
    >>> is_available(), check_available(), get_error()
    (True, None, None)
    """
    name = module_name.replace("fnet.compat", "chainer", 1)

    def is_available() -> bool:
        return _pytest_import_error() is None

    def check_available() -> None:
        error = _pytest_import_error()
        if error is not None:
            raise RuntimeError(
                f"{name} is not available: it needs pytest ({type(error).__name__}: {error})\n"
                "  hint: pip install pytest"
            )

    def get_error() -> ImportError | None:
        return _pytest_import_error()

    return is_available, check_available, get_error


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
