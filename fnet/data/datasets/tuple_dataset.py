"""``TupleDataset``: equal-length datasets zipped into one dataset of tuples."""

from __future__ import annotations

from typing import Any

from ...errors import message

__all__ = ["TupleDataset"]


class TupleDataset:
    """The ``i``-th example is ``(d[i] for d in datasets)``, like ``zip`` over the datasets.

    An integer index gives a tuple; a slice gives a list of tuples; another index (a list or
    an array of indices) is passed to each dataset and gives the tuple of their batches.

    >>> ds = TupleDataset([8, 0, 5, 1], [3, 1, 7, 4])
    >>> len(ds), ds[2], ds[1:3]
    (4, (5, 7), [(0, 1), (5, 7)])
    """

    def __init__(self, *datasets):
        if not datasets:
            raise ValueError(
                message("TupleDataset", "no datasets are given", hint="pass one or more datasets")
            )
        length = len(datasets[0])
        for i, dataset in enumerate(datasets):
            if len(dataset) != length:
                raise ValueError(
                    message(
                        "TupleDataset",
                        f"all datasets must have the same length, but the dataset of index {i} has "
                        f"length {len(dataset)} while the first has length {length}",
                    )
                )
        self._datasets = datasets
        self._length = length

    def __getitem__(self, index) -> Any:
        batches = [dataset[index] for dataset in self._datasets]
        if isinstance(index, slice):
            return list(zip(*batches))
        return tuple(batches)

    def __len__(self) -> int:
        return self._length
