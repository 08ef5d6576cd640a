"""``chainermn.datasets.scatter``: a dataset split between ranks (``fnet.distributed.data``)."""

from __future__ import annotations

import warnings

from ....distributed import data as _data

__all__ = [
    "DataSizeError",
    "scatter_dataset",
    "scatter_index",
    "get_n_iterations_for_one_epoch",
    "get_epoch_trigger",
]


class DataSizeError(RuntimeError):
    """A dataset too large to send (ChainerMN's error; fnet's scatter sends each shard whole)."""


def scatter_dataset(
    dataset, comm, root=0, shuffle=False, seed=None, max_buf_len=256 * 1024 * 1024, *, force_equal_length=True
):
    """This rank's part of ``root``'s ``dataset``: the list of its examples
    (``fnet.distributed.scatter_dataset``: ``root`` sends each rank only its shard)."""
    return _data.scatter_dataset(
        dataset,
        comm.fnet_communicator,
        root,
        shuffle=shuffle,
        seed=seed,
        force_equal_length=force_equal_length,
    )


def scatter_index(n_total_samples, comm, root=0, *, force_equal_length=True):
    """This rank's ``(begin, end)`` of ``range(n_total_samples)``."""
    return _data.scatter_index(
        n_total_samples, comm.fnet_communicator, root, force_equal_length=force_equal_length
    )


def _scatter_index(n_total_samples, size, force_equal_length):
    """``(rank, begin, end)`` of each of ``size`` ranks."""
    for rank, (b, e) in enumerate(
        _data.shard_bounds(n_total_samples, size, force_equal_length=force_equal_length)
    ):
        yield rank, b, e


def get_n_iterations_for_one_epoch(dataset, local_batch_size, comm):
    """Rank 0's number of batches of ``local_batch_size`` in its ``dataset`` (deprecated)."""
    warnings.warn(
        "get_n_iterations_for_one_epoch is deprecated. Please use standard epoch triggers.",
        DeprecationWarning,
        stacklevel=2,
    )
    n = -(-len(dataset) // local_batch_size) if comm.rank == 0 else None
    return comm.bcast_obj(n)


def get_epoch_trigger(n_epochs, dataset, local_batch_size, comm):
    """An iteration trigger as long as ``n_epochs`` epochs of rank 0 (deprecated)."""
    warnings.warn(
        "get_epoch_trigger is deprecated. Please use standard epoch triggers.",
        DeprecationWarning,
        stacklevel=2,
    )
    return n_epochs * get_n_iterations_for_one_epoch(dataset, local_batch_size, comm), "iteration"
