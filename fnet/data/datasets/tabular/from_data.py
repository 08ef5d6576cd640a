"""``from_data``: a TabularDataset made from lists, arrays and functions of the row index."""

from __future__ import annotations

import numpy

from .... import backend
from ....errors import message
from .tabular_dataset import TabularDataset

__all__ = ["from_data"]


class _Column(TabularDataset):
    """One column held in a list or an array."""

    def __init__(self, key: str, data):
        self._key = key
        self._data = data

    def __len__(self) -> int:
        return len(self._data)

    @property
    def keys(self):
        return (self._key,)

    @property
    def mode(self):
        return None

    def get_examples(self, indices, key_indices):
        n = 1 if key_indices is None else len(key_indices)
        if indices is None:
            values = self._data
        elif isinstance(indices, slice) or not isinstance(self._data, list):
            values = self._data[indices]
        else:
            values = [self._data[i] for i in indices]
        return (values,) * n


class _Index(TabularDataset):
    """The column ``index``: each row's own index (what functions of the row index are given)."""

    def __init__(self, size: int):
        self._size = size

    def __len__(self) -> int:
        return self._size

    @property
    def keys(self):
        return ("index",)

    @property
    def mode(self):
        return None

    def get_examples(self, indices, key_indices):
        if indices is None:
            indices = slice(None)
        if isinstance(indices, slice):
            indices = list(range(*indices.indices(self._size)))
        return (indices,) * (1 if key_indices is None else len(key_indices))


def _is_array(data) -> bool:
    return isinstance(data, numpy.ndarray) or (backend.is_array(data) and backend.xp(data) is not numpy)


def _is_key(key) -> bool:
    return isinstance(key, str) or (isinstance(key, tuple) and all(isinstance(k, str) for k in key))


def _dataset(key, data, size: int | None) -> TabularDataset:
    """The dataset of one entry of ``from_data``'s argument."""
    if _is_array(data) or isinstance(data, list):
        return _Column(f"_{id(data)}" if key is None else key, data)
    if callable(data):
        if key is None:
            raise ValueError(
                message("from_data", "key(s) must be specified for callable", hint="pass ('name', function)")
            )
        if size is None:
            raise ValueError(
                message(
                    "from_data",
                    "size must be specified for callable",
                    hint="pass size=N, or give a list or an array among the columns",
                )
            )
        return _Index(size).transform(key, data)
    raise TypeError(
        message(
            "from_data",
            f"a column must be a list, an array or a function of the row index, got {type(data).__name__}",
        )
    )


def _first_length(columns) -> int | None:
    for column in columns:
        if _is_array(column) or isinstance(column, list):
            return len(column)
    return None


def from_data(data, *, size: int | None = None) -> TabularDataset:
    """A TabularDataset from columns given as lists, arrays, or functions of the row index.

    ``data`` is one column (a list or an array: mode None), a ``(key, column)`` pair (a
    function may give several columns: ``((key, ...), function)``), a tuple of columns or pairs
    (mode tuple), or a dict from keys to columns (mode dict). Unnamed columns get unique keys.
    ``size`` is the length, needed when every column is a function.

    >>> from_data([0, 1, 2])[0]
    0
    >>> ds = from_data((('a', [0, 1, 2]), ('b', [3, 4, 5])))
    >>> ds.keys, ds[1]
    (('a', 'b'), (1, 4))
    >>> from_data({'a': [0, 1, 2], 'b': [3, 4, 5]})[2]
    {'a': 2, 'b': 5}
    >>> from_data(('square', lambda i: i * i), size=10)[5]
    25
    """
    if isinstance(data, tuple):
        if len(data) == 2 and _is_key(data[0]):
            return _dataset(data[0], data[1], size)
        entries = [entry if isinstance(entry, tuple) else (None, entry) for entry in data]
        if size is None:
            size = _first_length(column for _, column in entries)
        datasets = [_dataset(key, column, size) for key, column in entries]
        return datasets[0].join(*datasets[1:]).astuple()
    if isinstance(data, dict):
        if size is None:
            size = _first_length(data.values())
        datasets = [_dataset(key, column, size) for key, column in data.items()]
        return datasets[0].join(*datasets[1:]).asdict()
    return _dataset(None, data, size)
