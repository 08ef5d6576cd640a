"""The ChainerMN communicators that move CuPy arrays over NCCL: fnet's run MPI on the CPU."""

from __future__ import annotations

from .mpi_communicator_base import MpiCommunicatorBase

__all__ = ["NcclRequired"]


class NcclRequired(MpiCommunicatorBase):
    """A communicator class that needs CuPy with NCCL: making one raises a RuntimeError saying so."""

    def __init__(self, mpi_comm=None, *args, **kwargs):
        raise RuntimeError(
            f"{type(self).__name__} requires NCCL 2.0+ through CuPy on GPUs, but NCCL is not available "
            "here: fnet's communicators run MPI on the CPU\n"
            "  hint: use chainermn.create_communicator('naive') or 'flat'"
        )
