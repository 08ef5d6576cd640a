"""``chainer.utils.meta``: methods declared final, which subclasses may not override.

A class made from ``enable_final()`` checks its subclasses as they are defined: overriding a
method decorated with ``@final`` raises ``TypeError`` (or the exception given as ``action``),
or warns when ``action`` is a Warning class.

>>> class Base(enable_final()):
...     @final
...     def step(self):
...         return 1
>>> class Child(Base):
...     def step(self):
...         return 2
Traceback (most recent call last):
TypeError: Child.step: Base.step is final and cannot be overridden
  hint: rename the method in Child, or drop @final from Base.step
"""

from __future__ import annotations

import warnings

__all__ = ["final", "enable_final"]

_ACTION = "_fnet_final_action"  # the attribute @final puts on a method


def final(*args, action: type = TypeError):
    """Declare a method final: ``@final`` or ``@final(action=Warning class or Exception class)``."""
    if not (isinstance(action, type) and issubclass(action, (Warning, Exception))):
        raise TypeError(
            f"final: expected action to be an Exception or a Warning class, got {action!r}\n"
            "  hint: e.g. @final(action=UserWarning)"
        )

    def mark(method):
        if not callable(method):
            raise TypeError(f"final: expected a method, got {method!r}")
        setattr(method, _ACTION, action)
        return method

    if args:
        (method,) = args
        return mark(method)
    return mark


class _EnforcesFinal(type):
    """The metaclass that refuses (or warns about) overriding a final method of a base."""

    def __new__(mcs, name, bases, namespace, **kwargs):
        for key in namespace:
            for base in bases:
                action = getattr(getattr(base, key, None), _ACTION, None)
                if action is None:
                    continue
                text = (
                    f"{name}.{key}: {base.__name__}.{key} is final and cannot be overridden\n"
                    f"  hint: rename the method in {name}, or drop @final from {base.__name__}.{key}"
                )
                if issubclass(action, Warning):
                    warnings.warn(text, action, stacklevel=2)
                else:
                    raise action(text)
        return super().__new__(mcs, name, bases, namespace, **kwargs)


def enable_final(base=(), meta_base=()) -> type:
    """A class (deriving from ``base``) whose subclasses cannot override its ``@final`` methods;
    ``meta_base``: metaclasses the class must also derive from (to avoid a metaclass conflict)."""
    bases = tuple(base) if isinstance(base, (list, tuple)) else (base,)
    metas = tuple(meta_base) if isinstance(meta_base, (list, tuple)) else (meta_base,)
    metaclass = type("EnforcesFinal", (_EnforcesFinal, *metas), {})
    return metaclass("FinalBase", bases or (object,), {})
