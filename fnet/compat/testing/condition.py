"""Run a flaky test several times: ``repeat``, ``retry``, ``repeat_with_success_at_least``.

Each trial runs on a fresh instance of the test class with its own set-up and tear-down
(``setUp``/``tearDown`` for ``unittest.TestCase``, ``setup_method``/``teardown_method`` for a
pytest class); a plain test function is called again with the same arguments. A trial that
skips skips the whole test.
"""

from __future__ import annotations

import functools
import traceback
import unittest

from ._util import pytest_or_none

__all__ = ["repeat_with_success_at_least", "repeat", "retry", "QuietTestRunner"]


class QuietTestRunner:
    """A unittest runner that prints nothing: ``run(suite)`` returns the ``TestResult``."""

    def run(self, suite) -> unittest.TestResult:
        result = unittest.TestResult()
        suite(result)
        return result


def _skips() -> tuple:
    """What a skipped trial raises: unittest's SkipTest, or pytest's skip outcome."""
    pytest = pytest_or_none()
    return (unittest.SkipTest,) if pytest is None else (unittest.SkipTest, pytest.skip.Exception)


class _Trial:
    """One run of a test method or function on a fresh instance."""

    def __init__(self, f, args: tuple, kwargs: dict):
        self.f, self.args, self.kwargs = f, args, kwargs
        self.instance = None
        if args and not isinstance(args[0], type) and hasattr(type(args[0]), f.__name__):
            self.instance = args[0]

    def _fresh(self):
        """A new instance of the test class, with its set-up and tear-down."""
        instance = self.instance
        if isinstance(instance, unittest.TestCase):
            fresh = type(instance)(instance._testMethodName)
            return fresh, fresh.setUp, fresh.tearDown
        fresh = type(instance)()

        def hook(name: str):
            method = getattr(fresh, name, None)
            return (lambda: method(self.f)) if method is not None else (lambda: None)

        return fresh, hook("setup_method"), hook("teardown_method")

    def run(self) -> None:
        if self.instance is None:
            self.f(*self.args, **self.kwargs)
            return
        fresh, setup, teardown = self._fresh()
        setup()
        try:
            self.f(fresh, *self.args[1:], **self.kwargs)
        finally:
            teardown()
            if isinstance(fresh, unittest.TestCase):
                fresh.doCleanups()


def _skip(instance, reason: str):
    pytest = pytest_or_none()
    if pytest is None or isinstance(instance, unittest.TestCase):
        raise unittest.SkipTest(reason)
    pytest.skip(reason)


def _fail(instance, message: str):
    if isinstance(instance, unittest.TestCase):
        instance.fail(message)
    raise AssertionError(message)


def repeat_with_success_at_least(times: int, min_success: int):
    """A decorator running a test up to ``times`` times; it passes once ``min_success`` trials
    have passed, and fails as soon as that can no longer happen.

    The failure message counts the failures and successes and shows the first failure.

    >>> import random
    >>> @repeat_with_success_at_least(10, 2)
    ... def test_coin():
    ...     assert random.random() < 0.9
    """
    if times < min_success:
        raise AssertionError(
            f"condition.repeat_with_success_at_least: min_success ({min_success}) must not exceed "
            f"times ({times})"
        )

    def decorator(f):
        @functools.wraps(f)
        def run_trials(*args, **kwargs):
            trial = _Trial(f, args, kwargs)
            skips = _skips()
            successes = failures = 0
            first_failure = None
            for _ in range(times):
                try:
                    trial.run()
                except skips as skip:
                    _skip(trial.instance, str(skip))
                except Exception as error:
                    failures += 1
                    if first_failure is None:
                        first_failure = "".join(traceback.format_exception(error))
                else:
                    successes += 1
                if successes >= min_success or failures > times - min_success:
                    break
            if successes < min_success:
                message = f"\nFail: {failures}, Success: {successes}"
                if first_failure is not None:
                    message += "\n\nThe first error message:\n" + first_failure
                _fail(trial.instance, message)

        return run_trials

    return decorator


def repeat(times: int):
    """A decorator running a test ``times`` times; it passes only if every trial passes."""
    return repeat_with_success_at_least(times, times)


def retry(times: int):
    """A decorator running a test up to ``times`` times; it passes if any trial passes."""
    return repeat_with_success_at_least(times, 1)
