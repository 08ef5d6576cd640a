"""``chainer.utils.cache``: a read-only property computed once per object and backprop mode."""

from __future__ import annotations

import functools

from .. import configuration

__all__ = ["cached_property"]


class cached_property:  # noqa: N801  (Chainer's name, a decorator like ``property``)
    """A read-only property whose value is computed once per object and per value of
    ``chainer.config.enable_backprop``: a value computed under ``no_backprop_mode`` has no graph,
    so it is not handed out where the graph is needed, and the reverse.

    >>> class Box:
    ...     calls = 0
    ...     @cached_property
    ...     def double(self):
    ...         Box.calls += 1
    ...         return 2
    >>> box = Box()
    >>> box.double + box.double, Box.calls
    (4, 1)
    """

    def __init__(self, func):
        functools.update_wrapper(self, func)
        self.func = func

    def __get__(self, obj, cls=None):
        if obj is None:
            return self
        caches = obj.__dict__.setdefault(f"_cached_property_{self.__name__}", {})
        mode = bool(configuration.config.enable_backprop)
        if mode not in caches:
            caches[mode] = self.func(obj)
        return caches[mode]

    def __set__(self, obj, value):  # a data descriptor: the cache never shadows it
        raise AttributeError(
            f"cached_property: attribute {self.__name__!r} of {type(obj).__name__} is read-only\n"
            "  hint: it is computed from the object; change what it is computed from instead"
        )
