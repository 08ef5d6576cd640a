"""``FlatCommunicator``: ChainerMN's packed communicator; here the one MPI communicator."""

from .communicator_base import CommunicatorBase

__all__ = ["FlatCommunicator"]


class FlatCommunicator(CommunicatorBase):
    """ChainerMN's ``flat`` communicator: one packed allreduce of all gradients."""
