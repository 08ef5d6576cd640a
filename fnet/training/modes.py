"""Modes of the code that training runs but does not own: evaluation mode and debug mode.

Training keeps no global configuration: a pure model takes ``train=`` as an argument. A layer
above that keeps one (the Chainer layer: ``chainer.config.train`` and ``chainer.config.debug``)
registers here how to enter its evaluation mode and how to tell whether it is in debug mode;
``Evaluator`` evaluates inside every registered evaluation mode, and ``snapshot`` logs what it
loads when a registered check says debug mode is on.

>>> import contextlib
>>> entered = []
>>> @contextlib.contextmanager
... def quiet():
...     entered.append("quiet")
...     yield
>>> register_evaluation_mode(quiet)
>>> with evaluation_mode():
...     pass
>>> entered
['quiet']
>>> unregister_evaluation_mode(quiet)
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager

__all__ = [
    "register_evaluation_mode",
    "unregister_evaluation_mode",
    "evaluation_mode",
    "register_debug_check",
    "unregister_debug_check",
    "is_debug",
]

_evaluation_modes: list[Callable[[], AbstractContextManager]] = []
_debug_checks: list[Callable[[], bool]] = []


def register_evaluation_mode(mode: Callable[[], AbstractContextManager]) -> None:
    """Enter ``mode()`` (a context manager) around every evaluation from now on."""
    if mode not in _evaluation_modes:
        _evaluation_modes.append(mode)


def unregister_evaluation_mode(mode: Callable[[], AbstractContextManager]) -> None:
    """Stop entering ``mode()`` around evaluations."""
    if mode in _evaluation_modes:
        _evaluation_modes.remove(mode)


@contextlib.contextmanager
def evaluation_mode() -> Iterator[None]:
    """Within the block, every registered evaluation mode is on (in the order registered)."""
    with contextlib.ExitStack() as stack:
        for mode in tuple(_evaluation_modes):
            stack.enter_context(mode())
        yield


def register_debug_check(check: Callable[[], bool]) -> None:
    """Count debug mode as on whenever ``check()`` returns True."""
    if check not in _debug_checks:
        _debug_checks.append(check)


def unregister_debug_check(check: Callable[[], bool]) -> None:
    """Stop asking ``check()``."""
    if check in _debug_checks:
        _debug_checks.remove(check)


def is_debug() -> bool:
    """Whether a registered check says debug mode is on (False when none is registered)."""
    return any(check() for check in _debug_checks)
