"""``CommunicatorBase``: ChainerMN's communicator, state around a ``fnet.distributed.Communicator``.

The transport and the arithmetic are fnet.distributed's: ``multi_node_mean_grad`` gathers a
model's gradients into a tree and averages it with one packed allreduce; ``bcast_data`` sends
rank 0's parameters. ChainerMN's object methods (``*_obj``) carry plain data here (numbers,
strings, lists, tuples, dicts, NumPy and ChainerX arrays): fnet never unpickles a message. A
ChainerX array arrives on the device of its name, without its graph, as a pickled one would.
"""

from __future__ import annotations

import contextlib

import numpy

from ....distributed import Communicator, register_message_type
from ... import chainerx, configuration
from ..._chx import to_data as _data  # under a ChainerX array, the memory it shares

__all__ = ["CommunicatorBase"]


def _chainerx_to_plain(array) -> list:
    return [array.device.name, chainerx.to_numpy(array)]


def _chainerx_from_plain(plain: list):
    device, data = plain
    return chainerx.array(data, device=device)


register_message_type(chainerx.ndarray, 16, _chainerx_to_plain, _chainerx_from_plain)


def _array_or_tuple(data):
    return tuple(numpy.asarray(x) for x in data) if isinstance(data, list | tuple) else numpy.asarray(data)


class CommunicatorBase:
    """A ChainerMN communicator over MPI (``mpi_comm``: an mpi4py communicator, or None for
    ``MPI.COMM_WORLD``)."""

    def __init__(self, mpi_comm=None):
        object.__setattr__(self, "_configs", {})
        self._comm = Communicator(mpi_comm)  # the transport and the arithmetic
        with self.config_scope():
            self.batched_copy = False  # create_communicator turns it on, as ChainerMN's does

    @property
    def within_config_scope(self) -> bool:
        """Whether attributes set now are also recorded as configurations."""
        return getattr(self, "_within_config_scope", False)

    @contextlib.contextmanager
    def config_scope(self):
        """A scope in which each attribute set is also a configuration (``get_config``)."""
        old = self.within_config_scope
        object.__setattr__(self, "_within_config_scope", True)
        try:
            yield
        finally:
            object.__setattr__(self, "_within_config_scope", old)

    def __setattr__(self, name, value):
        if self.within_config_scope:
            self._configs[name] = value
        object.__setattr__(self, name, value)

    @property
    def fnet_communicator(self) -> Communicator:
        """The ``fnet.distributed.Communicator`` that does the work."""
        return self._comm

    @property
    def mpi_comm(self):
        """The mpi4py communicator."""
        return self._comm.mpi_comm

    rank = property(lambda self: self._comm.rank, doc="This process's rank.")
    size = property(lambda self: self._comm.size, doc="The number of processes.")
    intra_rank = property(lambda self: self._comm.intra_rank, doc="The rank among this machine's processes.")
    intra_size = property(lambda self: self._comm.intra_size, doc="The number of processes on this machine.")
    inter_rank = property(lambda self: self._comm.inter_rank, doc="This machine's number.")
    inter_size = property(lambda self: self._comm.inter_size, doc="The number of machines.")

    def set_config(self, name, value=True, **kwargs):
        """Set a configuration: ``'batched_copy'`` (recorded; fnet always packs the gradients)."""
        if name != "batched_copy" or kwargs:
            raise ValueError(f"Unknown config: {name}")
        with self.config_scope():
            self.batched_copy = value

    def get_config(self, name=None):
        """A configuration's value, or all of them when ``name`` is None."""
        return self._configs if name is None else self._configs[name]

    def split(self, color, key):
        """A communicator of the same class over the ranks of one ``color``."""
        return type(self)(mpi_comm=self.mpi_comm.Split(color, key))

    def finalize(self):
        """Release the communicator's resources (nothing to release on the CPU)."""

    # arrays
    def send(self, data, dest, tag):
        """Send an array, or a tuple/list of arrays, to ``dest``."""
        self._comm.send(_array_or_tuple(data), dest, tag)

    def recv(self, source, tag):
        """What ``source`` sent: an array, or a tuple of arrays."""
        return self._comm.recv(source, tag)

    def bcast(self, x, root=0):
        """``root``'s array on every rank."""
        if self.rank == root and isinstance(x, tuple | list):
            raise TypeError("Tuple data cannot be broadcasted")
        return self._comm.bcast(numpy.asarray(x) if self.rank == root else None, root)

    def gather(self, x, root=0):
        """Every rank's array, as a tuple, on ``root``; None elsewhere."""
        if isinstance(x, tuple | list):
            raise TypeError("gather cannot handle tuple data")
        gathered = self._comm.gather(numpy.asarray(x), root)
        return None if gathered is None else tuple(gathered)

    def allgather(self, x):
        """Every rank's array, as a tuple, on every rank."""
        if isinstance(x, tuple | list):
            raise TypeError("allgather cannot handle tuple data")
        return tuple(self._comm.allgather(numpy.asarray(x)))

    def allreduce(self, x):
        """The sum of every rank's array."""
        if isinstance(x, tuple | list):
            raise TypeError("allreduce cannot handle tuple data")
        return self._comm.allreduce(numpy.asarray(x), "sum")

    def scatter(self, xs, root=0):
        """Entry ``rank`` of ``root``'s arrays (a tuple/list, or an array's first axis)."""
        if self.rank == root:
            xs = list(xs)
            if len(xs) != self.size:
                raise ValueError(
                    f"the length of xs must be consistent with communicator size: {len(xs)} != {self.size}"
                )
        return self._comm.scatter(xs if self.rank == root else None, root)

    def alltoall(self, xs):
        """Entry ``j`` of each rank's arrays to rank ``j``; a tuple of what came here."""
        if len(xs) != self.size:
            raise ValueError(
                f"The length of data must be same as communicator size: {len(xs)} != {self.size}"
            )
        return tuple(self._comm.alltoall([numpy.asarray(x) for x in xs]))

    # plain data
    def send_obj(self, obj, dest, tag=0):
        """Send plain data to ``dest``."""
        self._comm.send_obj(obj, dest, tag)

    def recv_obj(self, source, status=None, tag=None):
        """The plain data that ``source`` sent (with any tag unless ``tag`` is given; an mpi4py
        ``status`` is filled in)."""
        tag = self._comm._mpi.ANY_TAG if tag is None else tag
        return self._comm.recv_obj(source, tag, status=status)

    def bcast_obj(self, obj, max_buf_len=None, root=0):
        """``root``'s plain data on every rank (in messages of at most ``max_buf_len`` bytes)."""
        return self._comm.bcast_obj(obj, root, max_buf_len=max_buf_len)

    def gather_obj(self, obj, root=0):
        """Every rank's plain data, as a list, on ``root``."""
        return self._comm.gather_obj(obj, root)

    def allreduce_obj(self, obj):
        """The sum of every rank's ``obj``."""
        return self._comm.allreduce_obj(obj)

    # models
    def bcast_data(self, model):
        """Copy rank 0's parameters into every rank's ``model``."""
        params = [(name, p) for name, p in sorted(model.namedparams()) if p.array is not None]
        tree = {name: _data(p.array) for name, p in params}
        got = self._comm.bcast(tree if self.rank == 0 else None, 0)
        for name, p in params:
            _data(p.array)[...] = got[name]

    broadcast_data = bcast_data

    def multi_node_mean_grad(self, model, zero_fill=False):
        """Replace each parameter's gradient with its mean over the ranks (one packed allreduce).

        Parameters without a gradient are left out, or count as zeros with ``zero_fill``."""
        params = [(name, p) for name, p in sorted(model.namedparams()) if p.array is not None]
        if zero_fill:
            for _, p in params:
                if p.grad is None:
                    p.grad = p.xp.zeros_like(p.array)
        grads = {name: _data(p.grad) for name, p in params if p.grad is not None}
        self._comm.allreduce(grads, "mean", in_place=True)
        if configuration.config.debug:
            for g in grads.values():
                if not numpy.isfinite(g).all():
                    raise ValueError("Parameters diverged after allreduce.")

    def allreduce_grad(self, model, zero_fill=False):
        """``multi_node_mean_grad`` under its older name."""
        self.multi_node_mean_grad(model, zero_fill)
