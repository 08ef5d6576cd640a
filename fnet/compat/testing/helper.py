"""Test helpers: run tests only with some packages installed, expect warnings, spy on calls."""

from __future__ import annotations

import contextlib
import importlib.metadata
import sys
import unittest
import warnings

__all__ = ["with_requires", "without_requires", "assert_warns", "patch"]


def _satisfied(requirement: str) -> bool:
    """Whether an installed distribution meets ``requirement`` (like ``'numpy>=1.10'``)."""
    from packaging.requirements import Requirement

    parsed = Requirement(requirement)
    try:
        version = importlib.metadata.version(parsed.name)
    except importlib.metadata.PackageNotFoundError:
        return False
    return parsed.specifier.contains(version, prereleases=True)


def _requirements_text(requirements) -> str:
    return f"requires: {','.join(requirements)}"


def with_requires(*requirements: str):
    """A decorator skipping a test unless every requirement (``'numpy>=1.10'``) is installed.

    >>> import unittest
    >>> class Test(unittest.TestCase):
    ...     @with_requires('numpy>=1.10')
    ...     def test_for_numpy_1_10(self):
    ...         pass
    """
    return unittest.skipIf(not all(map(_satisfied, requirements)), _requirements_text(requirements))


def without_requires(*requirements: str):
    """A decorator skipping a test when every requirement is installed (the opposite of
    ``with_requires``)."""
    return unittest.skipIf(all(map(_satisfied, requirements)), _requirements_text(requirements))


@contextlib.contextmanager
def assert_warns(expected: type[Warning]):
    """A context asserting that a warning of class ``expected`` is raised within.

    >>> import warnings
    >>> with assert_warns(UserWarning):
    ...     warnings.warn('careful')
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        yield
    if not any(isinstance(w.message, expected) for w in caught):
        raise AssertionError(f"{getattr(expected, '__name__', expected)} not triggerred")


def _resolve(fullname: str):
    """The object called ``fullname`` (``'package.module.attribute'``), from imported modules."""
    parts = fullname.split(".")
    obj = sys.modules.get(parts[0])
    if obj is None:
        raise RuntimeError(f"testing.patch: Can't import {parts[0]} (import it before patching {fullname})")
    for i, part in enumerate(parts[1:]):
        obj = getattr(obj, part, None)
        if obj is None:
            raise RuntimeError(f"testing.patch: Can't find object {'.'.join(parts[: i + 2])}")
    return obj


def patch(target: str, *args, **kwargs):
    """``unittest.mock.patch(target, ...)`` whose mock wraps the patched object (or the
    ``wraps`` given): calls still reach it, and are recorded.

    >>> import numpy, fnet.compat.functions
    >>> with patch('fnet.compat.functions.relu') as relu:
    ...     _ = fnet.compat.functions.relu(numpy.ones(2, numpy.float32))
    >>> relu.call_count
    1
    """
    from unittest import mock

    wraps = kwargs.pop("wraps") if "wraps" in kwargs else _resolve(target)
    return mock.patch(target, *args, wraps=wraps, **kwargs)
