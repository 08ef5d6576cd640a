"""``TabularDataset``: a dataset of rows with named columns, read column-wise in batches.

Every example has the same columns, named by ``keys``. ``mode`` says how an example (and the
whole table, from ``fetch``) is shown: ``tuple`` (one value per column), ``dict`` (key to
value), or ``None`` (a single column, shown as its bare value). A subclass defines
``__len__``, ``keys``, ``mode`` and ``get_examples(indices, key_indices)``; the methods here
build lazy views on it: ``slice[rows, keys]``, ``astuple``, ``asdict``, ``concat``, ``join``,
``transform``, ``transform_batch`` and ``with_converter``. The views are TabularDatasets
themselves, so they stand here beside the class whose methods make them.
"""

from __future__ import annotations

import bisect
import numbers
from collections.abc import Callable, Iterator
from typing import Any

import numpy

from .... import backend
from ....errors import message
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
        return SliceHelper(self)

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
        return AsMode(self, tuple)

    def asdict(self) -> TabularDataset:
        """A view of this dataset in mode ``dict``."""
        return AsMode(self, dict)

    def concat(self, *datasets: TabularDataset) -> TabularDataset:
        """The rows of this dataset followed by those of ``datasets`` (all with the same keys)."""
        return Concat(self, *datasets)

    def join(self, *datasets: TabularDataset) -> TabularDataset:
        """The columns of this dataset followed by those of ``datasets`` (all of the same length,
        no key in two of them)."""
        return Join(self, *datasets)

    def transform(self, keys: str | tuple[str, ...], transform: Callable) -> TabularDataset:
        """A view whose examples are ``transform(example)``, with the columns ``keys``.

        ``transform`` takes an example as arguments (positional in mode tuple or None, keywords
        in mode dict) and returns a tuple, a dict, or one value: that sets the view's mode.
        """
        return Transform(self, keys, transform)

    def transform_batch(self, keys: str | tuple[str, ...], transform_batch: Callable) -> TabularDataset:
        """As ``transform``, but ``transform_batch`` takes and returns whole columns of the
        requested rows (and must keep their length)."""
        return TransformBatch(self, keys, transform_batch)

    def with_converter(self, converter: Callable) -> TabularDataset:
        """A view whose ``convert`` is ``converter``, called with the fetched columns as
        arguments (positional for a tuple, keywords for a dict)."""
        return WithConverter(self, converter)

    def get_example(self, i: int) -> Any:
        """The ``i``-th row, shown in this dataset's mode."""
        return self._shown(tuple(column[0] for column in self.get_examples([i], None)))

    def __iter__(self) -> Iterator:
        return (self.get_example(i) for i in range(len(self)))


# The lazy views that the methods above return: mode changes, slices, concatenation, joins,
# transforms and converters. Each one reads through to the datasets it was made from.


class View(TabularDataset):
    """A dataset shown through another one: everything is read from ``_dataset``."""

    def __init__(self, dataset: TabularDataset):
        self._dataset = dataset

    def __len__(self) -> int:
        return len(self._dataset)

    @property
    def keys(self):
        return self._dataset.keys

    @property
    def mode(self):
        return self._dataset.mode

    def get_examples(self, indices, key_indices):
        return self._dataset.get_examples(indices, key_indices)

    def convert(self, data):
        return self._dataset.convert(data)


class AsMode(View):
    """The dataset in another mode (``tuple`` or ``dict``)."""

    def __init__(self, dataset: TabularDataset, mode):
        super().__init__(dataset)
        self._mode = mode

    @property
    def mode(self):
        return self._mode


class WithConverter(View):
    """The dataset with another ``convert``."""

    def __init__(self, dataset: TabularDataset, converter: Callable):
        super().__init__(dataset)
        self._converter = converter

    def convert(self, data):
        if isinstance(data, tuple):
            return self._converter(*data)
        if isinstance(data, dict):
            return self._converter(**data)
        return self._converter(data)


def _row_indices(indices, length: int):
    """Rows as a slice or a list of non-negative ints (bools select rows, one per row)."""
    if isinstance(indices, slice):
        return indices
    try:
        n = len(indices)
    except TypeError:
        raise TypeError(
            message(
                "TabularDataset.slice",
                f"rows must be a slice or a list or array of ints or bools, got {type(indices).__name__}",
                hint="for one row, use dataset.slice[[i]] or dataset[i]",
            )
        ) from None
    if n == 0:
        return indices
    if all(isinstance(index, (bool, numpy.bool_)) for index in indices):
        if n != length:
            raise ValueError(
                message(
                    "TabularDataset.slice",
                    f"got {n} booleans for a dataset of length {length}",
                    hint="give one boolean per row",
                )
            )
        return [i for i, keep in enumerate(indices) if keep]
    rows = []
    for index in indices:
        row = int(index)
        if row < 0:
            row += length
        if not 0 <= row < length:
            raise IndexError(
                f"TabularDataset.slice: index {int(index)} is out of bounds for dataset with size {length}"
            )
        rows.append(row)
    return rows


def _key_indices(keys: tuple, names: tuple) -> tuple[int, ...]:
    """Column names or indices as indices into ``names``."""
    indices = []
    for key in keys:
        if isinstance(key, numbers.Integral):
            index = key + len(names) if key < 0 else key
            if not 0 <= index < len(names):
                raise IndexError(
                    f"TabularDataset.slice: index {key} is out of bounds for keys with size {len(names)}"
                )
        elif key in names:
            index = names.index(key)
        else:
            raise KeyError(f"TabularDataset.slice: {key!r} does not exist; the keys are {names}")
        indices.append(index)
    return tuple(indices)


def _compose_rows(outer, inner, outer_length: int):
    """The rows of the base dataset that the rows ``inner`` of the view ``outer`` are."""
    if outer is None:
        return inner
    if inner is None:
        return outer
    if isinstance(outer, slice):
        rows = range(*outer.indices(outer_length))
        if not isinstance(inner, slice):
            return [rows[i] for i in inner]
        rows = rows[inner]
        if not rows:
            return slice(0, 0)
        return slice(rows.start, rows.stop if rows.stop >= 0 else None, rows.step)
    if isinstance(inner, slice):
        return outer[inner]
    return [outer[i] for i in inner]


class Slice(View):
    """Some rows and columns of a dataset."""

    def __init__(self, dataset: TabularDataset, indices, keys):
        if keys is None:
            self._unary = None
        elif isinstance(keys, tuple):
            self._unary = False
        elif isinstance(keys, (str, numbers.Integral)):
            self._unary = True
            keys = (keys,)
        else:
            raise TypeError(
                message(
                    "TabularDataset.slice",
                    f"keys must be a tuple, a str or an int, got {type(keys).__name__} {keys!r}",
                    hint="give several keys as a tuple: dataset.slice[:, ('a', 'b')]",
                )
            )
        super().__init__(dataset)
        self._indices = _row_indices(indices, len(dataset))
        self._key_indices = None if keys is None else _key_indices(keys, dataset.keys)

    def __len__(self) -> int:
        if isinstance(self._indices, slice):
            return len(range(*self._indices.indices(len(self._dataset))))
        return len(self._indices)

    @property
    def keys(self):
        if self._key_indices is None:
            return self._dataset.keys
        names = self._dataset.keys
        return tuple(names[i] for i in self._key_indices)

    @property
    def mode(self):
        if self._unary is None:
            return self._dataset.mode
        if self._unary:
            return None
        return self._dataset.mode or tuple

    def get_examples(self, indices, key_indices):
        rows = _compose_rows(self._indices, indices, len(self._dataset))
        if self._key_indices is not None and key_indices is not None:
            key_indices = tuple(self._key_indices[i] for i in key_indices)
        elif key_indices is None:
            key_indices = self._key_indices
        return self._dataset.get_examples(rows, key_indices)


class SliceHelper:
    """``dataset.slice``: indexing it with ``[rows]`` or ``[rows, keys]`` gives a Slice."""

    def __init__(self, dataset: TabularDataset):
        self._dataset = dataset

    def __getitem__(self, args) -> Slice:
        indices, keys = args if isinstance(args, tuple) else (args, None)
        return Slice(self._dataset, indices, keys)


class Concat(TabularDataset):
    """The rows of several datasets with the same keys, one after the other."""

    def __init__(self, *datasets: TabularDataset):
        for dataset in datasets[1:]:
            if dataset.keys != datasets[0].keys:
                raise ValueError(
                    message(
                        "TabularDataset.concat",
                        f"all datasets must have the same keys, got {datasets[0].keys} and {dataset.keys}",
                    )
                )
        self._datasets = datasets

    def __len__(self) -> int:
        return sum(len(dataset) for dataset in self._datasets)

    @property
    def keys(self):
        return self._datasets[0].keys

    @property
    def mode(self):
        return self._datasets[0].mode

    def get_examples(self, indices, key_indices):
        n_columns = len(self.keys) if key_indices is None else len(key_indices)
        if indices is None:
            parts = [dataset.get_examples(None, key_indices) for dataset in self._datasets]
            return tuple([value for part in parts for value in part[c]] for c in range(n_columns))
        if isinstance(indices, slice):
            return self._slice_examples(indices, key_indices, n_columns)
        offsets = [0]
        for dataset in self._datasets:
            offsets.append(offsets[-1] + len(dataset))
        rows = indices
        requests: dict[int, list[int]] = {}  # dataset number -> its rows, in the order asked
        located = []  # for each row asked: (dataset number, position in that dataset's request)
        for row in rows:
            n = bisect.bisect_right(offsets, row) - 1
            request = requests.setdefault(n, [])
            located.append((n, len(request)))
            request.append(row - offsets[n])
        parts = {n: self._datasets[n].get_examples(requests[n], key_indices) for n in sorted(requests)}
        if not parts:
            return tuple([] for _ in range(n_columns))
        if len(parts) == 1:
            return next(iter(parts.values()))
        return tuple([parts[n][c][p] for n, p in located] for c in range(n_columns))

    def _slice_examples(self, indices: slice, key_indices, n_columns: int):
        """The rows of a slice: each dataset is asked for its part as a slice too (so that a
        dataset that reads slices fast stays fast), in the order the slice walks them."""
        start, stop, step = indices.indices(len(self))
        parts, offset = [], 0
        for dataset in self._datasets:
            size = len(dataset)
            first, last = start - offset, stop - offset
            if step > 0:
                first = first % step if first < 0 else first  # the first row of this dataset reached
                last = min(last, size)
            else:
                first = size - 1 - (size - 1 - first) % -step if first >= size else first
                last = max(last, -1)
            if len(range(first, last, step)):
                part = slice(first, None if last < 0 else last, step)
                parts.append(dataset.get_examples(part, key_indices))
            offset += size
        if step < 0:
            parts.reverse()
        if not parts:
            return tuple([] for _ in range(n_columns))
        if len(parts) == 1:
            return parts[0]
        return tuple([value for part in parts for value in part[c]] for c in range(n_columns))

    def convert(self, data):
        return self._datasets[0].convert(data)


class Join(TabularDataset):
    """The columns of several datasets of the same length, side by side."""

    def __init__(self, *datasets: TabularDataset):
        seen = set(datasets[0].keys)
        for dataset in datasets[1:]:
            if len(dataset) != len(datasets[0]):
                raise ValueError(
                    message(
                        "TabularDataset.join",
                        f"all datasets must have the same length, got {len(datasets[0])} and {len(dataset)}",
                    )
                )
            shared = seen.intersection(dataset.keys)
            if shared:
                raise ValueError(
                    message(
                        "TabularDataset.join",
                        f"all keys must be unique among all datasets; {sorted(shared)} repeat",
                    )
                )
            seen.update(dataset.keys)
        self._datasets = datasets

    def __len__(self) -> int:
        return len(self._datasets[0])

    @property
    def keys(self):
        return tuple(key for dataset in self._datasets for key in dataset.keys)

    @property
    def mode(self):
        for dataset in self._datasets:
            if dataset.mode:
                return dataset.mode
        return tuple

    def get_examples(self, indices, key_indices):
        if key_indices is None:
            return tuple(
                column for dataset in self._datasets for column in dataset.get_examples(indices, None)
            )
        owners = [(n, k) for n, dataset in enumerate(self._datasets) for k in range(len(dataset.keys))]
        wanted: dict[int, list[int]] = {}  # dataset number -> its columns asked, without repeats
        for index in key_indices:
            n, k = owners[index]
            columns = wanted.setdefault(n, [])
            if k not in columns:
                columns.append(k)
        fetched = {}
        for n in sorted(wanted):
            columns = tuple(wanted[n])
            fetched.update(zip(((n, k) for k in columns), self._datasets[n].get_examples(indices, columns)))
        return tuple(fetched[owners[index]] for index in key_indices)

    def convert(self, data):
        return self._datasets[0].convert(data)


_UNKNOWN = object()  # the mode of a transform before its first output is seen
_KINDS = {tuple: "tuples", dict: "dicts", None: "single values"}


class _Transformed(View):
    """What Transform and TransformBatch share: new keys, and a mode learnt from the outputs."""

    _what = "transform"

    def __init__(self, dataset: TabularDataset, keys, function: Callable):
        super().__init__(dataset)
        self._keys = keys if isinstance(keys, tuple) else (keys,)
        self._function = function
        self._mode = _UNKNOWN

    @property
    def keys(self):
        return self._keys

    @property
    def mode(self):
        if self._mode is _UNKNOWN:
            self.get_examples([0], None)
        return self._mode

    def _call(self, values):
        """The function applied to ``values`` (one per column of the base dataset)."""
        if self._dataset.mode is dict:
            return self._function(**dict(zip(self._dataset.keys, values)))
        return self._function(*values)

    def _output_columns(self, output) -> Callable[[int], object]:
        """Record the mode that ``output`` shows; return the lookup of its values by key index."""
        if isinstance(output, tuple):
            mode, pick = tuple, output.__getitem__
        elif isinstance(output, dict):
            mode, pick = dict, lambda k: output[self._keys[k]]
        else:
            mode, pick = None, (output,).__getitem__
        if self._mode is not _UNKNOWN and self._mode is not mode:
            raise ValueError(
                message(
                    f"TabularDataset.{self._what}",
                    f"{self._what} must not change its return type: it returned a "
                    f"{type(output).__name__} after returning {_KINDS[self._mode]}",
                )
            )
        self._mode = mode
        return pick


class Transform(_Transformed):
    """Each example passed through a function."""

    def get_examples(self, indices, key_indices):
        if key_indices is None:
            key_indices = range(len(self._keys))
        columns = tuple([] for _ in key_indices)
        for values in zip(*self._dataset.get_examples(indices, None)):
            pick = self._output_columns(self._call(values))
            for column, k in zip(columns, key_indices):
                column.append(pick(k))
        return columns


class TransformBatch(_Transformed):
    """The columns of the requested rows passed through a function at once."""

    _what = "transform_batch"

    def get_examples(self, indices, key_indices):
        if indices is None:
            n_rows = len(self)
        elif isinstance(indices, slice):
            n_rows = len(range(*indices.indices(len(self))))
        else:
            n_rows = len(indices)
        if key_indices is None:
            key_indices = range(len(self._keys))
        output = self._call(self._dataset.get_examples(indices, None))
        pick = self._output_columns(output)
        columns = (
            output.values()
            if isinstance(output, dict)
            else output
            if isinstance(output, tuple)
            else (output,)
        )
        if any(len(column) != n_rows for column in columns):
            raise ValueError(
                message(
                    "TabularDataset.transform_batch",
                    f"transform_batch must not change the length of data: {n_rows} rows in, "
                    f"columns of lengths {[len(column) for column in columns]} out",
                )
            )
        return tuple(pick(k) for k in key_indices)
