"""Debug mode's report of an error raised in a function's backward: where the function was applied.

In debug mode a node keeps ``stack`` (``traceback.extract_stack()`` when it was applied); an error
raised while its backward runs gets that stack appended to its message, as Chainer does.
"""

from __future__ import annotations

import threading
import traceback

__all__ = ["in_backward", "add_creation_stack", "report_failed_backward"]

_local = threading.local()


def in_backward() -> list:
    """The built-in functions (with a stack) whose backward has started and not ended, in this
    thread (each thread runs its own backward passes)."""
    try:
        return _local.nodes
    except AttributeError:
        _local.nodes = []
        return _local.nodes


def add_creation_stack(node, error: BaseException) -> None:
    """Append to ``error``'s message where ``node`` was applied (nothing without a ``stack``)."""
    stack = getattr(node, "stack", None)
    if stack is None:
        return
    text = "\n" + "-" * 70 + "\nStacktrace of the function is below:\n"
    text += "".join(traceback.format_list(stack[:-1]))
    error.args = (f"{error.args[0]}{text}", *error.args[1:]) if error.args else (text,)


def report_failed_backward(error: BaseException) -> None:
    """A backward pass raised ``error``: add the stack of the built-in function whose backward
    was running, and forget the pass."""
    running = in_backward()
    if running:
        add_creation_stack(running[-1], error)
        running.clear()
