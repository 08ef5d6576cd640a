"""``DummyCommunicator``: ChainerMN's communicator for measuring everything but communication."""

from .mpi_communicator_base import MpiCommunicatorBase

__all__ = ["DummyCommunicator"]


class DummyCommunicator(MpiCommunicatorBase):
    """Gradients are left as each rank computed them (no allreduce): only for timing the rest of
    a training step; training with it is not data-parallel."""

    def multi_node_mean_grad(self, model, zero_fill=False):
        """Leave the gradients as they are (with ``zero_fill``, fill missing ones with zeros)."""
        if zero_fill:
            for _, param in sorted(model.namedparams()):
                if param.array is not None and param.grad is None:
                    param.grad = param.xp.zeros_like(param.array)
