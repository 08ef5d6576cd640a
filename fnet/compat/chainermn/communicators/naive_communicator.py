"""``NaiveCommunicator``: ChainerMN's per-parameter communicator; here the one MPI communicator."""

from .mpi_communicator_base import MpiCommunicatorBase

__all__ = ["NaiveCommunicator"]


class NaiveCommunicator(MpiCommunicatorBase):
    """ChainerMN's ``naive`` communicator (gradients are packed all the same)."""
