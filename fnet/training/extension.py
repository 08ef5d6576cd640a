"""Trainer extensions: the ``Extension`` base class, ``make_extension`` and the priority constants.

An extension is anything a ``Trainer`` calls with itself after an update, when the extension's
trigger fires. It may carry defaults the trainer reads when it is registered: ``trigger``
(``(1, 'iteration')`` unless set), ``priority`` (higher runs first in an iteration),
``default_name``, and the hooks ``initialize(trainer)`` (before the loop), ``on_error(trainer,
exc, tb)`` (when the loop raised) and ``finalize()`` (after the loop, always). Subclass
``Extension``, decorate a function with ``make_extension``, or pass any callable.

>>> @make_extension(trigger=(1, "epoch"), priority=PRIORITY_WRITER)
... def count_epochs(trainer):
...     trainer.observation["epochs_seen"] = trainer.updater.epoch
>>> count_epochs.trigger, count_epochs.default_name, count_epochs.priority
((1, 'epoch'), 'count_epochs', 300)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..errors import InvalidInputError

__all__ = ["Extension", "make_extension", "PRIORITY_WRITER", "PRIORITY_EDITOR", "PRIORITY_READER"]

PRIORITY_WRITER = 300  # extensions that write into the observation (report values)
PRIORITY_EDITOR = 200  # extensions that change values already in the observation
PRIORITY_READER = 100  # extensions that only read the observation (or do not use it)

_REMOVED = "invoke_before_training was removed in Chainer v2.0.0"
_BEFORE_TRAINING_HINT = "pass call_before_training=True to Trainer.extend, or use an initializer"


class Extension:
    """Base class of trainer extensions: subclasses define ``__call__(trainer)`` (the base's
    raises NotImplementedError, as Chainer's).

    Class attributes give the defaults ``Trainer.extend`` uses: ``trigger = (1, 'iteration')``,
    ``priority = PRIORITY_READER``, and ``name = None`` (the trainer sets it on registration;
    ``default_name``, the class name unless overridden, is used when no name is given).

    >>> class Hello(Extension):
    ...     trigger = 1, "epoch"
    ...     def __call__(self, trainer):
    ...         print("epoch", trainer.updater.epoch)
    >>> Hello().default_name, Hello.priority
    ('Hello', 100)
    """

    trigger: Any = (1, "iteration")
    priority: int = PRIORITY_READER
    name: str | None = None

    @property
    def default_name(self) -> str:
        """The name used when none is given to ``Trainer.extend``: the class name by default."""
        return type(self).__name__

    def __call__(self, trainer) -> None:
        """Run the extension (called after an update when its trigger fires)."""
        raise NotImplementedError(
            f"{type(self).__name__}.__call__: expected the extension to define __call__(trainer), "
            "got the one of the Extension base class\n  hint: define __call__(self, trainer) in "
            f"{type(self).__name__}, or decorate a function with make_extension"
        )

    def __getattr__(self, name: str):
        if name == "invoke_before_training":
            raise AttributeError(
                f"{type(self).__name__}.{_REMOVED}\n  hint: define initialize(trainer) instead, or "
                + _BEFORE_TRAINING_HINT
            )
        raise AttributeError(f"{type(self).__name__} object has no attribute {name}")

    def initialize(self, trainer) -> None:  # noqa: B027 - a hook that subclasses may leave empty
        """Prepare (or, after a resume, restore) what the extension sets up on the trainer before
        the training loop starts. Nothing by default."""

    def on_error(self, trainer, exc: BaseException, tb) -> None:  # noqa: B027 - a hook that subclasses may leave empty
        """React to ``exc`` raised in the training loop (called before ``finalize``). Nothing by
        default."""

    def finalize(self) -> None:  # noqa: B027 - a hook that subclasses may leave empty
        """Release what the extension holds, at the end of the training loop. Nothing by default."""

    def serialize(self, serializer) -> None:  # noqa: B027 - a hook that subclasses may leave empty
        """Save or load the extension's state with a Chainer serializer. Nothing by default."""


def make_extension(
    trigger: Any = None,
    default_name: str | None = None,
    priority: int | None = None,
    finalizer: Callable[[], None] | None = None,
    initializer: Callable[[Any], None] | None = None,
    on_error: Callable[[Any, BaseException, Any], None] | None = None,
    **kwargs: Any,
) -> Callable:
    """A decorator that gives a function the attributes of an extension.

    ``trigger`` (``(1, 'iteration')`` when None), ``default_name`` (the function's name when
    None) and ``priority`` (``PRIORITY_READER`` when None) become the defaults of
    ``Trainer.extend``; ``initializer(trainer)``, ``on_error(trainer, exc, tb)`` and
    ``finalizer()`` become its ``initialize``, ``on_error`` and ``finalize``.
    """
    if "invoke_before_training" in kwargs:
        raise InvalidInputError(
            f"make_extension: {_REMOVED}\n  hint: {_BEFORE_TRAINING_HINT} (initializer=...)"
        )
    if kwargs:
        raise TypeError(
            f"make_extension() got unexpected keyword argument(s) {', '.join(map(repr, kwargs))}\n"
            "  hint: the arguments are trigger, default_name, priority, finalizer, initializer, on_error"
        )
    trigger = Extension.trigger if trigger is None else trigger
    priority = Extension.priority if priority is None else priority

    def decorator(ext: Callable) -> Callable:
        ext.trigger = trigger
        ext.default_name = default_name or ext.__name__
        ext.priority = priority
        ext.finalize = finalizer
        ext.on_error = on_error
        ext.initialize = initializer
        return ext

    return decorator
