"""``chainermn.create_multi_node_optimizer``: an optimizer whose gradients are averaged over ranks.

The wrapper holds the actual optimizer and the communicator; the average is the communicator's
packed allreduce. As in ChainerMN, an update that finds the set of initialized parameters
changed (the first one, or after a lazy link initialized) broadcasts rank 0's parameters
instead of updating, so that every rank starts from the same values.
"""

from __future__ import annotations

__all__ = ["create_multi_node_optimizer"]


class _MultiNodeOptimizer:
    """Averages the target's gradients over the ranks, then runs the actual optimizer's update."""

    def __init__(self, actual_optimizer, communicator, zero_fill):
        object.__setattr__(self, "actual_optimizer", actual_optimizer)
        object.__setattr__(self, "communicator", communicator)
        object.__setattr__(self, "zero_fill", zero_fill)
        object.__setattr__(self, "target_params", [])

    def update(self, lossfun=None, *args, **kwds):
        """Compute the gradients (when ``lossfun`` is given), average them, and update."""
        target = self.target
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if getattr(self.actual_optimizer, "_use_cleargrads", True):
                target.cleargrads()
            else:
                target.zerograds()
            loss.backward(loss_scale=getattr(self.actual_optimizer, "_loss_scale", None))
            del loss
        if self._params_changed(target):
            self.communicator.bcast_data(target)
        else:
            self.communicator.multi_node_mean_grad(target, self.zero_fill)
            self.actual_optimizer.update(None, *args, **kwds)

    def _params_changed(self, target) -> bool:
        now = [(name, param.array is not None) for name, param in sorted(target.namedparams())]
        changed = now != self.target_params
        object.__setattr__(self, "target_params", now)
        return changed

    def setup(self, link):
        """Set up the actual optimizer on ``link``; returns this wrapper."""
        self.actual_optimizer.setup(link)
        return self

    def __getattr__(self, name):
        return getattr(self.actual_optimizer, name)

    def __setattr__(self, name, value):
        setattr(self.actual_optimizer, name, value)


def create_multi_node_optimizer(actual_optimizer, communicator, double_buffering=False, zero_fill=True):
    """Wrap ``actual_optimizer`` so that each update uses the gradients averaged over ranks.

    ``double_buffering`` overlaps communication with computation on GPUs through the
    ``pure_nccl`` communicator; fnet's MPI communicators run on the CPU, so it raises a ValueError.
    """
    if double_buffering:
        raise ValueError(
            "create_multi_node_optimizer: double_buffering needs the 'pure_nccl' communicator (CuPy and "
            f"NCCL on GPUs), got {type(communicator).__name__}\n  hint: pass double_buffering=False"
        )
    return _MultiNodeOptimizer(actual_optimizer, communicator, zero_fill)
