"""Differentiable communication, for models split across ranks (model parallelism).

Each function is a primitive whose VJP is the communication that carries the gradient back:
``send``'s VJP receives the gradient that the peer's ``recv`` sends in its own VJP; ``bcast``
and ``gather`` are partners (a broadcast's gradient is the sum of the gathered gradients), as
are ``gather`` and ``scatter`` (each one's gradient is the other); ``allgather``'s gradient is
an ``alltoall`` summed, and ``alltoall`` is its own transpose. The collectives of several
arrays take and give tuples whose shapes may differ between ranks (they travel as one flat
vector with their shapes as a static argument). The
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
from ..autodiff import Tracer, unbox_all
from ..autodiff.primitive import primitive, take_output

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


def _outputs(packed, n: int) -> tuple:
    """The ``n`` arrays of a primitive that returns a tuple (each traced if the tuple is)."""
    if type(packed) is Tracer:
        return tuple(take_output(packed, index=i) for i in range(n))
    return tuple(packed)


def _flat(xs) -> object:
    """The arrays ``xs`` flattened and joined into one vector (differentiable)."""
    return ops.concatenate([ops.reshape(x, (-1,)) for x in xs])


def _pieces(flat, shapes) -> list:
    """``flat`` cut into raw arrays of ``shapes`` (the inverse of ``_flat``, on raw arrays)."""
    sizes = [int(numpy.prod(shape)) for shape in shapes]
    bounds = numpy.cumsum([0, *sizes])
    return [flat[b:e].reshape(shape) for b, e, shape in zip(bounds[:-1], bounds[1:], shapes)]


def _shapes(arrays) -> tuple:
    return tuple(numpy.shape(a) for a in unbox_all(arrays))


def _cotangents(g, ans) -> list:
    """The cotangent of each output of a tuple-valued primitive, zeros where none came (``g`` is
    a tuple, or a traced tuple when the backward pass is recorded)."""
    ans = unbox_all(ans)
    gs = _outputs(g, len(ans)) if type(g) is Tracer else g
    return [ops.zeros_like(a) if gi is None else gi for gi, a in zip(gs, ans)]


@primitive
def _bcast(x, *, comm, root):
    return comm.bcast(x if comm.rank == root else None, root)


@_bcast.defvjp
def _bcast_vjp(g, ans, x, *, comm, root):
    gathered = _gather(g, comm=comm, root=root)
    if comm.rank != root:
        return pseudo_connect(gathered, ops.zeros_like(x))
    total = None
    for part in _outputs(gathered, comm.size):
        total = part if total is None else total + part
    return total


def bcast(comm, x, root: int = 0):
    """``root``'s ``x`` on every rank; on the other ranks ``x`` is a delegate (None for a fresh one).
    Its gradient on ``root`` is the sum of every rank's gradient."""
    return _bcast(x if comm.rank == root else _delegate(x), comm=comm, root=root)


@primitive
def _gather(x, *, comm, root):
    gathered = comm.gather(x, root)
    return delegate() if gathered is None else tuple(gathered)


@_gather.defvjp
def _gather_vjp(g, ans, x, *, comm, root):
    if comm.rank != root:
        return _scatter(g, comm=comm, root=root, shapes=None)
    gs = _cotangents(g, ans)
    return _scatter(_flat(gs), comm=comm, root=root, shapes=_shapes(ans))


def gather(comm, x, root: int = 0):
    """Every rank's ``x`` (shapes may differ), as a tuple, on ``root``; a delegate on the other
    ranks (whose backward pass sends their part of the gradient)."""
    out = _gather(x, comm=comm, root=root)
    return _outputs(out, comm.size) if comm.rank == root else out


@primitive
def _scatter(flat, *, comm, root, shapes):
    return comm.scatter(_pieces(flat, shapes) if comm.rank == root else None, root)


@_scatter.defvjp
def _scatter_vjp(g, ans, flat, *, comm, root, shapes):
    gathered = _gather(g, comm=comm, root=root)
    if comm.rank != root:
        return pseudo_connect(gathered, ops.zeros_like(flat))
    return _flat(_outputs(gathered, comm.size))


def scatter(comm, xs, root: int = 0):
    """Entry ``rank`` of ``root``'s ``xs`` (one array per rank, of one dtype; shapes may differ)
    on each rank; on the other ranks ``xs`` is a delegate (None for a fresh one)."""
    if comm.rank != root:
        return _scatter(_delegate(xs), comm=comm, root=root, shapes=None)
    xs = list(xs)
    shapes = tuple(numpy.shape(unbox_all(x)) for x in xs)
    return _scatter(_flat(xs), comm=comm, root=root, shapes=shapes)


@primitive
def _allgather(x, *, comm):
    return tuple(comm.allgather(x))


@_allgather.defvjp
def _allgather_vjp(g, ans, x, *, comm):
    back = _outputs(_alltoall(_flat(_cotangents(g, ans)), comm=comm, shapes=_shapes(ans)), comm.size)
    total = back[0]
    for part in back[1:]:
        total = total + part
    return total


def allgather(comm, x):
    """Every rank's ``x`` (shapes may differ), as a tuple, on every rank."""
    return _outputs(_allgather(x, comm=comm), comm.size)


@primitive
def _alltoall(flat, *, comm, shapes):
    return tuple(comm.alltoall(_pieces(flat, shapes)))


@_alltoall.defvjp
def _alltoall_vjp(g, ans, flat, *, comm, shapes):
    gs = _cotangents(g, ans)
    return _flat(_outputs(_alltoall(_flat(gs), comm=comm, shapes=_shapes(ans)), comm.size))


def alltoall(comm, xs):
    """Entry ``j`` of each rank's ``xs`` (one array per rank, of one dtype; shapes may differ)
    goes to rank ``j``; a tuple of what every rank sent here."""
    xs = list(xs)
    shapes = tuple(numpy.shape(unbox_all(x)) for x in xs)
    return _outputs(_alltoall(_flat(xs), comm=comm, shapes=shapes), comm.size)
