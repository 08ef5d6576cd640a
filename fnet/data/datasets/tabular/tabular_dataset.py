"""``TabularDataset``: a dataset of rows with named columns, read column-wise in batches.

Every example has the same columns, named by ``keys``. ``mode`` says how an example (and the
whole table, from ``fetch``) is shown: ``tuple`` (one value per column), ``dict`` (key to
value), or ``None`` (a single column, shown as its bare value). A subclass defines
``__len__``, ``keys``, ``mode`` and ``get_examples(indices, key_indices)``; the methods here
build lazy views on it: ``slice[rows, keys]``, ``astuple``, ``asdict``, ``concat``, ``join``,
``transform``, ``transform_batch`` and ``with_converter``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy

from .... import backend
from ..dataset_mixin import DatasetMixin

__all__ = ["TabularDataset"]


def _as_array(column):
    """A column as an array on the device of its first value (arrays are returned as they are)."""
    if isinstance(column, numpy.ndarray) or backend.xp(column) is not numpy:
        return column
    device = backend.get_device_from_array(column[0]) if len(column) else backend.CPU
    with backend.using_device(device):
        return device.xp.asarray(column)


class TabularDataset(DatasetMixin):
    """Base of tabular datasets (see the module's docstring).

    >>> class Table(TabularDataset):
    ...     data = numpy.arange(12).reshape(4, 3)
    ...     def __len__(self):
    ...         return 4
    ...     @property
    ...     def keys(self):
    ...         return ('a', 'b', 'c')
    ...     @property
    ...     def mode(self):
    ...         return tuple
    ...     def get_examples(self, indices, key_indices):
    ...         data = self.data if indices is None else self.data[indices]
    ...         if key_indices is not None:
    ...             data = data[:, list(key_indices)]
    ...         return tuple(data.T)
    >>> table = Table()
    >>> [int(v) for v in table[1]]
    [3, 4, 5]
    >>> view = table.slice[[3, 2], ('c', 0)]
    >>> len(view), view.keys, {k: int(v) for k, v in view.asdict()[1].items()}
    (2, ('c', 'a'), {'c': 8, 'a': 6})
    """

    def __len__(self) -> int:
        """The number of rows: each tabular dataset defines it."""
        raise NotImplementedError(f"{type(self).__name__} must define __len__ (a TabularDataset's row count)")

    @property
    def keys(self) -> tuple[str, ...]:
        """The names of the columns, a tuple of str."""
        raise NotImplementedError(f"{type(self).__name__} must define the property keys (column names)")

    @property
    def mode(self):
        """How examples are shown: ``tuple``, ``dict``, or ``None`` (one column, a bare value)."""
        raise NotImplementedError(
            f"{type(self).__name__} must define the property mode (tuple, dict or None)"
        )

    def get_examples(self, indices, key_indices) -> tuple:
        """The requested part of the table, column-major: a tuple with one list or array per
        requested column.

        Args:
            indices: the rows, a list of ints or a slice; None for all rows.
            key_indices: the columns, a tuple of ints; None for all columns.
        """
        raise NotImplementedError(f"{type(self).__name__} must define get_examples(indices, key_indices)")

    @property
    def slice(self):
        """A view of some rows and columns: ``dataset.slice[rows]`` or ``dataset.slice[rows, keys]``.

        ``rows`` is a slice, a list or array of ints, or a list or array of bools (one per
        row); ``keys`` is a tuple of column names or indices, or one name or index (the view's
        mode is then None).
        """
        return _views.SliceHelper(self)

    def _shown(self, values: tuple):
        """One row (or the whole table, column-major) shown in this dataset's mode."""
        if self.mode is tuple:
            return values
        if self.mode is dict:
            return dict(zip(self.keys, values))
        return values[0]

    def fetch(self):
        """The whole table, column-major: a tuple of columns, a dict of columns, or one column."""
        return self._shown(self.get_examples(None, None))

    def convert(self, data):
        """Prepare fetched data (a tuple, a dict, or one column) for a model: by default, each
        column becomes an array. ``with_converter`` replaces this."""
        if isinstance(data, tuple):
            return tuple(_as_array(column) for column in data)
        if isinstance(data, dict):
            return {key: _as_array(column) for key, column in data.items()}
        return _as_array(data)

    def astuple(self) -> TabularDataset:
        """A view of this dataset in mode ``tuple``."""
        return _views.AsMode(self, tuple)

    def asdict(self) -> TabularDataset:
        """A view of this dataset in mode ``dict``."""
        return _views.AsMode(self, dict)

    def concat(self, *datasets: TabularDataset) -> TabularDataset:
        """The rows of this dataset followed by those of ``datasets`` (all with the same keys)."""
        return _views.Concat(self, *datasets)

    def join(self, *datasets: TabularDataset) -> TabularDataset:
        """The columns of this dataset followed by those of ``datasets`` (all of the same length,
        no key in two of them)."""
        return _views.Join(self, *datasets)

    def transform(self, keys: str | tuple[str, ...], transform: Callable) -> TabularDataset:
        """A view whose examples are ``transform(example)``, with the columns ``keys``.

        ``transform`` takes an example as arguments (positional in mode tuple or None, keywords
        in mode dict) and returns a tuple, a dict, or one value: that sets the view's mode.
        """
        return _views.Transform(self, keys, transform)

    def transform_batch(self, keys: str | tuple[str, ...], transform_batch: Callable) -> TabularDataset:
        """As ``transform``, but ``transform_batch`` takes and returns whole columns of the
        requested rows (and must keep their length)."""
        return _views.TransformBatch(self, keys, transform_batch)

    def with_converter(self, converter: Callable) -> TabularDataset:
        """A view whose ``convert`` is ``converter``, called with the fetched columns as
        arguments (positional for a tuple, keywords for a dict)."""
        return _views.WithConverter(self, converter)

    def get_example(self, i: int) -> Any:
        """The ``i``-th row, shown in this dataset's mode."""
        return self._shown(tuple(column[0] for column in self.get_examples([i], None)))

    def __iter__(self) -> Iterator:
        return (self.get_example(i) for i in range(len(self)))


from . import _views  # noqa: E402 - the views subclass TabularDataset
