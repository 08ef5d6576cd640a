"""``chainermn.communicators``: ``create_communicator`` and the communicator classes."""

from __future__ import annotations

from .communicator_base import CommunicatorBase
from .flat_communicator import FlatCommunicator
from .naive_communicator import NaiveCommunicator

__all__ = ["CommunicatorBase", "create_communicator"]

_CPU = ("naive", "flat")
_GPU = ("pure_nccl", "non_cuda_aware")


def create_communicator(communicator_name="pure_nccl", mpi_comm=None, **kwargs):
    """A communicator by ChainerMN's name: ``naive`` and ``flat`` (MPI, on the CPU here).

    ``pure_nccl`` and ``non_cuda_aware`` move CuPy arrays over NCCL: they raise a ``ValueError``
    saying so, since fnet's communicators run MPI on the CPU.
    """
    allreduce_grad_dtype = kwargs.pop("allreduce_grad_dtype", None)
    kwargs.pop("batched_copy", None)
    if kwargs:
        raise TypeError(f"create_communicator() got unexpected keyword argument(s) {', '.join(kwargs)}")
    if communicator_name != "pure_nccl" and allreduce_grad_dtype is not None:
        raise ValueError("allreduce_grad_dtype is only available at 'pure_nccl' communicator.")
    if communicator_name in _GPU:
        raise ValueError(
            f"create_communicator: the {communicator_name!r} communicator needs CuPy with NCCL and GPUs, "
            "which fnet's communicators do not drive; fnet runs MPI on the CPU\n"
            "  hint: use create_communicator('naive') or 'flat' (the same API, over MPI)"
        )
    if communicator_name not in _CPU:
        raise ValueError(f'Unrecognized communicator: "{communicator_name}"')
    kind = NaiveCommunicator if communicator_name == "naive" else FlatCommunicator
    return kind(mpi_comm=mpi_comm)
