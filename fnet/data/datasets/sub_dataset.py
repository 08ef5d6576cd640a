"""``SubDataset`` (an interval of a dataset, optionally through a permutation) and the splits
built on it: two-way, n-way and k-fold cross validation, in order or at random.

The random splits draw their permutation from ``numpy.random.RandomState(seed)``, as Chainer
does, so a seed gives the same split in fnet and in Chainer.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy

from ...errors import message
from .dataset_mixin import DatasetMixin

__all__ = [
    "SubDataset",
    "split_dataset",
    "split_dataset_random",
    "split_dataset_n",
    "split_dataset_n_random",
    "get_cross_validation_datasets",
    "get_cross_validation_datasets_random",
]


class SubDataset(DatasetMixin):
    """The examples ``start`` to ``finish - 1`` of ``dataset``, read through ``order`` if given.

    Example ``i`` is ``dataset[order[start + i]]`` (``dataset[start + i]`` without ``order``);
    a negative ``i`` counts from ``finish``.

    >>> sub = SubDataset(list('abcdef'), 1, 4, order=[5, 4, 3, 2, 1, 0])
    >>> len(sub), sub[0], sub[-1], sub[:]
    (3, 'e', 'c', ['e', 'd', 'c'])
    """

    def __init__(self, dataset, start: int, finish: int, order: Sequence[int] | None = None):
        if start < 0 or finish > len(dataset):
            raise ValueError(
                message(
                    "SubDataset",
                    f"subset [{start}, {finish}) overruns the base dataset of length {len(dataset)}",
                    hint="need 0 <= start and finish <= len(dataset)",
                )
            )
        if order is not None and len(order) != len(dataset):
            raise ValueError(
                message(
                    "SubDataset",
                    f"order must have the same length as the base dataset: len(order) = {len(order)} "
                    f"while len(dataset) = {len(dataset)}",
                    hint="order is a permutation of range(len(dataset))",
                )
            )
        self._dataset = dataset
        self._start = start
        self._finish = finish
        self._size = finish - start
        self._order = order

    def __len__(self) -> int:
        return self._size

    def get_example(self, i: int) -> Any:
        if not -self._size <= i < self._size:
            raise IndexError(f"SubDataset: index {i} is out of range for length {self._size}")
        index = self._start + i if i >= 0 else self._finish + i
        if self._order is not None:
            index = self._order[index]
        return self._dataset[index]


def split_dataset(
    dataset, split_at: int, order: Sequence[int] | None = None
) -> tuple[SubDataset, SubDataset]:
    """Two SubDatasets: the examples ``order[:split_at]`` and ``order[split_at:]`` (all the
    examples, none in both).

    >>> first, second = split_dataset([1, 2, 3, 4, 5], 2)
    >>> first[:], second[:]
    ([1, 2], [3, 4, 5])
    """
    n_examples = len(dataset)
    if isinstance(split_at, bool) or not isinstance(split_at, (int, numpy.integer)):
        raise TypeError(
            message("split_dataset", f"split_at must be int, got {type(split_at).__name__} {split_at!r}")
        )
    if split_at < 0:
        raise ValueError(message("split_dataset", f"split_at must be non-negative, got {split_at}"))
    if split_at > n_examples:
        raise ValueError(
            message("split_dataset", f"split_at ({split_at}) exceeds the dataset size ({n_examples})")
        )
    return SubDataset(dataset, 0, split_at, order), SubDataset(dataset, split_at, n_examples, order)


def _permutation(n: int, seed) -> numpy.ndarray:
    """A random permutation of ``range(n)`` drawn as Chainer draws it (the same for a seed)."""
    return numpy.random.RandomState(seed).permutation(n)


def split_dataset_random(dataset, first_size: int, seed: int | None = None) -> tuple[SubDataset, SubDataset]:
    """Two SubDatasets: ``first_size`` examples drawn at random without replacement, and the rest.

    A ``seed`` fixes the split (the same one Chainer makes with that seed).

    >>> first, second = split_dataset_random(list(range(10)), 3, seed=0)
    >>> len(first), len(second), sorted(first[:] + second[:]) == list(range(10))
    (3, 7, True)
    """
    return split_dataset(dataset, first_size, _permutation(len(dataset), seed))


def _check_count(op: str, name: str, n) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, numpy.integer)) or n < 1:
        raise TypeError(message(op, f"{name} must be a positive int, got {type(n).__name__} {n!r}"))


def _equal_parts(dataset, n: int, order) -> list[SubDataset]:
    size = len(dataset) // n
    return [SubDataset(dataset, size * i, size * (i + 1), order) for i in range(n)]


def split_dataset_n(dataset, n: int, order: Sequence[int] | None = None) -> list[SubDataset]:
    """``n`` SubDatasets of ``len(dataset) // n`` examples each, in order (the remainder is left out).

    >>> [part[:] for part in split_dataset_n(list(range(7)), 3)]
    [[0, 1], [2, 3], [4, 5]]
    """
    _check_count("split_dataset_n", "n", n)
    return _equal_parts(dataset, n, order)


def split_dataset_n_random(dataset, n: int, seed: int | None = None) -> list[SubDataset]:
    """``n`` SubDatasets of ``len(dataset) // n`` examples each, drawn at random without replacement.

    >>> [len(part) for part in split_dataset_n_random(list(range(7)), 3, seed=1)]
    [2, 2, 2]
    """
    _check_count("split_dataset_n_random", "n", n)
    return _equal_parts(dataset, n, _permutation(len(dataset), seed))


def _n_folds_argument(op: str, n_folds, kwargs: dict) -> int:
    """``n_folds``, or the deprecated ``n_fold`` keyword (with a DeprecationWarning)."""
    if "n_fold" in kwargs:
        warnings.warn(
            f"{op}: the argument n_fold is deprecated; use n_folds", DeprecationWarning, stacklevel=3
        )
        n_folds = kwargs.pop("n_fold")
    if kwargs:
        raise TypeError(message(op, f"unexpected keyword arguments {sorted(kwargs)}", hint="use n_folds"))
    _check_count(op, "n_folds", n_folds)
    return n_folds


def get_cross_validation_datasets(
    dataset, n_folds: int | None = None, order: Sequence[int] | None = None, **kwargs
) -> list[tuple[SubDataset, SubDataset]]:
    """``n_folds`` (train, test) splits for k-fold cross validation, in Chainer's fold order.

    The test parts do not overlap and together cover the dataset; their sizes differ by at
    most one. ``order`` permutes the examples first. ``n_fold`` is a deprecated spelling of
    ``n_folds``.

    >>> folds = get_cross_validation_datasets(list(range(5)), 2)
    >>> [(train[:], test[:]) for train, test in folds]
    [([0, 1], [2, 3, 4]), ([2, 3, 4], [0, 1])]
    """
    n_folds = _n_folds_argument("get_cross_validation_datasets", n_folds, kwargs)
    order = numpy.arange(len(dataset)) if order is None else numpy.array(order)
    whole_size = len(dataset)
    borders = [whole_size * i // n_folds for i in range(n_folds + 1)]
    splits = []
    # Each fold takes its test part from the end of the current order, then rotates the order
    # by that size, so the next test part is the slice just before it.
    for test_size in reversed([borders[i + 1] - borders[i] for i in range(n_folds)]):
        splits.append(split_dataset(dataset, whole_size - test_size, order))
        order = numpy.roll(order, test_size)
    return splits


def get_cross_validation_datasets_random(
    dataset, n_folds: int, seed: int | None = None, **kwargs
) -> list[tuple[SubDataset, SubDataset]]:
    """``get_cross_validation_datasets`` over a random permutation (fixed by ``seed``).

    >>> folds = get_cross_validation_datasets_random(list(range(6)), 3, seed=0)
    >>> [(len(train), len(test)) for train, test in folds]
    [(4, 2), (4, 2), (4, 2)]
    """
    n_folds = _n_folds_argument("get_cross_validation_datasets_random", n_folds, kwargs)
    return get_cross_validation_datasets(dataset, n_folds, _permutation(len(dataset), seed))
