"""Checks of fnet.distributed.Communicator, run on 2 ranks by test_communicator.py."""

import numpy
import pytest

from fnet.distributed import Communicator
from fnet.errors import ArgumentTypeError, DTypeError, InvalidInputError, ShapeError


def _tree(rank):
    # integer-valued floats: their sums are exact in every dtype used here
    return {
        "W": numpy.full((2, 3), rank + 1.0, numpy.float32),
        "b": [numpy.arange(3, dtype=numpy.int64) + rank, numpy.float64(rank)],
        "h": numpy.full((4,), 2.0 * rank, numpy.float16),
    }


def check_ranks(comm):
    assert comm.size == 2 and comm.rank in (0, 1)
    assert (comm.intra_rank, comm.intra_size, comm.inter_rank, comm.inter_size) == (comm.rank, 2, 0, 1)


def check_allreduce_sum_gives_new_arrays_of_each_dtype(comm):
    tree = _tree(comm.rank)
    out = comm.allreduce(tree)
    numpy.testing.assert_array_equal(out["W"], numpy.full((2, 3), 3.0, numpy.float32))
    numpy.testing.assert_array_equal(out["b"][0], [1, 3, 5])
    assert out["b"][1] == 1.0 and out["h"].dtype == numpy.float16
    numpy.testing.assert_array_equal(out["h"], numpy.full(4, 2.0, numpy.float16))
    assert out["W"].dtype == numpy.float32 and out["b"][0].dtype == numpy.int64
    assert tree["W"][0, 0] == comm.rank + 1.0  # the input is unchanged


def check_allreduce_mean_in_place(comm):
    tree = {"W": numpy.full((2, 3), comm.rank + 1.0, numpy.float32), "v": numpy.array([comm.rank * 4.0])}
    W = tree["W"]
    assert comm.allreduce(tree, "mean", in_place=True) is tree
    assert tree["W"] is W
    numpy.testing.assert_array_equal(W, numpy.full((2, 3), 1.5, numpy.float32))
    numpy.testing.assert_array_equal(tree["v"], [2.0])


def check_allreduce_reuses_its_buffer(comm):
    comm.allreduce({"a": numpy.ones(12, numpy.float32)})
    first = comm._allreduce.buffer(numpy.dtype(numpy.float32), 12).ctypes.data
    comm.allreduce({"a": numpy.ones(10, numpy.float32), "b": numpy.zeros(2, numpy.float32)}, "mean")
    assert comm._allreduce.buffer(numpy.dtype(numpy.float32), 12).ctypes.data == first


def check_allreduce_in_16_bits(comm):
    for wire, bits in (("float16", 11), ("bfloat16", 8)):
        x = numpy.linspace(-3, 3, 101).astype(numpy.float32) * (comm.rank + 1)
        out = comm.allreduce({"x": x, "n": numpy.arange(3)}, "sum", transfer_dtype=wire)
        expected = numpy.linspace(-3, 3, 101).astype(numpy.float32) * 3
        assert out["x"].dtype == numpy.float32
        numpy.testing.assert_array_equal(out["n"], 2 * numpy.arange(3))  # integers travel whole
        # each operand rounded to `bits` significant bits, their sum rounded again
        numpy.testing.assert_allclose(out["x"], expected, rtol=3 * 2.0**-bits, atol=1e-6)


def check_allreduce_of_an_empty_tree(comm):
    assert comm.allreduce({}) == {}


def check_allreduce_mean_of_integers_is_refused(comm):
    with pytest.raises(DTypeError, match="allreduce: expected floating leaves for op='mean', got int64"):
        comm.allreduce({"n": numpy.arange(3)}, "mean")


def check_allreduce_names_both_shapes_when_ranks_differ(comm):
    tree = {"a": numpy.zeros(3, numpy.float32), "W": numpy.zeros((2, comm.rank + 1), numpy.float32)}
    other = 1 - comm.rank
    with pytest.raises(ShapeError) as info:
        comm.allreduce(tree)
    text = str(info.value)
    assert f"W: float32[2, {comm.rank + 1}] on rank {comm.rank}" in text
    assert f"W: float32[2, {other + 1}] on rank {other}" in text


def check_allreduce_refuses_an_unknown_op(comm):
    with pytest.raises(InvalidInputError, match=r"expected op to be one of \('sum', 'mean'\), got 'max'"):
        comm.allreduce({"a": numpy.zeros(1)}, "max")


def check_bcast_gather_allgather(comm):
    tree = {"x": numpy.arange(comm.rank + 2.0)}  # shapes differ between ranks: these ops allow it
    got = comm.bcast(tree if comm.rank == 1 else None, root=1)
    numpy.testing.assert_array_equal(got["x"], [0.0, 1.0, 2.0])
    gathered = comm.gather(tree, root=0)
    if comm.rank == 0:
        assert [len(t["x"]) for t in gathered] == [2, 3]
    else:
        assert gathered is None
    every = comm.allgather((numpy.int32(comm.rank), tree))
    assert [int(r) for r, _ in every] == [0, 1]


def check_scatter_alltoall(comm):
    mine = comm.scatter([numpy.zeros(2), numpy.ones(3)] if comm.rank == 0 else None)
    numpy.testing.assert_array_equal(mine, numpy.full(comm.rank + 2, float(comm.rank)))
    got = comm.alltoall([numpy.array([10 * comm.rank + j]) for j in range(2)])
    assert [int(a[0]) for a in got] == [comm.rank, 10 + comm.rank]


def check_send_recv_keep_structure_and_dtype(comm):
    if comm.rank == 0:
        comm.send({"a": (numpy.ones((2, 2), numpy.float16), [numpy.int8(3)])}, 1, tag=7)
    else:
        got = comm.recv(0, tag=7)
        assert got["a"][0].dtype == numpy.float16 and got["a"][0].shape == (2, 2)
        assert isinstance(got["a"], tuple) and got["a"][1][0] == 3


def check_send_to_itself_is_refused(comm):
    with pytest.raises(InvalidInputError, match="a rank that sends to itself waits forever"):
        comm.send(numpy.zeros(1), comm.rank)


def check_objects_travel_as_plain_data(comm):
    assert comm.bcast_obj({"k": [1, 2.5, "s", None]} if comm.rank == 0 else None) == {
        "k": [1, 2.5, "s", None]
    }
    assert comm.allgather_obj(("r", comm.rank)) == [("r", 0), ("r", 1)]
    assert comm.gather_obj(comm.rank, root=1) == ([0, 1] if comm.rank == 1 else None)
    assert comm.scatter_obj(["a", "b"] if comm.rank == 0 else None) == "ab"[comm.rank]
    assert comm.alltoall_obj([comm.rank * 10, comm.rank * 10 + 1]) == [comm.rank, 10 + comm.rank]
    assert comm.allreduce_obj(comm.rank + 1) == 3
    if comm.rank == 0:
        comm.send_obj(b"bytes", 1)
    else:
        assert comm.recv_obj(0) == b"bytes"


def check_objects_that_are_not_plain_data_are_refused(comm):
    with pytest.raises(ArgumentTypeError, match="got builtins.object"):
        comm.allgather_obj(object())


def check_split(comm):
    alone = comm.split(comm.rank, 0)
    assert isinstance(alone, Communicator) and (alone.rank, alone.size) == (0, 1)
    both = comm.split(0, -comm.rank)  # the key reverses the order
    assert (both.rank, both.size) == (1 - comm.rank, 2)
