"""``chainermn.datasets``: a dataset scattered from one rank, and the empty dataset."""

from __future__ import annotations

from ...distributed import data as _data
from ..datasets import SubDataset

__all__ = ["DataSizeError", "scatter_dataset", "scatter_index", "create_empty_dataset"]


class DataSizeError(RuntimeError):
    """A dataset too large to send at once (ChainerMN's error; fnet's scatter has no such limit)."""


def scatter_dataset(
    dataset, comm, root=0, shuffle=False, seed=None, max_buf_len=None, *, force_equal_length=True
):
    """This rank's part of ``root``'s ``dataset``, a ``SubDataset`` of the examples sent to it
    (``fnet.distributed.scatter_dataset``: ``root`` sends each rank only its shard)."""
    shard = _data.scatter_dataset(
        dataset,
        comm.fnet_communicator,
        root,
        shuffle=shuffle,
        seed=seed,
        force_equal_length=force_equal_length,
    )
    return SubDataset(shard, 0, len(shard))


def scatter_index(n_total_samples, comm, root=0, *, force_equal_length=True):
    """This rank's ``(begin, end)`` of ``range(n_total_samples)``."""
    return _data.scatter_index(
        n_total_samples, comm.fnet_communicator, root, force_equal_length=force_equal_length
    )


create_empty_dataset = _data.create_empty_dataset
