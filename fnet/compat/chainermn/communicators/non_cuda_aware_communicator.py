"""``NonCudaAwareCommunicator``: ChainerMN's NCCL-within, MPI-between communicator (needs CuPy
with NCCL)."""

from ._nccl_required import NcclRequired

__all__ = ["NonCudaAwareCommunicator"]


class NonCudaAwareCommunicator(NcclRequired):
    """ChainerMN's ``non_cuda_aware`` communicator: not available without CuPy's NCCL."""
