"""``TransformDataset``: a dataset whose examples pass through a function when read."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .dataset_mixin import DatasetMixin

__all__ = ["TransformDataset"]


class TransformDataset(DatasetMixin):
    """``transform(dataset[i])`` for each ``i``, computed when the example is read.

    ``transform`` receives the base dataset's example itself: it must return new values
    rather than modify it in place (``x = x - 0.5``, not ``x -= 0.5``).

    >>> ds = TransformDataset([1, 2, 3], lambda x: x * 10)
    >>> len(ds), ds[0], ds[1:]
    (3, 10, [20, 30])
    """

    def __init__(self, dataset, transform: Callable[[Any], Any]):
        if not callable(transform):
            raise TypeError(
                f"TransformDataset: expected transform to be callable, got {type(transform).__name__}"
            )
        self._dataset = dataset
        self._transform = transform

    def __len__(self) -> int:
        return len(self._dataset)

    def get_example(self, i: int) -> Any:
        return self._transform(self._dataset[i])
