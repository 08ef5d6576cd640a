"""The helpers of Chainer's ``chainer.training.updaters.multiprocess_parallel_updater``: a GPU
link's gradients (or parameters) packed into one float32 array and unpacked again.

Chainer's ``MultiprocessParallelUpdater`` sums that one array over its GPUs with NCCL; fnet's
updater runs on the CPU and shares its arrays through shared memory instead, so these are kept
for programs that call them. As in Chainer, the parameters are taken in name order, empty ones
are left out, and a link on the CPU is refused.
"""

from __future__ import annotations

import numpy

from ...errors import message

__all__ = ["size_num_grads", "gather_grads", "gather_params", "scatter_grads", "scatter_params"]


def size_num_grads(link) -> tuple[int, int]:
    """``(total size, count)`` of the non-empty parameters of ``link``."""
    sizes = [param.size for param in link.params() if param.size != 0]
    return sum(sizes), len(sizes)


def _packed(link) -> list:
    """The non-empty parameters of ``link`` in the order of their names."""
    return [param for _, param in sorted(link.namedparams(), key=lambda item: item[0]) if param.size != 0]


def _require_gpu(link, op: str) -> None:
    if link.xp is numpy:
        raise RuntimeError(
            message(
                op,
                "expected a link on a GPU, got one on the CPU",
                hint="move the link with link.to_device('@cupy:0'); on the CPU, fnet's "
                "MultiprocessParallelUpdater shares its arrays without packing them",
            )
        )


def _gather(link, target: str):
    """The ``target`` arrays (``'grad'`` or ``'data'``) of the parameters, flattened into one
    float32 array (zeros for a missing one)."""
    xp = link.xp
    parts = []
    for param in _packed(link):
        value = getattr(param, target)
        parts.append(xp.zeros(param.size, xp.float32) if value is None else value.ravel().astype(xp.float32))
    return xp.concatenate(parts) if parts else xp.zeros(0, xp.float32)


def _scatter(link, array, target: str) -> None:
    """Copy the consecutive pieces of ``array`` into the ``target`` arrays of the parameters (in
    their dtypes); a missing one is made."""
    offset = 0
    for param in _packed(link):
        piece = array[offset : offset + param.size].reshape(param.shape)
        offset += param.size
        value = getattr(param, target)
        if value is None:
            setattr(param, target, piece.astype(param.dtype))
        else:
            value[...] = piece


def gather_grads(link):
    """The gradients of a GPU ``link`` in one float32 array (see :func:`scatter_grads`)."""
    _require_gpu(link, "gather_grads")
    return _gather(link, "grad")


def gather_params(link):
    """The parameters of a GPU ``link`` in one float32 array (see :func:`scatter_params`)."""
    _require_gpu(link, "gather_params")
    return _gather(link, "data")


def scatter_grads(link, array) -> None:
    """Put the pieces of ``array`` (made by :func:`gather_grads`) back into the gradients."""
    _require_gpu(link, "scatter_grads")
    _scatter(link, array, "grad")


def scatter_params(link, array) -> None:
    """Put the pieces of ``array`` (made by :func:`gather_params`) back into the parameters."""
    _require_gpu(link, "scatter_params")
    _scatter(link, array, "data")
