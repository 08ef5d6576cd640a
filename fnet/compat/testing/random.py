"""``fix_random``: every run of a test draws the same random numbers.

Before the test, NumPy's global random state (from which the Chainer layer draws its keys:
dropout masks, initial weights) is seeded with 100, and CuPy's when a GPU is there; afterwards
the states NumPy and Python's ``random`` had are restored. ``CHAINER_TEST_RANDOM_NONDETERMINISTIC=1``
seeds from the OS instead. Nested uses (a fixed test class whose test method is also fixed, or
``condition.repeat``) seed only at the outermost level.
"""

from __future__ import annotations

import functools
import os
import random as _python_random
import types

import numpy

from ... import backend
from . import _bundle

__all__ = ["fix_random", "generate_seed", "do_setup", "do_teardown"]

_SEED = 100
_depth = 0  # how many fixed tests (or set-ups) are running, one inside the other
_saved = None  # the states of Python's and NumPy's generators before the outermost one


def _cupy():
    return backend.GpuDevice(0).xp if backend.cupy_available() else None


def do_setup(deterministic: bool = True) -> None:
    """Save the states of Python's and NumPy's generators, then seed NumPy's (and CuPy's) with
    100, or from the OS when not ``deterministic`` (``do_teardown`` restores them)."""
    global _saved
    seed = _SEED if deterministic else None
    _saved = (_python_random.getstate(), numpy.random.get_state())
    numpy.random.seed(seed)
    cupy = _cupy()
    if cupy is not None:
        cupy.random.seed(seed)


def do_teardown() -> None:
    """Restore the generators' states saved by ``do_setup``."""
    global _saved
    if _saved is None:
        raise RuntimeError(
            "testing.random.do_teardown: no random state to restore\n  hint: call do_setup() first"
        )
    python_state, numpy_state = _saved
    _saved = None
    _python_random.setstate(python_state)
    numpy.random.set_state(numpy_state)
    cupy = _cupy()
    if cupy is not None:
        cupy.random.reset_states()


def _setup_random() -> None:
    global _depth
    if _depth == 0:
        do_setup(not int(os.environ.get("CHAINER_TEST_RANDOM_NONDETERMINISTIC", "0")))
    _depth += 1


def _teardown_random() -> None:
    global _depth
    if _depth <= 0:
        raise RuntimeError("testing.fix_random: random state torn down more often than set up")
    _depth -= 1
    if _depth == 0:
        do_teardown()


def generate_seed() -> int:
    """A seed drawn from the fixed random state (call it inside a ``fix_random`` test)."""
    if _depth == 0:
        raise RuntimeError(
            "testing.generate_seed: the random state is not fixed\n"
            "  hint: decorate the test with testing.fix_random()"
        )
    return int(numpy.random.randint(0xFFFFFFFF))


def _fixed_method(test):
    @functools.wraps(test)
    def run(self, *args, **kwargs):
        _setup_random()
        try:
            return test(self, *args, **kwargs)
        finally:
            _teardown_random()

    return run


def _fix_class(klass: type, setup_name: str, teardown_name: str) -> None:
    """Seed in ``klass``'s set-up method and restore in its tear-down (made if it has none)."""
    setup = getattr(klass, setup_name, None)
    teardown = getattr(klass, teardown_name, None)

    def fixed_setup(self, *args, **kwargs):
        _setup_random()
        if setup is not None:
            setup(self, *args, **kwargs)

    def fixed_teardown(self, *args, **kwargs):
        try:
            if teardown is not None:
                teardown(self, *args, **kwargs)
        finally:
            _teardown_random()

    for name, method, original in (
        (setup_name, fixed_setup, setup),
        (teardown_name, fixed_teardown, teardown),
    ):
        if original is not None:
            functools.update_wrapper(method, original)
        method.__name__ = name
        setattr(klass, name, method)


def fix_random(*, setup_method: str = "setUp", teardown_method: str = "tearDown"):
    """A decorator fixing the random numbers of a test method, or of every test of a class
    (seeded in ``setup_method``, restored in ``teardown_method``: for a pytest class pass
    ``setup_method='setup_method', teardown_method='teardown_method'``).

    Apply it outside ``condition.repeat``/``retry``: inside, every trial would draw the same
    numbers.

    >>> import numpy, unittest
    >>> @fix_random()
    ... class TestNoise(unittest.TestCase):
    ...     def test_noise(self):
    ...         self.assertEqual(numpy.random.randint(1000), 520)
    """

    def decorator(target):
        if isinstance(target, types.FunctionType) and target.__name__.startswith("test_"):
            return _fixed_method(target)
        for case in _bundle.cases_of(target):
            _fix_class(case.klass, setup_method, teardown_method)
        return target

    return decorator
