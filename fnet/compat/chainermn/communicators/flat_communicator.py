"""``FlatCommunicator``: ChainerMN's packed communicator; here the one MPI communicator."""

from .mpi_communicator_base import MpiCommunicatorBase

__all__ = ["FlatCommunicator"]


class FlatCommunicator(MpiCommunicatorBase):
    """ChainerMN's ``flat`` communicator: one packed allreduce of all gradients."""
