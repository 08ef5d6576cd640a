"""Test annotations: pytest marks that also skip what cannot run here.

``gpu`` and ``multi_gpu(n)`` mark a test ``gpu`` and skip it unless CuPy sees enough CUDA
devices (and ``CHAINER_TEST_GPU_LIMIT``, when set, allows that many). ``cudnn`` marks a test
that needs cuDNN, and skips it without a GPU. ``chainerx`` only marks (fnet has ChainerX; a
test on a ``cuda`` ChainerX device is also marked ``gpu``). ``ideep`` marks tests of iDeep, which
fnet does not have: they are always skipped, with the reason. ``slow`` only marks.

Each works on a test function or method and on a test class (also on the result of
``parameterize``, a bundle of classes).
"""

from __future__ import annotations

import functools
import os
import unittest

from ... import backend
from . import _bundle
from ._util import availability, pytest_or_none

__all__ = ["gpu", "multi_gpu", "cudnn", "chainerx", "ideep", "slow"]

is_available, check_available, get_error = availability(__name__)  # whether pytest is there


def _gpu_count() -> int:
    if not backend.cupy_available():
        return 0
    return backend.GpuDevice(0).xp.cuda.runtime.getDeviceCount()


def _gpu_shortage(gpu_num: int) -> str | None:
    """Why a test needing ``gpu_num`` GPUs cannot run here, or None if it can."""
    limit = int(os.environ.get("CHAINER_TEST_GPU_LIMIT", "-1"))
    if 0 <= limit < gpu_num:
        return f"{gpu_num} GPUs required (CHAINER_TEST_GPU_LIMIT={limit})"
    have = _gpu_count()
    if have < gpu_num:
        return f"{gpu_num} GPUs required, CuPy sees {have}" if have else "needs CuPy and a CUDA device"
    return None


def _pytest(name: str):
    """pytest, for the decorator ``name``; RuntimeError where it is not installed."""
    pytest = pytest_or_none()
    if pytest is None:
        raise RuntimeError(
            f"testing.attr.{name}: needs pytest, which is not installed\n  hint: pip install pytest"
        )
    return pytest


def _annotate(target, mark: str, skip_reason=None):
    """``target`` marked ``mark``, and skipped when ``skip_reason()`` gives a reason.

    A function is checked when it runs (so that collecting tests needs no GPU query); a class
    (each class of a bundle) when it is decorated.
    """
    pytest = _pytest(mark)
    marked = getattr(pytest.mark, mark)
    if isinstance(target, (type, _bundle.Bundle)):
        reason = None if skip_reason is None else skip_reason()
        for case in _bundle.cases_of(target):
            if reason is not None:
                unittest.skip(reason)(case.klass)
                if not issubclass(case.klass, unittest.TestCase):
                    pytest.mark.skip(reason=reason)(case.klass)
            marked(case.klass)
        return target
    if skip_reason is None:
        return marked(target)

    @functools.wraps(target)
    def checked(*args, **kwargs):
        reason = skip_reason()
        if reason is not None:
            raise unittest.SkipTest(reason)
        return target(*args, **kwargs)

    return marked(checked)


def multi_gpu(gpu_num: int):
    """A decorator for a test that needs ``gpu_num`` GPUs: marked ``gpu``, skipped without them.

    >>> @multi_gpu(2)
    ... def test_two_devices():
    ...     pass
    """
    return lambda target: _annotate(target, "gpu", lambda: _gpu_shortage(gpu_num))


def gpu(target):
    """A decorator for a test that needs a GPU: marked ``gpu``, skipped without one."""
    return multi_gpu(1)(target)


def cudnn(target):
    """A decorator for a test that needs cuDNN: marked ``cudnn``, skipped without a GPU."""
    return _annotate(target, "cudnn", lambda: _gpu_shortage(1))


def _absent_backend(name: str, what: str):
    def annotate(target):
        return _annotate(target, name, lambda: f"{what} is not available in fnet (a NumPy/CuPy framework)")

    annotate.__name__ = annotate.__qualname__ = name
    annotate.__doc__ = (
        f"A decorator for a test of {what}: marked ``{name}`` and skipped, as fnet has no {what}."
    )
    return annotate


def chainerx(target):
    """A decorator for a test of ChainerX (``fnet.compat.chainerx``): marked ``chainerx``."""
    return _annotate(target, "chainerx")


ideep = _absent_backend("ideep", "iDeep")


def slow(target):
    """A decorator marking a test ``slow`` (deselect such tests with ``-m 'not slow'``)."""
    return _annotate(target, "slow")
