"""Datasets split between ranks: ``scatter_dataset``, ``scatter_index``, ``create_empty_dataset``.

``shard_bounds`` says which stretch of a dataset each rank takes: with ``force_equal_length``
every rank gets ``ceil(n / size)`` examples (neighbouring shards overlap by a few so that all
are equally long, which data-parallel training needs: every rank takes the same number of
steps); without it the shards are disjoint and differ in length by at most one (for an exact
evaluation). Shuffling uses ``numpy.random.RandomState(seed).permutation``, so a seed puts each
example in the same shard on every run.
"""

from __future__ import annotations

import numpy

from ..errors import InvalidInputError, message

__all__ = ["shard_bounds", "scatter_index", "scatter_dataset", "create_empty_dataset"]


def shard_bounds(n: int, size: int, *, force_equal_length: bool = True) -> list[tuple[int, int]]:
    """``[(begin, end), ...]``, one half-open range of ``range(n)`` per rank.

    >>> shard_bounds(10, 3)
    [(0, 4), (3, 7), (6, 10)]
    >>> shard_bounds(10, 3, force_equal_length=False)
    [(0, 4), (4, 7), (7, 10)]
    """
    if size <= 0 or n < 0:
        raise InvalidInputError(
            message("shard_bounds", f"expected n >= 0 and size > 0, got n={n}, size={size}")
        )
    if force_equal_length:
        length = -(-n // size)
        return [(n * i // size, n * i // size + length) for i in range(size)]
    longer = n % size
    bounds, begin = [], 0
    for i in range(size):
        end = begin + n // size + (i < longer)
        bounds.append((begin, end))
        begin = end
    return bounds


def scatter_index(n: int, comm, root: int = 0, *, force_equal_length: bool = True) -> tuple[int, int]:
    """This rank's ``(begin, end)`` of ``range(n)``, as decided by rank ``root`` (whose ``n``
    counts; the others' is ignored)."""
    bounds = shard_bounds(n, comm.size, force_equal_length=force_equal_length) if comm.rank == root else None
    return tuple(comm.scatter_obj(bounds, root=root))


def scatter_dataset(
    dataset,
    comm,
    root: int = 0,
    *,
    shuffle: bool = False,
    seed: int | None = None,
    force_equal_length: bool = True,
) -> list:
    """This rank's shard of rank ``root``'s ``dataset`` (the others may pass None), as a list
    of examples.

    Rank ``root`` orders the examples (shuffled with ``seed`` when ``shuffle``), cuts them with
    ``shard_bounds`` and sends each rank only its own shard. Examples must be plain data
    (arrays, numbers, tuples of them...), as every dataset of ``fnet.data`` gives.
    """
    pieces = None
    if comm.rank == root:
        if dataset is None:
            raise InvalidInputError(
                message("scatter_dataset", f"expected a dataset on the root rank {root}, got None")
            )
        n = len(dataset)
        order = numpy.random.RandomState(seed).permutation(n) if shuffle else numpy.arange(n)
        bounds = shard_bounds(n, comm.size, force_equal_length=force_equal_length)
        pieces = [[dataset[int(i)] for i in order[b:e]] for b, e in bounds]
    return comm.scatter_obj(pieces, root=root)


def create_empty_dataset(dataset) -> list:
    """A dataset as long as ``dataset`` whose examples are empty tuples (for a model part that
    takes its input from another rank)."""
    return [()] * len(dataset)
