"""``MultiNodeBatchNormalization``: batch normalization with the statistics of every rank's batch."""

from __future__ import annotations

import copy

import numpy

from ....distributed.normalization import batch_normalization
from ... import configuration
from ..._chx import find, present, to_data
from ...functions._lift import unwrap, wrap
from ...links import BatchNormalization

__all__ = ["MultiNodeBatchNormalization"]


class MultiNodeBatchNormalization(BatchNormalization):
    """``L.BatchNormalization`` whose training statistics (and running averages) are those of
    the union of every rank's batch (``fnet.distributed.normalization.batch_normalization``);
    outside training it normalizes with the running statistics, as the single-process link.

    ``communication_backend``: 'auto' or 'mpi' (fnet communicates over MPI); 'nccl' needs CuPy
    and NCCL and raises a ValueError.
    """

    def __init__(
        self,
        size,
        comm,
        decay=0.9,
        eps=2e-5,
        dtype=None,
        use_gamma=True,
        use_beta=True,
        initial_gamma=None,
        initial_beta=None,
        communication_backend="auto",
    ):
        if communication_backend not in ("auto", "mpi"):
            raise ValueError(
                f"MultiNodeBatchNormalization: communication_backend {communication_backend!r} is not "
                "available; fnet communicates over MPI on the CPU\n  hint: use 'auto' or 'mpi'"
            )
        super().__init__(
            size,
            decay=decay,
            eps=eps,
            dtype=dtype,
            use_gamma=use_gamma,
            use_beta=use_beta,
            initial_gamma=initial_gamma,
            initial_beta=initial_beta,
        )
        self.comm = comm

    def __deepcopy__(self, memo):
        """A deep copy that talks over the same communicator (which cannot be copied)."""
        memo[id(self.comm)] = self.comm
        copied = type(self).__new__(type(self))
        memo[id(self)] = copied
        for name, value in self.__dict__.items():
            copied.__dict__[name] = copy.deepcopy(value, memo)
        return copied

    def forward(self, x, finetune=False):
        """``x`` normalized over every rank's batch (in training), or with the running statistics."""
        if not configuration.config.train:
            return super().forward(x)
        device = find([x])  # a ChainerX link: compute on the data under its arrays, as functions do
        avg_mean, avg_var = to_data(self.avg_mean), to_data(self.avg_var)
        gamma = self.gamma if self.gamma is not None else numpy.ones_like(avg_mean)
        beta = self.beta if self.beta is not None else numpy.zeros_like(avg_mean)
        if finetune:
            self.N += 1
            decay = 1.0 - 1.0 / self.N
        else:
            decay = self.decay
        y, (mean, var) = batch_normalization(
            self.comm.fnet_communicator,
            to_data(unwrap(x)),
            unwrap(gamma),
            unwrap(beta),
            eps=self.eps,
            running_mean=avg_mean,
            running_var=avg_var,
            decay=decay,
        )
        avg_mean[...] = mean
        avg_var[...] = var
        return wrap(y) if device is None else present(wrap(y), device)
