"""``chainer.utils.argument``: how Chainer's functions read optional keyword arguments from
``**kwargs`` and refuse the ones they do not know (or no longer accept)."""

from __future__ import annotations

import sys

__all__ = ["check_unexpected_kwargs", "parse_kwargs", "assert_kwargs_empty"]


def check_unexpected_kwargs(kwargs: dict, **unexpected: str) -> None:
    """Raise ``ValueError(message)`` for the first name of ``unexpected`` that ``kwargs`` holds
    (Chainer uses it for arguments it removed, the message saying what to do instead).

    >>> check_unexpected_kwargs({"train": True}, train="train was removed: use chainer.config.train")
    Traceback (most recent call last):
    ...
    ValueError: train was removed: use chainer.config.train
    """
    for name, message in unexpected.items():
        if name in kwargs:
            raise ValueError(message)


def _refuse(kwargs: dict, unexpected: dict, depth: int) -> None:
    """The TypeError for what is left in ``kwargs``, naming the function ``depth`` frames up."""
    check_unexpected_kwargs(kwargs, **unexpected)
    caller = sys._getframe(depth).f_code.co_name
    names = ", ".join(repr(name) for name in sorted(kwargs))
    raise TypeError(
        f"{caller}() got unexpected keyword argument(s) {names}\n"
        f"  hint: remove them, or check their spelling against {caller}'s documentation"
    )


def parse_kwargs(kwargs: dict, *name_and_values: tuple[str, object], **unexpected: str) -> tuple:
    """Take the ``(name, default)`` pairs out of ``kwargs`` and give their values in order;
    anything left raises ``TypeError`` naming the calling function (after the ``ValueError``
    of :func:`check_unexpected_kwargs` for a name of ``unexpected``).

    >>> def f(**kwargs):
    ...     return parse_kwargs(kwargs, ("foo", 1), ("bar", 2))
    >>> f(bar=3)
    (1, 3)
    >>> f(baz=0)
    Traceback (most recent call last):
    ...
    TypeError: f() got unexpected keyword argument(s) 'baz'
      hint: remove them, or check their spelling against f's documentation
    """
    values = tuple(kwargs.pop(name, default) for name, default in name_and_values)
    if kwargs:
        _refuse(kwargs, unexpected, depth=2)
    return values


def assert_kwargs_empty(kwargs: dict) -> None:
    """Raise ``TypeError`` naming the calling function if ``kwargs`` is not empty.

    >>> def g(**kwargs):
    ...     assert_kwargs_empty(kwargs)
    >>> g()
    """
    if kwargs:
        _refuse(kwargs, {}, depth=2)
