"""Checks of fnet.distributed.functions (differentiable collectives), run on 2 ranks."""

import numpy

import fnet
from fnet import ops
from fnet.distributed import functions as D


def _x(comm):
    return numpy.arange(3.0) + comm.rank


def check_allgather_forward_and_gradient(comm):
    x = _x(comm)
    numpy.testing.assert_array_equal(ops.stack(D.allgather(comm, x)), [[0, 1, 2], [1, 2, 3]])
    # rank k's loss weighs every gathered row by k + 1: x's gradient sums 1 + 2
    grad = fnet.grad(lambda x: ops.sum(ops.stack(D.allgather(comm, x)) * (comm.rank + 1.0)))(x)
    numpy.testing.assert_array_equal(grad, [3.0, 3.0, 3.0])


def check_allgather_second_order(comm):
    x = _x(comm)

    def loss(x):
        return ops.sum(ops.stack(D.allgather(comm, x)) ** 2) * (comm.rank + 1.0)

    first = fnet.grad(loss)(x)  # 2 * (1 + 2) * x
    numpy.testing.assert_array_equal(first, 6.0 * x)
    second = fnet.grad(lambda x: ops.sum(fnet.grad(loss)(x)))(x)
    numpy.testing.assert_array_equal(second, [6.0, 6.0, 6.0])


def check_alltoall_is_its_own_transpose(comm):
    x = _x(comm)
    got = D.alltoall(comm, [x, 2 * x])
    numpy.testing.assert_array_equal(
        got, [(1 + comm.rank) * numpy.arange(3.0), (1 + comm.rank) * (numpy.arange(3.0) + 1)]
    )
    # x reaches rank 0 as x (weight 1) and rank 1 as 2x (weight 2): 1 + 2 * 2
    grad = fnet.grad(lambda x: ops.sum(ops.stack(D.alltoall(comm, [x, 2 * x])) * (comm.rank + 1.0)))(x)
    numpy.testing.assert_array_equal(grad, [5.0, 5.0, 5.0])


def check_bcast_gradient_is_summed_on_root(comm):
    x = _x(comm)

    def loss(x):
        y = D.bcast(comm, x if comm.rank == 0 else ops.sum(x) * 0, root=0)
        return ops.sum(y * (comm.rank + 1.0))

    numpy.testing.assert_array_equal(
        fnet.grad(loss)(x), [3.0, 3.0, 3.0] if comm.rank == 0 else [0.0, 0.0, 0.0]
    )


def check_gather_and_scatter_are_transposes(comm):
    x = _x(comm)

    def gather_loss(x):
        y = D.gather(comm, x, root=1)  # on rank 0, a delegate
        return ops.sum(ops.stack(y) * numpy.arange(1.0, 3.0)[:, None]) if comm.rank == 1 else ops.sum(y)

    numpy.testing.assert_array_equal(fnet.grad(gather_loss)(x), numpy.full(3, comm.rank + 1.0))

    def scatter_loss(x):
        y = D.scatter(comm, [x, 3 * x] if comm.rank == 0 else ops.sum(x) * 0, root=0)
        numpy.testing.assert_array_equal(fnet.stop_gradient(y), (1 + 2 * comm.rank) * numpy.arange(3.0))
        return ops.sum(y * (comm.rank + 1.0))

    numpy.testing.assert_array_equal(
        fnet.grad(scatter_loss)(x), numpy.full(3, 7.0 if comm.rank == 0 else 0.0)
    )


def check_send_recv_gradient_comes_back(comm):
    x = _x(comm)
    if comm.rank == 0:
        grad = fnet.grad(lambda x: ops.sum(D.send(2 * x, comm, 1)))(x)
        numpy.testing.assert_array_equal(grad, 8.0 * x)  # d/dx sum((2x)^2)
    else:
        grad = fnet.grad(lambda x: ops.sum(D.recv(comm, 0, delegate=ops.sum(x) * 0) ** 2))(x)
        numpy.testing.assert_array_equal(grad, [0.0, 0.0, 0.0])


def check_pseudo_connect_runs_both_backward_passes(comm):
    x = _x(comm)
    if comm.rank == 0:
        # the delegate of a send joined to a local loss: one backward pass does both
        def loss(x):
            sent = D.send(x, comm, 1)
            (joined,) = (D.pseudo_connect(sent, ops.sum(x * x)),)
            return joined

        numpy.testing.assert_array_equal(fnet.grad(loss)(x), 2 * x + 3.0)
    else:
        fnet.grad(lambda x: ops.sum(D.recv(comm, 0, delegate=ops.sum(x) * 0) * 3.0))(x)


def check_shapes_may_differ_between_ranks(comm):
    x = numpy.arange(comm.rank + 2.0)  # 2 values on rank 0, 3 on rank 1
    pieces = D.allgather(comm, x)
    assert [p.shape for p in pieces] == [(2,), (3,)]
    grad = fnet.grad(lambda x: sum(ops.sum(p * (i + 1.0)) for i, p in enumerate(D.allgather(comm, x))))(x)
    numpy.testing.assert_array_equal(grad, numpy.full(comm.rank + 2, 2.0 * (comm.rank + 1)))
    sent = [numpy.ones(j + 1) * comm.rank for j in range(2)]  # rank j gets j + 1 values from each
    got = D.alltoall(comm, sent)
    assert [g.shape for g in got] == [(comm.rank + 1,)] * 2
    grad = fnet.grad(lambda a, b: sum(ops.sum(g) for g in D.alltoall(comm, [a, b])), argnums=(0, 1))(*sent)
    numpy.testing.assert_array_equal(grad[1], numpy.ones(2))
