"""ChainerMN's communication helpers: ``init_ranks``, ``chunked_bcast_obj``, ``INT_MAX``.

As ChainerMN's module, importing it imports ``mpi4py.MPI`` (which starts MPI), so code that
imports it may use ``mpi4py.MPI`` after a bare ``import mpi4py``.
"""

from __future__ import annotations

from ....distributed import Communicator, _mpi

_mpi.load()

__all__ = ["INT_MAX", "init_ranks", "chunked_bcast_obj"]

INT_MAX = 2147483647  # the largest count of one MPI message


def init_ranks(mpi_comm) -> list:
    """``[rank, intra_rank, intra_size, inter_rank, inter_size]`` of this process in ``mpi_comm``."""
    comm = Communicator(mpi_comm)
    return [comm.rank, comm.intra_rank, comm.intra_size, comm.inter_rank, comm.inter_size]


def chunked_bcast_obj(obj, mpi_comm, max_buf_len=256 * 1024 * 1024, root=0):
    """``root``'s plain data ``obj`` on every rank of ``mpi_comm``, in messages of at most
    ``max_buf_len`` bytes (below ``INT_MAX``). Only ``root`` passes an ``obj``, and it is not None."""
    assert 0 < max_buf_len < INT_MAX
    assert not (obj is None and mpi_comm.rank == root)
    assert not (obj is not None and mpi_comm.rank != root)
    return Communicator(mpi_comm).bcast_obj(obj, root, max_buf_len=max_buf_len)
