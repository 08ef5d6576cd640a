"""``chainermn.functions``: differentiable communication on Variables.

Each function unwraps its Variables, calls ``fnet.distributed.functions`` (where the
primitives and their VJPs are) and wraps the result. A rank that brings no input gets a fresh
delegate Variable, so that its backward pass reaches the communication, as in ChainerMN.
A tuple sent by ``send`` travels as one flat array after a small header that gives its shapes
(its gradient comes back as one array, too).
"""

from __future__ import annotations

import numpy

from ... import ops
from ...distributed import functions as _dist
from ..functions._lift import unwrap, wrap
from ..variable import Variable

__all__ = ["send", "recv", "pseudo_connect", "bcast", "gather", "scatter", "allgather", "alltoall"]


def _delegate():
    return Variable(_dist.delegate())


def _delegate_out(value):
    """The delegate Variable that a communication returns, its (empty) gradient set so that
    ``backward()`` starts from it as Chainer's does from a variable of no elements."""
    out = wrap(value)
    out.grad = _dist.delegate()
    return out


def send(x, communicator, rank, tag=0):
    """Send ``x`` (a Variable or a tuple of them) to ``rank``; returns the delegate Variable
    whose backward pass receives the gradient."""
    if rank == communicator.rank:
        raise ValueError("rank must be different from communicator rank, otherwise deadlock occurs")
    comm = communicator.fnet_communicator
    if isinstance(x, list | tuple):
        values = [unwrap(v) for v in x]
        shapes = [list(numpy.shape(getattr(v, "value", v))) for v in values]
        comm.send_obj(shapes, rank, tag)
        flat = ops.concatenate([ops.reshape(v, (-1,)) for v in values])
    else:
        comm.send_obj(None, rank, tag)
        flat = unwrap(x)
    return _delegate_out(_dist.send(flat, comm, rank, tag=tag))


def recv(communicator, rank, delegate_variable=None, tag=0, force_tuple=False):
    """What ``rank`` sent (a Variable, or a tuple for a tuple); its backward pass sends the
    gradient back. ``delegate_variable`` links it to this rank's earlier graph."""
    comm = communicator.fnet_communicator
    shapes = comm.recv_obj(rank, tag)
    token = unwrap(_delegate() if delegate_variable is None else delegate_variable)
    flat = _dist.recv(comm, rank, delegate=token, tag=tag)
    if shapes is None:
        return (wrap(flat),) if force_tuple else wrap(flat)
    pieces, start = [], 0
    for shape in shapes:
        size = int(numpy.prod(shape))
        pieces.append(wrap(ops.reshape(flat[start : start + size], tuple(shape))))
        start += size
    return tuple(pieces)


def pseudo_connect(delegate_variable, *actual_variables):
    """A tuple of ``actual_variables`` joined to ``delegate_variable``'s graph (None: an empty
    delegate), so that their backward pass also runs the delegate's."""
    delegate = _dist.delegate() if delegate_variable is None else unwrap(delegate_variable)
    joined = _dist.pseudo_connect(delegate, *[unwrap(v) for v in actual_variables])
    return tuple(wrap(v) for v in (joined if isinstance(joined, tuple) else (joined,)))


def bcast(comm, x, root=0):
    """``root``'s ``x`` on every rank (the others' ``x`` is ignored)."""
    value = unwrap(x) if comm.rank == root else unwrap(_delegate())
    return wrap(_dist.bcast(comm.fnet_communicator, value, root))


def gather(comm, x, root=0):
    """Every rank's ``x`` as a tuple of Variables on ``root``; a delegate Variable elsewhere."""
    gathered = _dist.gather(comm.fnet_communicator, unwrap(x), root)
    if comm.rank != root:
        return _delegate_out(gathered)
    return tuple(wrap(y) for y in gathered)


def scatter(comm, xs, root=0):
    """Entry ``rank`` of ``root``'s ``xs`` on each rank."""
    if comm.rank == root:
        value = [unwrap(x) for x in xs] if isinstance(xs, list | tuple) else list(unwrap(xs))
    else:
        value = unwrap(_delegate())
    return wrap(_dist.scatter(comm.fnet_communicator, value, root))


def allgather(comm, x):
    """Every rank's ``x``, as a tuple of Variables, on every rank."""
    return tuple(wrap(y) for y in _dist.allgather(comm.fnet_communicator, unwrap(x)))


def alltoall(comm, xs):
    """Entry ``j`` of each rank's ``xs`` to rank ``j``; a tuple of the Variables that came here."""
    if len(xs) != comm.size:
        raise ValueError("The length of xs must be same as communicator size.")
    return tuple(wrap(y) for y in _dist.alltoall(comm.fnet_communicator, [unwrap(x) for x in xs]))
