"""Data-parallel training: gradients averaged across ranks, the same parameters everywhere.

``allreduce_gradients(comm)`` is a ``Transform`` that replaces each rank's gradients with their
mean over all ranks; chained before an optimizer (``optim.chain(allreduce_gradients(comm),
optim.Adam())``), every rank makes the same update from the same parameters. Start every rank
from rank 0's parameters (``params = comm.bcast(params)``).

``make_train_step(loss_fn, optimizer, comm)`` is ``optim.make_train_step`` with the gradients
averaged before ``optimizer`` sees them (its state is ``optimizer.init(params)``, as on one
process) and the metrics averaged over ranks. ``check_params=True`` compares a hash of the
parameters between ranks after each step (``check_same_params``) and raises if they differ.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy

from .. import optim
from .. import tree as _tree
from ..errors import FnetError, InvalidInputError, message

__all__ = [
    "DivergedParamsError",
    "allreduce_gradients",
    "params_hash",
    "check_same_params",
    "make_train_step",
]


class DivergedParamsError(FnetError, RuntimeError):
    """Ranks that should hold the same parameters hold different ones."""


def allreduce_gradients(comm, *, transfer_dtype: str | None = None) -> optim.Transform:
    """A ``Transform`` whose updates are the gradients averaged over the ranks of ``comm``
    (one packed allreduce per step; ``transfer_dtype`` as in ``Communicator.allreduce``)."""

    def init(params):
        return None

    def update(grads, state, params=None):
        return comm.allreduce(grads, "mean", transfer_dtype=transfer_dtype), state

    suffix = "" if transfer_dtype is None else f", transfer_dtype={transfer_dtype!r}"
    return optim.Transform(init, update, description=f"allreduce_gradients({comm!r}{suffix})")


def params_hash(params) -> str:
    """A hex digest of the parameters' paths, dtypes, shapes and bytes."""
    digest = hashlib.blake2b(digest_size=16)
    for path, leaf in _tree.flatten_with_paths(params):
        array = numpy.ascontiguousarray(leaf)
        digest.update(f"{_tree.path_str(path)}|{array.dtype.str}|{array.shape}|".encode())
        digest.update(array.tobytes())
    return digest.hexdigest()


def check_same_params(comm, params) -> str:
    """The hash of ``params`` if every rank holds the same; a ``DivergedParamsError`` naming
    the ranks that differ from rank 0 otherwise (raised on every rank)."""
    hashes = comm.allgather_obj(params_hash(params))
    differ = [r for r, h in enumerate(hashes) if h != hashes[0]]
    if differ:
        raise DivergedParamsError(
            message(
                "check_same_params",
                f"expected the same parameters on every rank, got ranks {differ} different from rank 0",
                hint="start every rank from comm.bcast(params) and chain allreduce_gradients(comm) "
                "first in the optimizer",
            )
        )
    return hashes[0]


class _DistributedStep:
    """The step made by ``make_train_step``: the local step, then averaged metrics."""

    __slots__ = ("comm", "local", "check_params", "__signature__")

    def __init__(self, comm, local, check_params: bool):
        self.comm = comm
        self.local = local
        self.check_params = check_params
        self.__signature__ = local.__signature__

    def __call__(self, params, state, opt_state, batch, **keywords):
        params, state, opt_state, metrics = self.local(params, state, opt_state, batch, **keywords)
        metrics = self.comm.allreduce(_tree.map(numpy.asarray, metrics), "mean")
        if self.check_params:
            check_same_params(self.comm, params)
        return params, state, opt_state, metrics

    @property
    def loss_fn(self):
        return self.local.loss_fn

    @property
    def optimizer(self):
        return self.local.optimizer

    def __repr__(self) -> str:
        return f"distributed.make_train_step({self.local.loss_fn!r}, {self.local.optimizer!r}, {self.comm!r})"


def make_train_step(
    loss_fn: Callable,
    optimizer: optim.Transform,
    comm,
    *,
    check_params: bool = False,
    transfer_dtype: str | None = None,
) -> Callable:
    """``optim.make_train_step(loss_fn, optimizer)`` on the gradients averaged over ranks, with
    the metrics (the loss included) averaged too, so that every rank reports the same. The
    optimizer state is ``optimizer``'s own (``optimizer.init(params)``).

    Each rank passes its own batch; the gradients are averaged, so with equal per-rank batches
    the step is that of one process on the union of the batches. With ``check_params=True``
    every step ends with ``check_same_params``.
    """
    if not isinstance(optimizer, optim.Transform):
        raise InvalidInputError(
            message(
                "distributed.make_train_step",
                f"expected optimizer to be a fnet.optim.Transform, got {type(optimizer).__name__}",
                hint="build one with an optimizer factory, e.g. fnet.optim.Adam()",
            )
        )

    def update(grads, state, params=None):
        return optimizer.update(comm.allreduce(grads, "mean", transfer_dtype=transfer_dtype), state, params)

    averaged = optim.Transform(
        optimizer.init, update, description=f"averaged({optimizer!r})", values=optimizer.values
    )
    return _DistributedStep(comm, optim.make_train_step(loss_fn, averaged), check_params)
