"""``NaiveCommunicator``: ChainerMN's per-parameter communicator; here the one MPI communicator."""

from .communicator_base import CommunicatorBase

__all__ = ["NaiveCommunicator"]


class NaiveCommunicator(CommunicatorBase):
    """ChainerMN's ``naive`` communicator (gradients are packed all the same)."""
