"""``chainermn.communicators``: ``create_communicator`` and the communicator classes."""

from __future__ import annotations

from .communicator_base import CommunicatorBase
from .dummy_communicator import DummyCommunicator
from .flat_communicator import FlatCommunicator
from .naive_communicator import NaiveCommunicator
from .non_cuda_aware_communicator import NonCudaAwareCommunicator
from .pure_nccl_communicator import PureNcclCommunicator

__all__ = ["CommunicatorBase", "create_communicator"]

_KINDS = {
    "naive": NaiveCommunicator,
    "flat": FlatCommunicator,
    "dummy": DummyCommunicator,
    "pure_nccl": PureNcclCommunicator,
    "non_cuda_aware": NonCudaAwareCommunicator,
}


def create_communicator(communicator_name="pure_nccl", mpi_comm=None, **kwargs):
    """A communicator by ChainerMN's name: ``naive`` and ``flat`` (MPI, on the CPU here), and
    ``dummy`` (no communication, for timing).

    ``pure_nccl`` and ``non_cuda_aware`` move CuPy arrays over NCCL: they raise a ``RuntimeError``
    saying so, since fnet's communicators run MPI on the CPU.
    """
    allreduce_grad_dtype = kwargs.pop("allreduce_grad_dtype", None)
    batched_copy = kwargs.pop("batched_copy", True)
    if kwargs:
        raise TypeError(f"create_communicator() got unexpected keyword argument(s) {', '.join(kwargs)}")
    if communicator_name != "pure_nccl" and allreduce_grad_dtype is not None:
        raise ValueError("allreduce_grad_dtype is only available at 'pure_nccl' communicator.")
    if communicator_name not in _KINDS:
        raise ValueError(f'Unrecognized communicator: "{communicator_name}"')
    comm = _KINDS[communicator_name](mpi_comm=mpi_comm)
    comm.set_config("batched_copy", batched_copy)
    return comm
