"""``MpiCommunicatorBase``: ChainerMN's base of the communicators that run on MPI (all of fnet's)."""

from .communicator_base import CommunicatorBase

__all__ = ["MpiCommunicatorBase"]


class MpiCommunicatorBase(CommunicatorBase):
    """A communicator over an mpi4py communicator; subclasses choose how gradients are averaged."""
