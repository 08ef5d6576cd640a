"""Batch normalization over the batches of every rank together (ChainerMN's multi-node BN).

The mean and variance are those of the union of the ranks' batches: each rank sums ``x`` and
``x * x`` over its batch, one differentiable all-reduce (``allgather``, then a sum) adds them up,
and every rank normalizes its own batch with the shared statistics. The gradient flows back
through the all-reduce to every rank's inputs.
"""

from __future__ import annotations

import numpy

from .. import ops
from ..autodiff import unbox_all
from ..errors import ShapeError, message
from .functions import allgather

__all__ = ["allreduce_sum", "batch_normalization"]


def allreduce_sum(comm, x):
    """The sum of every rank's ``x`` (one shape on all ranks), differentiable: its gradient on
    each rank is the sum of every rank's gradient."""
    parts = allgather(comm, x)
    total = parts[0]
    for part in parts[1:]:
        total = total + part
    return total


def batch_normalization(
    comm, x, gamma, beta, *, eps: float = 2e-5, running_mean=None, running_var=None, decay=0.9
):
    """``gamma * (x - mean) / sqrt(var + eps) + beta`` with the statistics of every rank's batch.

    The statistics are taken over axis 0 and the axes after ``gamma``'s (``gamma.shape ==
    x.shape[1:1 + gamma.ndim]``). With ``running_mean`` and ``running_var`` the result is
    ``(y, (new_mean, new_var))``, moving averages with ``decay`` (the variance Bessel-corrected
    for the total count), as ``fnet.functions.batch_normalization`` gives for one process.
    """
    shape = numpy.shape(unbox_all(x))
    channels = numpy.shape(unbox_all(gamma))
    if tuple(shape[1 : 1 + len(channels)]) != tuple(channels):
        raise ShapeError(
            message(
                "distributed.batch_normalization",
                f"expected gamma.shape == x.shape[1:{1 + len(channels)}], got {channels} and {shape}",
                {"x": x, "gamma": gamma},
            )
        )
    axes = (0, *range(1 + len(channels), len(shape)))
    kept = [d if i not in axes else 1 for i, d in enumerate(shape)]
    local_count = int(numpy.prod([shape[a] for a in axes]))
    count = comm.allreduce_obj(local_count)
    dtype = numpy.result_type(numpy.float32, unbox_all(x).dtype)  # sums in float32 at least
    xc = ops.astype(x, dtype)
    sums = allreduce_sum(comm, ops.stack([ops.sum(xc, axis=axes), ops.sum(xc * xc, axis=axes)]))
    mean = sums[0] / count
    var = ops.maximum(sums[1] / count - mean * mean, 0.0)
    inv_std = ops.reciprocal(ops.sqrt(var + eps))
    scale = ops.reshape(ops.astype(gamma, dtype) * inv_std, kept)
    shifted = ops.reshape(ops.astype(beta, dtype) - mean * ops.astype(gamma, dtype) * inv_std, kept)
    y = ops.astype(xc * scale + shifted, unbox_all(x).dtype)
    if running_mean is None:
        return y
    running_mean, running_var = unbox_all(running_mean), unbox_all(running_var)
    factor = count / max(count - 1.0, 1.0)
    keep = running_mean.dtype.type(decay)
    new_mean = running_mean * keep + unbox_all(mean).astype(running_mean.dtype) * running_mean.dtype.type(
        1 - decay
    )
    new_var = running_var * keep + unbox_all(var).astype(running_var.dtype) * running_var.dtype.type(
        (1 - decay) * factor
    )
    return y, (new_mean, new_var)
