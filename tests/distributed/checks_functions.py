"""Checks of fnet.distributed.functions (differentiable collectives), run on 2 ranks."""

import numpy

import fnet
from fnet import ops
from fnet.distributed import functions as D


def _x(comm):
    return numpy.arange(3.0) + comm.rank


def check_allgather_forward_and_gradient(comm):
    x = _x(comm)
    numpy.testing.assert_array_equal(D.allgather(comm, x), [[0, 1, 2], [1, 2, 3]])
    # rank k's loss weighs every gathered row by k + 1: x's gradient sums 1 + 2
    grad = fnet.grad(lambda x: ops.sum(D.allgather(comm, x) * (comm.rank + 1.0)))(x)
    numpy.testing.assert_array_equal(grad, [3.0, 3.0, 3.0])


def check_allgather_second_order(comm):
    x = _x(comm)

    def loss(x):
        return ops.sum(D.allgather(comm, x) ** 2) * (comm.rank + 1.0)

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
    grad = fnet.grad(lambda x: ops.sum(D.alltoall(comm, ops.stack([x, 2 * x])) * (comm.rank + 1.0)))(x)
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
        return ops.sum(y * numpy.arange(1.0, 3.0)[:, None]) if comm.rank == 1 else ops.sum(y)

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
