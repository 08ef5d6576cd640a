"""Differentiable communication, for models split across ranks (model parallelism).

Each function is a primitive whose VJP is the communication that carries the gradient back:
``send``'s VJP receives the gradient that the peer's ``recv`` sends in its own VJP; ``bcast``
and ``gather`` are each other's transposes' partners (a broadcast's gradient is the sum of the
gathered gradients, a gather's is the scatter of the gradients), as are ``scatter``/``gather``;
``allgather``'s gradient is an ``alltoall`` summed, and ``alltoall`` is its own transpose. The
VJPs are written with these same functions and fnet ops, so a collective's gradient can be
differentiated again; every rank must run its backward pass so that the messages meet.

The communicator is a static argument. A rank that takes no input of its own (the ranks other
than ``root`` in ``bcast`` and ``scatter``, a ``recv``) passes a *delegate*: any array, e.g.
one returned by ``send`` or ``gather`` on a non-root rank, or an empty array that its loss
depends on. The delegate's record is where backward reaches the communication; its
gradient is zero. ``pseudo_connect(delegate, x)`` joins a delegate to a value so that one
backward pass runs both.
"""

from __future__ import annotations

import numpy

from .. import ops
from ..autodiff.primitive import primitive

__all__ = [
    "send",
    "recv",
    "pseudo_connect",
    "bcast",
    "gather",
    "scatter",
    "allgather",
    "alltoall",
    "delegate",
]


def delegate():
    """An empty float32 array: the input of a rank that brings no data to a communication."""
    return numpy.zeros((0,), numpy.float32)


def _empty_like(x):
    return numpy.zeros((0,), numpy.float32)


@primitive
def _send(x, *, comm, dest, tag):
    comm.send(x, dest, tag)
    return _empty_like(x)


@primitive
def _recv(token, *, comm, source, tag):
    return comm.recv(source, tag)


@_send.defvjp
def _send_vjp(g, ans, x, *, comm, dest, tag):
    return _recv(g, comm=comm, source=dest, tag=tag)


@_recv.defvjp
def _recv_vjp(g, ans, token, *, comm, source, tag):
    return pseudo_connect(_send(g, comm=comm, dest=source, tag=tag), ops.zeros_like(token))


def send(x, comm, dest: int, *, tag: int = 0):
    """Send ``x`` to rank ``dest``; returns a delegate (an empty array) whose backward pass
    receives ``x``'s gradient from ``dest``."""
    return _send(x, comm=comm, dest=dest, tag=tag)


def recv(comm, source: int, *, delegate=None, tag: int = 0):
    """The array that rank ``source`` sends; its gradient goes back to ``source`` in the backward
    pass. ``delegate`` (e.g. the result of this rank's previous ``send``) links the result
    to what came before, so that backward reaches it; by default a fresh empty array."""
    return _recv(_delegate(delegate), comm=comm, source=source, tag=tag)


def _delegate(x):
    return delegate() if x is None else x


@primitive
def _connect(token, x):
    return x


_connect.defvjp(lambda g, ans, token, x: ops.zeros_like(token), lambda g, ans, token, x: g)


def pseudo_connect(delegate, *actual):
    """``actual`` unchanged, with ``delegate`` joined to the graph: a backward pass through the
    result also runs the backward pass of ``delegate`` (one value, or a tuple of several)."""
    joined = tuple(_connect(delegate, x) for x in actual)
    return joined[0] if len(joined) == 1 else joined


@primitive
def _bcast(x, *, comm, root):
    return comm.bcast(x if comm.rank == root else None, root)


@_bcast.defvjp
def _bcast_vjp(g, ans, x, *, comm, root):
    gathered = _gather(g, comm=comm, root=root)
    return ops.sum(gathered, axis=0) if comm.rank == root else pseudo_connect(gathered, ops.zeros_like(x))


def bcast(comm, x, root: int = 0):
    """``root``'s ``x`` on every rank; on the other ranks ``x`` is a delegate (None for a fresh one).
    Its gradient on ``root`` is the sum of every rank's gradient."""
    return _bcast(x if comm.rank == root else _delegate(x), comm=comm, root=root)


@primitive
def _gather(x, *, comm, root):
    gathered = comm.gather(x, root)
    return delegate() if gathered is None else numpy.stack(gathered)


@_gather.defvjp
def _gather_vjp(g, ans, x, *, comm, root):
    return _scatter(g, comm=comm, root=root)


def gather(comm, x, root: int = 0):
    """Every rank's ``x`` (all of one shape), stacked along a new first axis, on ``root``; a
    delegate on the other ranks (whose backward pass sends their part of the gradient)."""
    return _gather(x, comm=comm, root=root)


@primitive
def _scatter(xs, *, comm, root):
    return comm.scatter(list(xs) if comm.rank == root else None, root)


@_scatter.defvjp
def _scatter_vjp(g, ans, xs, *, comm, root):
    gathered = _gather(g, comm=comm, root=root)
    return gathered if comm.rank == root else pseudo_connect(gathered, ops.zeros_like(xs))


def scatter(comm, xs, root: int = 0):
    """Entry ``rank`` of ``root``'s ``xs`` (a sequence of one array per rank, all of one shape,
    or an array whose first axis has one entry per rank) on each rank; on the other ranks
    ``xs`` is a delegate (None for a fresh one)."""
    if comm.rank == root:
        xs = ops.stack(list(xs)) if isinstance(xs, list | tuple) else xs
    else:
        xs = _delegate(xs)
    return _scatter(xs, comm=comm, root=root)


@primitive
def _allgather(x, *, comm):
    return numpy.stack(comm.allgather(x))


@_allgather.defvjp
def _allgather_vjp(g, ans, x, *, comm):
    return ops.sum(_alltoall(g, comm=comm), axis=0)


def allgather(comm, x):
    """Every rank's ``x`` (all of one shape), stacked along a new first axis, on every rank."""
    return _allgather(x, comm=comm)


@primitive
def _alltoall(xs, *, comm):
    return numpy.stack(comm.alltoall(list(xs)))


@_alltoall.defvjp
def _alltoall_vjp(g, ans, xs, *, comm):
    return _alltoall(g, comm=comm)


def alltoall(comm, xs):
    """Entry ``j`` of each rank's ``xs`` (one array per rank, all of one shape, or an array whose
    first axis has one entry per rank) goes to rank ``j``; what every rank sent here, stacked."""
    return _alltoall(ops.stack(list(xs)) if isinstance(xs, list | tuple) else xs, comm=comm)
