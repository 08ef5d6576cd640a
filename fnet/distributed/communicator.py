"""``Communicator``: a group of processes (MPI ranks) and the collectives over pytrees.

A communicator wraps an mpi4py communicator (``MPI.COMM_WORLD`` by default) and knows where
each rank runs: ``rank``/``size`` in the group, ``intra_rank``/``intra_size`` among the ranks
of its machine, ``inter_rank``/``inter_size`` among the machines.

Collectives take and return pytrees of arrays. ``allreduce`` is the hot one: it packs the
leaves into one reused buffer per dtype (``fnet.distributed.packing``) and refuses, on every
rank, trees whose shapes differ between ranks. The others (``bcast``, ``gather``,
``allgather``, ``scatter``, ``alltoall``, ``send``/``recv``) move whole trees, so their shapes
may differ between ranks. The ``*_obj`` forms move plain Python data (numbers, strings, lists,
tuples, dicts, arrays) in msgpack, never pickle (``fnet.distributed._codec``).

Run a program on N processes with ``mpiexec -n N python program.py``.
"""

from __future__ import annotations

import functools
import operator

import numpy

from .. import tree as _tree
from ..errors import ArgumentTypeError, InvalidInputError, message
from . import _codec, _mpi, failure
from .packing import PackedAllreduce

__all__ = ["Communicator"]


def _node_ranks(names: list, rank: int) -> tuple[int, int, int, int]:
    """``(intra_rank, intra_size, inter_rank, inter_size)`` of ``rank``, from every rank's host name;
    machines are numbered in the order of their lowest rank."""
    machines: dict = {}
    for r, name in enumerate(names):
        machines.setdefault(name, []).append(r)
    mine = machines[names[rank]]
    return mine.index(rank), len(mine), list(machines).index(names[rank]), len(machines)


def _arrays(op: str, name: str, tree):
    """``tree`` with each leaf a NumPy array; a typed error names a leaf that is not one."""

    def as_array(path, x):
        if isinstance(x, numpy.ndarray):
            return x
        if isinstance(x, int | float | bool | complex | numpy.generic):
            return numpy.asarray(x)
        raise ArgumentTypeError(
            message(
                op,
                f"expected {name} to be a pytree of NumPy arrays, got {type(x).__name__} at "
                f"{_tree.path_str(path) or '(root)'}",
                hint="move arrays to the CPU (fnet.backend.to_cpu); send other data with the *_obj forms",
            )
        )

    return _tree.map_with_paths(as_array, tree)


class Communicator:
    """The processes of an mpi4py communicator, and collectives over pytrees between them.

    Args:
        mpi_comm: an ``mpi4py.MPI.Comm``; ``MPI.COMM_WORLD`` when None.

    Every rank of the group must call a collective, in the same order.
    """

    def __init__(self, mpi_comm=None):
        self._mpi = _mpi.load()
        self.mpi_comm = self._mpi.COMM_WORLD if mpi_comm is None else mpi_comm
        self._allreduce = PackedAllreduce(self.mpi_comm, self._mpi)
        names = self.allgather_obj(self._mpi.Get_processor_name())
        self.intra_rank, self.intra_size, self.inter_rank, self.inter_size = _node_ranks(names, self.rank)
        if self.size > 1 and self._spans_the_world():
            failure.watch(self)

    def _spans_the_world(self) -> bool:
        same = self.mpi_comm.Compare(self._mpi.COMM_WORLD)
        return same in (self._mpi.IDENT, self._mpi.CONGRUENT)

    @property
    def rank(self) -> int:
        """This process's number in the group, from 0."""
        return self.mpi_comm.rank

    @property
    def size(self) -> int:
        """The number of processes in the group."""
        return self.mpi_comm.size

    def __repr__(self) -> str:
        return f"Communicator(rank={self.rank}, size={self.size})"

    def split(self, color: int, key: int) -> Communicator:
        """A communicator of the ranks that pass the same ``color``, numbered in ``key`` order."""
        return Communicator(self.mpi_comm.Split(color, key))

    def barrier(self) -> None:
        """Wait until every rank has come here."""
        self.mpi_comm.Barrier()

    def abort(self, code: int = 1) -> None:
        """End every process of the job now (MPI_Abort) with exit status ``code``."""
        failure.leaving_by_abort()
        self.mpi_comm.Abort(code)

    def _check_rank(self, op: str, name: str, rank) -> None:
        if not isinstance(rank, int | numpy.integer) or not 0 <= rank < self.size:
            raise InvalidInputError(
                message(op, f"expected {name} to be a rank in [0, {self.size}), got {rank!r}")
            )

    def _check_peer(self, op: str, name: str, rank) -> None:
        self._check_rank(op, name, rank)
        if rank == self.rank:
            raise InvalidInputError(
                message(
                    op,
                    f"expected {name} to be another rank than this one ({self.rank}), got {rank}",
                    hint="a rank that sends to itself waits forever",
                )
            )

    def _check_per_rank(self, op: str, name: str, items) -> list:
        if not isinstance(items, list | tuple) or len(items) != self.size:
            got = (
                f"{type(items).__name__} of length {len(items)}"
                if isinstance(items, list | tuple)
                else type(items).__name__
            )
            raise InvalidInputError(
                message(op, f"expected {name} to be a list with one entry per rank ({self.size}), got {got}")
            )
        return list(items)

    # -- bytes: the transport of everything but allreduce ----------------------------------
    def _sizes(self, sizes) -> tuple[list, list]:
        counts = [int(n) for n in sizes]
        return counts, [sum(counts[:i]) for i in range(len(counts))]

    def _bcast_bytes(self, data: bytes | None, root: int, chunk: int | None = None) -> bytes:
        n = numpy.array([len(data) if self.rank == root else 0], numpy.int64)
        self.mpi_comm.Bcast(n, root=root)
        buf = bytearray(data) if self.rank == root else bytearray(int(n[0]))
        view = memoryview(buf)
        step = len(buf) if not chunk else chunk
        for start in range(0, len(buf), max(step, 1)):  # messages of at most ``chunk`` bytes
            self.mpi_comm.Bcast([view[start : start + step], self._mpi.BYTE], root=root)
        return bytes(buf)

    def _gather_bytes(self, data: bytes, root: int) -> list | None:
        sizes = numpy.zeros(self.size, numpy.int64)
        self.mpi_comm.Gather(numpy.array([len(data)], numpy.int64), sizes, root=root)
        if self.rank != root:
            self.mpi_comm.Gatherv([data, self._mpi.BYTE], None, root=root)
            return None
        counts, displs = self._sizes(sizes)
        buf = bytearray(sum(counts))
        self.mpi_comm.Gatherv([data, self._mpi.BYTE], [buf, counts, displs, self._mpi.BYTE], root=root)
        return [bytes(buf[d : d + c]) for c, d in zip(counts, displs)]

    def _allgather_bytes(self, data: bytes) -> list:
        sizes = numpy.zeros(self.size, numpy.int64)
        self.mpi_comm.Allgather(numpy.array([len(data)], numpy.int64), sizes)
        counts, displs = self._sizes(sizes)
        buf = bytearray(sum(counts))
        self.mpi_comm.Allgatherv([data, self._mpi.BYTE], [buf, counts, displs, self._mpi.BYTE])
        return [bytes(buf[d : d + c]) for c, d in zip(counts, displs)]

    def _scatter_bytes(self, pieces: list | None, root: int) -> bytes:
        mine = numpy.zeros(1, numpy.int64)
        if self.rank == root:
            counts, displs = self._sizes(len(p) for p in pieces)
            self.mpi_comm.Scatter(numpy.array(counts, numpy.int64), mine, root=root)
            send = [b"".join(pieces), counts, displs, self._mpi.BYTE]
        else:
            self.mpi_comm.Scatter(None, mine, root=root)
            send = None
        buf = bytearray(int(mine[0]))
        self.mpi_comm.Scatterv(send, [buf, self._mpi.BYTE], root=root)
        return bytes(buf)

    def _alltoall_bytes(self, pieces: list) -> list:
        counts, displs = self._sizes(len(p) for p in pieces)
        incoming = numpy.zeros(self.size, numpy.int64)
        self.mpi_comm.Alltoall(numpy.array(counts, numpy.int64), incoming)
        rcounts, rdispls = self._sizes(incoming)
        buf = bytearray(sum(rcounts))
        self.mpi_comm.Alltoallv(
            [b"".join(pieces), counts, displs, self._mpi.BYTE], [buf, rcounts, rdispls, self._mpi.BYTE]
        )
        return [bytes(buf[d : d + c]) for c, d in zip(rcounts, rdispls)]

    def _send_bytes(self, data: bytes, dest: int, tag: int) -> None:
        self.mpi_comm.Send([data, self._mpi.BYTE], dest=dest, tag=tag)

    def _recv_bytes(self, source: int, tag: int, status=None) -> bytes:
        status = self._mpi.Status() if status is None else status
        self.mpi_comm.Probe(source=source, tag=tag, status=status)
        buf = bytearray(status.Get_count(self._mpi.BYTE))  # the probed message, whatever its tag
        self.mpi_comm.Recv([buf, self._mpi.BYTE], source=status.Get_source(), tag=status.Get_tag())
        return bytes(buf)

    # -- plain Python data ---------------------------------------------------------------
    def send_obj(self, obj, dest: int, tag: int = 0) -> None:
        """Send plain data ``obj`` to rank ``dest`` (which calls ``recv_obj``)."""
        self._check_peer("send_obj", "dest", dest)
        self._send_bytes(_codec.encode("send_obj", obj), dest, tag)

    def recv_obj(self, source: int, tag: int = 0, *, status=None):
        """The plain data that rank ``source`` sends with ``send_obj`` (``tag``: MPI's
        ``ANY_TAG`` takes the next message of any tag; an ``mpi4py`` ``status`` is filled in)."""
        self._check_peer("recv_obj", "source", source)
        return _codec.decode(self._recv_bytes(source, tag, status))

    def bcast_obj(self, obj, root: int = 0, *, max_buf_len: int | None = None):
        """Rank ``root``'s ``obj`` on every rank (the others' ``obj`` is ignored), sent in
        messages of at most ``max_buf_len`` bytes when given."""
        self._check_rank("bcast_obj", "root", root)
        data = _codec.encode("bcast_obj", obj) if self.rank == root else None
        return _codec.decode(self._bcast_bytes(data, root, max_buf_len))

    def gather_obj(self, obj, root: int = 0) -> list | None:
        """Every rank's ``obj``, in rank order, on ``root``; None on the others."""
        self._check_rank("gather_obj", "root", root)
        pieces = self._gather_bytes(_codec.encode("gather_obj", obj), root)
        return None if pieces is None else [_codec.decode(p) for p in pieces]

    def allgather_obj(self, obj) -> list:
        """Every rank's ``obj``, in rank order, on every rank."""
        return [_codec.decode(p) for p in self._allgather_bytes(_codec.encode("allgather_obj", obj))]

    def scatter_obj(self, objs, root: int = 0):
        """Entry ``rank`` of ``root``'s list ``objs`` on each rank."""
        self._check_rank("scatter_obj", "root", root)
        pieces = None
        if self.rank == root:
            pieces = [
                _codec.encode("scatter_obj", o) for o in self._check_per_rank("scatter_obj", "objs", objs)
            ]
        return _codec.decode(self._scatter_bytes(pieces, root))

    def alltoall_obj(self, objs) -> list:
        """Entry ``j`` of each rank's ``objs`` goes to rank ``j``; the list of what every rank sent here."""
        objs = self._check_per_rank("alltoall_obj", "objs", objs)
        return [
            _codec.decode(p) for p in self._alltoall_bytes([_codec.encode("alltoall_obj", o) for o in objs])
        ]

    def allreduce_obj(self, obj):
        """The sum (``+``) of every rank's ``obj``, in rank order, on every rank."""
        return functools.reduce(operator.add, self.allgather_obj(obj))

    # -- pytrees of arrays ---------------------------------------------------------------
    def allreduce(self, tree, op: str = "sum", *, in_place: bool = False, transfer_dtype: str | None = None):
        """The leafwise sum (``op="sum"``) or mean (``"mean"``) of every rank's ``tree``.

        Every rank must bring the same tree of the same shapes and dtypes (a ``ShapeError``
        naming both otherwise, on every rank). With ``in_place=True`` the result is written
        into the leaves (writeable NumPy arrays) and ``tree`` is returned; otherwise new arrays
        come back. ``transfer_dtype="float16"`` or ``"bfloat16"`` sends floating leaves in 16
        bits, summing in float32: half the traffic, at 16-bit precision.

        >>> comm = Communicator()  # doctest: +SKIP
        >>> comm.allreduce({"W": numpy.ones(3)}, "mean")["W"]  # doctest: +SKIP
        array([1., 1., 1.])
        """
        return self._allreduce("allreduce", tree, op, in_place=in_place, transfer_dtype=transfer_dtype)

    def bcast(self, tree, root: int = 0):
        """Rank ``root``'s pytree of arrays on every rank (the others may pass None)."""
        self._check_rank("bcast", "root", root)
        data = _codec.encode("bcast", _arrays("bcast", "tree", tree)) if self.rank == root else None
        return _codec.decode(self._bcast_bytes(data, root))

    def gather(self, tree, root: int = 0) -> list | None:
        """Every rank's pytree, in rank order, on ``root``; None on the others."""
        self._check_rank("gather", "root", root)
        pieces = self._gather_bytes(_codec.encode("gather", _arrays("gather", "tree", tree)), root)
        return None if pieces is None else [_codec.decode(p) for p in pieces]

    def allgather(self, tree) -> list:
        """Every rank's pytree, in rank order, on every rank."""
        data = _codec.encode("allgather", _arrays("allgather", "tree", tree))
        return [_codec.decode(p) for p in self._allgather_bytes(data)]

    def scatter(self, trees, root: int = 0):
        """Entry ``rank`` of ``root``'s list of pytrees on each rank (the others may pass None)."""
        self._check_rank("scatter", "root", root)
        pieces = None
        if self.rank == root:
            trees = self._check_per_rank("scatter", "trees", trees)
            pieces = [_codec.encode("scatter", _arrays("scatter", "trees", t)) for t in trees]
        return _codec.decode(self._scatter_bytes(pieces, root))

    def alltoall(self, trees) -> list:
        """Entry ``j`` of each rank's list of pytrees goes to rank ``j``; what every rank sent here."""
        trees = self._check_per_rank("alltoall", "trees", trees)
        pieces = [_codec.encode("alltoall", _arrays("alltoall", "trees", t)) for t in trees]
        return [_codec.decode(p) for p in self._alltoall_bytes(pieces)]

    def send(self, tree, dest: int, tag: int = 0) -> None:
        """Send a pytree of arrays to rank ``dest`` (which calls ``recv``)."""
        self._check_peer("send", "dest", dest)
        self._send_bytes(_codec.encode("send", _arrays("send", "tree", tree)), dest, tag)

    def recv(self, source: int, tag: int = 0):
        """The pytree that rank ``source`` sends with ``send``."""
        self._check_peer("recv", "source", source)
        return _codec.decode(self._recv_bytes(source, tag))
