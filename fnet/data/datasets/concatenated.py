"""``ConcatenatedDataset``: several datasets read one after the other as one dataset."""

from __future__ import annotations

from typing import Any

from .dataset_mixin import DatasetMixin

__all__ = ["ConcatenatedDataset"]


class ConcatenatedDataset(DatasetMixin):
    """The examples of each dataset in turn: a dataset of 10 and one of 20 make one of 30.

    As in Chainer, a negative index is an IndexError (slices work as usual).

    >>> ds = ConcatenatedDataset([1, 2], [3, 4, 5])
    >>> len(ds), ds[3], ds[1:]
    (5, 4, [2, 3, 4, 5])
    """

    def __init__(self, *datasets):
        self._datasets = datasets

    def __len__(self) -> int:
        return sum(len(dataset) for dataset in self._datasets)

    def get_example(self, i: int) -> Any:
        if i < 0:
            raise IndexError(
                f"ConcatenatedDataset: negative index {i} is not supported; use len(dataset) - {-i}"
            )
        position = i
        for dataset in self._datasets:
            if position < len(dataset):
                return dataset[position]
            position -= len(dataset)
        raise IndexError(f"ConcatenatedDataset: index {i} is out of range for length {len(self)}")
