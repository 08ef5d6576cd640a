"""Checks of data-parallel training (fnet.distributed.train_step), run on 2 ranks."""

import numpy
import pytest

import fnet
from fnet import optim
from fnet.distributed import (
    DivergedParamsError,
    allreduce_gradients,
    check_same_params,
    make_train_step,
    params_hash,
)
from fnet.errors import InvalidInputError


def _loss_fn(params, state, batch):
    x, y = batch
    loss = fnet.ops.mean((fnet.ops.matmul(x, params["W"]) + params["b"] - y) ** 2)
    return loss, (state, {"seen": fnet.ops.sum(x * 0) + x.shape[0]})


def _data(rank):
    rng = numpy.random.RandomState(100 + rank)
    return rng.randn(8, 3), rng.randn(8, 2)


def _params(seed=0):
    rng = numpy.random.RandomState(seed)
    return {"W": rng.randn(3, 2), "b": numpy.zeros(2)}


def check_steps_keep_the_same_params_and_match_one_process(comm):
    params = comm.bcast(_params() if comm.rank == 0 else None)
    tx = optim.MomentumSGD(lr=0.1)
    step = make_train_step(_loss_fn, tx, comm, check_params=True)
    opt_state = tx.init(params)  # the optimizer's own state, as on one process
    for _ in range(3):
        params, _, opt_state, metrics = step(params, None, opt_state, _data(comm.rank))
    check_same_params(comm, params)
    # one process on both ranks' batches (equal sizes: the mean of the means is the mean)
    x = numpy.concatenate([_data(0)[0], _data(1)[0]])
    y = numpy.concatenate([_data(0)[1], _data(1)[1]])
    single = optim.make_train_step(_loss_fn, tx)
    p = _params()
    s = tx.init(p)
    for _ in range(3):
        p, _, s, single_metrics = single(p, None, s, (x, y))
    # float64 sums in another order: a few ulps apart
    numpy.testing.assert_allclose(params["W"], p["W"], rtol=1e-12)
    numpy.testing.assert_allclose(metrics["loss"], single_metrics["loss"], rtol=1e-12)
    assert float(metrics["seen"]) == 8.0


def check_diverged_params_are_caught_on_every_rank(comm):
    params = _params(seed=comm.rank)  # no bcast: the ranks start apart
    step = make_train_step(_loss_fn, optim.SGD(lr=0.1), comm, check_params=True)
    with pytest.raises(DivergedParamsError, match=r"got ranks \[1\] different from rank 0"):
        step(params, None, optim.SGD(lr=0.1).init(params), _data(comm.rank))


def check_allreduce_gradients_is_a_transform_to_chain(comm):
    tx = optim.chain(allreduce_gradients(comm), optim.SGD(lr=1.0))
    params = {"w": numpy.zeros(2)}
    params, _ = optim.step(tx, {"w": numpy.full(2, comm.rank * 2.0)}, tx.init(params), params)
    numpy.testing.assert_array_equal(params["w"], [-1.0, -1.0])
    assert repr(tx).startswith("chain(allreduce_gradients(Communicator(rank=")


def check_params_hash_depends_on_values_paths_and_dtypes(comm):
    a = {"W": numpy.zeros(3)}
    assert params_hash(a) == params_hash({"W": numpy.zeros(3)})
    assert params_hash(a) != params_hash({"V": numpy.zeros(3)})
    assert params_hash(a) != params_hash({"W": numpy.zeros(3, numpy.float32)})
    assert params_hash(a) != params_hash({"W": numpy.array([0.0, 0.0, 1e-300])})


def check_make_train_step_refuses_what_is_not_an_optimizer(comm):
    with pytest.raises(InvalidInputError, match="expected optimizer to be a fnet.optim.Transform, got str"):
        make_train_step(_loss_fn, "adam", comm)
