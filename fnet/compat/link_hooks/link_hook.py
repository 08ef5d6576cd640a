"""Chainer's ``LinkHook``: an object called before and after the ``forward`` of links.

A hook acts on every link called inside its ``with`` block (in this thread), or on one link
after ``link.add_hook(hook)``. ``Link.__call__`` hands it the link, the forward method's name
and the arguments (and, afterwards, the output).
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = [
    "LinkHook",
    "ForwardPreprocessCallbackArgs",
    "ForwardPostprocessCallbackArgs",
    "get_link_hooks",
    "active_link_hooks",
]


class _State(threading.local):
    """Per-thread registry; each thread starts with no hooks."""

    def __init__(self):
        self.hooks: dict = {}


_state = _State()


def get_link_hooks() -> dict:
    """The link hooks active in this thread (entered with ``with``), by name, in entry order."""
    return _state.hooks


def active_link_hooks(local: dict | None) -> list:
    """The hooks that apply to a call of a link whose own hooks are ``local``: the thread's,
    then the link's (a link's hook replaces a thread-wide one of the same name)."""
    hooks = _state.hooks
    if not hooks:
        return list(local.values()) if local else []
    if not local:
        return list(hooks.values())
    return list({**hooks, **local}.values())


class ForwardPreprocessCallbackArgs:
    """What ``LinkHook.forward_preprocess`` receives: ``link``, ``forward_name``, ``args``, ``kwargs``."""

    __slots__ = ("link", "forward_name", "args", "kwargs")

    def __init__(self, link, forward_name: str, args: tuple, kwargs: dict):
        self.link = link
        self.forward_name = forward_name
        self.args = args
        self.kwargs = kwargs

    def __repr__(self) -> str:
        fields = " ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"<{type(self).__module__}.{type(self).__qualname__} {fields}>"


class ForwardPostprocessCallbackArgs(ForwardPreprocessCallbackArgs):
    """What ``LinkHook.forward_postprocess`` receives: the preprocess fields and ``out``."""

    __slots__ = ("out",)

    def __init__(self, link, forward_name: str, args: tuple, kwargs: dict, out: Any):
        super().__init__(link, forward_name, args, kwargs)
        self.out = out

    def __repr__(self) -> str:
        return f"{super().__repr__()[:-1]} out={self.out!r}>"


class LinkHook:
    """Base of link hooks; override the callbacks you need (they do nothing here).

    Use it as a context manager to hook every link called inside the block, or register it
    on one link with ``link.add_hook(hook)`` (removed with ``link.delete_hook(name)``).
    ``name`` keys the hook in either registry.

    >>> class Counter(LinkHook):
    ...     name = "Counter"
    ...     calls = 0
    ...     def forward_postprocess(self, args):
    ...         self.calls += 1
    >>> with Counter() as counter:
    ...     pass
    >>> counter.calls
    0
    """

    name = "LinkHook"

    def __enter__(self) -> LinkHook:
        hooks = get_link_hooks()
        if self.name in hooks:
            raise KeyError(
                f"LinkHook: a hook named {self.name!r} is already active in this thread\n"
                "  hint: give the second hook another name, or leave the first one's block"
            )
        hooks[self.name] = self
        self.added(None)
        return self

    def __exit__(self, *exc) -> None:
        hooks = get_link_hooks()
        hooks[self.name].deleted(None)
        del hooks[self.name]

    def added(self, link) -> None:
        """Called when the hook is registered: to ``link``, or thread-wide (``link`` None)."""

    def deleted(self, link) -> None:
        """Called when the hook is unregistered: from ``link``, or thread-wide (``link`` None)."""

    def forward_preprocess(self, args: ForwardPreprocessCallbackArgs) -> None:
        """Called before a link's forward, with ``args.link``, ``args.forward_name``,
        ``args.args`` and ``args.kwargs``."""

    def forward_postprocess(self, args: ForwardPostprocessCallbackArgs) -> None:
        """Called after a link's forward, with the preprocess fields and ``args.out``."""
