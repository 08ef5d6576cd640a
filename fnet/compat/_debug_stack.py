"""Debug mode's report of an error raised in a function's backward: where the function was applied.

In debug mode a node keeps ``stack`` (``traceback.extract_stack()`` when it was applied); an error
raised while its backward runs gets that stack appended to its message, as Chainer does.
"""

from __future__ import annotations

import traceback

__all__ = ["in_backward", "add_creation_stack", "report_failed_backward"]

# the built-in functions (with a stack) whose backward has started and not ended
in_backward: list = []


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
    if in_backward:
        add_creation_stack(in_backward[-1], error)
        in_backward.clear()
