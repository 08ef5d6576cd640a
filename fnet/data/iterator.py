"""The dataset iterator interface (Chainer's ``chainer.dataset.Iterator``).

An iterator walks over a dataset and gives a minibatch (a list of examples) at each step. It
keeps where it is (``epoch``, ``epoch_detail``, ``is_new_epoch``...) and saves that position
with ``serialize``, so that training can stop and resume. ``finalize`` releases what the
iterator holds (worker processes or threads); ``with iterator:`` calls it at the end.
"""

from __future__ import annotations

import abc

__all__ = ["Iterator"]


class Iterator(abc.ABC):
    """Base class of dataset iterators: ``next(iterator)`` gives the next minibatch, a list.

    Subclasses define ``__next__`` (raising ``StopIteration`` at the end, if there is one) and
    the attributes ``batch_size``, ``epoch`` (completed sweeps), ``epoch_detail`` (a float:
    2.5 is the middle of the third sweep), ``previous_epoch_detail`` (its value before the last
    step; None before the first) and ``is_new_epoch`` (whether the last step ended a sweep).
    A batch may be smaller than ``batch_size`` (the end of a sweep that does not repeat).

    >>> class Twice(Iterator):
    ...     def __init__(self):
    ...         self.count = 0
    ...     def __next__(self):
    ...         if self.count == 2:
    ...             raise StopIteration
    ...         self.count += 1
    ...         return [self.count]
    >>> with Twice() as it:
    ...     list(it)
    [[1], [2]]
    """

    def __del__(self):
        self.finalize()

    def __iter__(self):
        return self

    @abc.abstractmethod
    def __next__(self) -> list:
        """The next minibatch; ``StopIteration`` when the iteration is over."""

    def next(self) -> list:
        """The next minibatch (Chainer's Python 2 spelling of ``__next__``)."""
        return self.__next__()

    def finalize(self) -> None:  # noqa: B027 - a hook that subclasses may leave empty
        """Release the resources the iterator holds (nothing by default); safe to call twice."""

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_value, traceback) -> None:
        self.finalize()

    def serialize(self, serializer) -> None:  # noqa: B027 - a hook that subclasses may leave empty
        """Save or load the iterator's position with a Chainer serializer (nothing by default).

        Only what changes while iterating is serialized, never settings such as ``batch_size``.
        """
