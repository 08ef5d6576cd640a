"""Tests of fnet.optim.make_train_step (its trajectory against Chainer is in test_golden.py)."""

from __future__ import annotations

import numpy
import pytest

import fnet.functions as F
from fnet import optim, tree
from fnet.errors import InvalidInputError


def classifier():
    """A linear softmax classifier on two separable blobs, with a step counter as its state."""
    rng = numpy.random.RandomState(0)
    x = numpy.concatenate([rng.randn(20, 2) + 2, rng.randn(20, 2) - 2]).astype(numpy.float32)
    t = numpy.repeat(numpy.arange(2, dtype=numpy.int32), 20)
    params = {"W": (0.1 * rng.randn(2, 2)).astype(numpy.float32), "b": numpy.zeros(2, numpy.float32)}

    def loss_fn(params, state, batch):
        x, t = batch
        y = F.linear(x, params["W"], params["b"])
        return F.softmax_cross_entropy(y, t), (state + 1, {"accuracy": F.accuracy(y, t)})

    return loss_fn, params, (x, t)


def test_training_reduces_the_loss_purely():
    loss_fn, params, batch = classifier()
    tx = optim.chain(optim.WeightDecay(1e-4), optim.MomentumSGD(lr=0.1))
    step = optim.make_train_step(loss_fn, tx)
    start = tree.map(numpy.copy, params)
    opt_state, state, losses = tx.init(params), 0, []
    new = params
    for _ in range(30):
        new, state, opt_state, metrics = step(new, state, opt_state, batch)
        losses.append(float(metrics["loss"]))
    assert state == 30 and opt_state[1].t == 30 and set(metrics) == {"loss", "accuracy"}
    assert losses[-1] < 0.1 * losses[0] and float(metrics["accuracy"]) == 1.0
    assert all(numpy.array_equal(a, b) for a, b in zip(tree.leaves(params), tree.leaves(start)))


def test_loss_in_metrics_is_the_loss_before_the_update():
    loss_fn, params, batch = classifier()
    step = optim.make_train_step(loss_fn, optim.SGD(lr=0.5))
    _, _, _, metrics = step(params, 0, optim.SGD().init(params), batch)
    assert float(metrics["loss"]) == float(loss_fn(params, 0, batch)[0])


def test_contract_errors():
    loss_fn, params, batch = classifier()
    with pytest.raises(
        InvalidInputError, match=r"make_train_step: expected optimizer to be a fnet.optim.Transform"
    ):
        optim.make_train_step(loss_fn, optim.SGD)
    with pytest.raises(InvalidInputError, match=r"make_train_step: expected loss_fn to be a function"):
        optim.make_train_step(None, optim.SGD())
    step = optim.make_train_step(lambda p, s, b: (loss_fn(p, s, b)[0], s), optim.SGD())
    with pytest.raises(
        InvalidInputError, match=r"return \(loss, \(new_state, metrics\)\).*got \(float32\[\], int\)"
    ):
        step(params, 0, optim.SGD().init(params), batch)
    step = optim.make_train_step(lambda p, s, b: loss_fn(p, s, b)[0], optim.SGD())
    with pytest.raises(InvalidInputError, match=r"metrics a dict, got float32\[\]"):
        step(params, 0, optim.SGD().init(params), batch)
    step = optim.make_train_step(lambda p, s, b: (loss_fn(p, s, b)[0], (s, None)), optim.SGD())
    with pytest.raises(InvalidInputError, match=r"got \(float32\[\], \(int, NoneType\)\)"):
        step(params, 0, optim.SGD().init(params), batch)


def test_key_and_iteration_are_passed_to_a_loss_function_that_declares_them():
    import inspect

    import fnet

    loss_fn, params, batch = classifier()
    seen = []

    def keyed_loss_fn(params, state, batch, *, key, iteration=None):
        seen.append((key, iteration))
        return loss_fn(params, state, batch)

    tx = optim.SGD(lr=0.1)
    step = optim.make_train_step(keyed_loss_fn, tx)
    assert str(inspect.signature(step)) == "(params, state, opt_state, batch, *, key, iteration=None)"
    assert step.loss_fn is keyed_loss_fn and step.optimizer is tx
    assert repr(step) == f"make_train_step(<function {keyed_loss_fn.__qualname__}>, SGD(lr=0.1))"
    key = fnet.random.key(1)
    step(params, 0, tx.init(params), batch, key=key, iteration=7)
    assert seen[0][0] is key and seen[0][1] == 7

    plain = optim.make_train_step(loss_fn, tx)
    assert str(inspect.signature(plain)) == "(params, state, opt_state, batch)"

    def open_loss_fn(params, state, batch, **options):
        seen.append(options)
        return loss_fn(params, state, batch)

    step = optim.make_train_step(open_loss_fn, tx)
    assert str(inspect.signature(step)) == "(params, state, opt_state, batch, *, key=None, iteration=None)"
    step(params, 0, tx.init(params), batch, iteration=3)
    assert seen[-1] == {"iteration": 3}
