"""Function hooks: objects called before and after the forward and backward of each function.

A hook is active within its ``with`` block (in this thread), or for one node after
``node.add_hook(hook)``. Built-in functions call the hooks too (see ``functions.lift``).
"""

from __future__ import annotations

import threading

__all__ = ["FunctionHook", "active_hooks", "get_function_hooks"]

_state = threading.local()


def get_function_hooks() -> dict:
    """The hooks active in this thread, by name, in the order they were entered."""
    hooks = getattr(_state, "hooks", None)
    if hooks is None:
        hooks = _state.hooks = {}
    return hooks


def active_hooks(node) -> list:
    """The hooks that apply to ``node``: the thread's, then the node's own."""
    hooks = getattr(_state, "hooks", None)
    local = node._local_hooks
    if not hooks and not local:
        return []
    return [*(hooks or {}).values(), *(local or {}).values()]


class FunctionHook:
    """Base of function hooks; override the callbacks you need. ``name`` keys the hook."""

    name = "FunctionHook"

    def __enter__(self):
        hooks = get_function_hooks()
        if self.name in hooks:
            raise KeyError(f"hook {self.name} already exists")
        hooks[self.name] = self
        self.added(None)
        return self

    def __exit__(self, *exc):
        get_function_hooks().pop(self.name, None)
        self.deleted(None)

    def added(self, function=None) -> None:
        """Called when the hook is registered (``function`` None for a thread-wide hook)."""

    def deleted(self, function=None) -> None:
        """Called when the hook is unregistered."""

    def forward_preprocess(self, function, in_data) -> None:
        """Called before ``function``'s forward, with its input arrays."""

    def forward_postprocess(self, function, in_data) -> None:
        """Called after ``function``'s forward."""

    def backward_preprocess(self, function, in_data, out_grad) -> None:
        """Called before ``function``'s backward, with its inputs and output gradients."""

    def backward_postprocess(self, function, in_data, out_grad) -> None:
        """Called after ``function``'s backward."""
