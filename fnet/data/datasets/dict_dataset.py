"""``DictDataset``: equal-length datasets combined into one dataset of dicts."""

from __future__ import annotations

from typing import Any

from ...errors import message

__all__ = ["DictDataset"]


class DictDataset:
    """The ``i``-th example is ``{key: d[i]}`` over the keyword datasets ``key=d``.

    An integer index gives a dict; a slice gives a list of dicts; another index (a list or an
    array of indices) is passed to each dataset and gives the dict of their batches.

    >>> ds = DictDataset(x=[1, 2, 3], y=[10, 20, 30])
    >>> ds[1]
    {'x': 2, 'y': 20}
    >>> ds[:2]
    [{'x': 1, 'y': 10}, {'x': 2, 'y': 20}]
    """

    def __init__(self, **datasets):
        if not datasets:
            raise ValueError(
                message(
                    "DictDataset", "no datasets are given", hint="pass datasets as keywords: x=..., y=..."
                )
            )
        length = None
        for key, dataset in datasets.items():
            if length is None:
                length = len(dataset)
                first = key
            elif len(dataset) != length:
                raise ValueError(
                    message(
                        "DictDataset",
                        f"all datasets must have the same length, but {key!r} has length "
                        f"{len(dataset)} while {first!r} has length {length}",
                    )
                )
        self._datasets = datasets
        self._length = length

    def __getitem__(self, index) -> Any:
        batches = {key: dataset[index] for key, dataset in self._datasets.items()}
        if isinstance(index, slice):
            return [dict(zip(batches, values)) for values in zip(*batches.values())]
        return batches

    def __len__(self) -> int:
        return self._length
