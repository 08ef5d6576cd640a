"""OptimizerState.with_array_count: the step count in a 0-d int64 array gives the same updates,
bit for bit, as the Python int (Adam's step size becomes the same float32 either way)."""

import numpy
import pytest

import fnet
from fnet import optim


@pytest.mark.parametrize("factory", [optim.Adam, optim.AdamW, optim.AMSGrad, optim.SGD, optim.MomentumSGD])
def test_an_array_count_updates_as_an_int_count(factory):
    rng = numpy.random.default_rng(0)
    params = {"w": rng.standard_normal((5, 4)).astype(numpy.float32), "b": numpy.zeros(4, numpy.float32)}
    tx = factory()
    plain, counted = tx.init(params), tx.init(params).with_array_count()
    p1 = p2 = params
    for _ in range(4):
        grads = {k: rng.standard_normal(v.shape).astype(numpy.float32) for k, v in params.items()}
        p1, plain = optim.step(tx, grads, plain, p1)
        p2, counted = optim.step(tx, grads, counted, p2)
    for key in params:
        assert numpy.array_equal(p1[key], p2[key])
    assert isinstance(plain.t, int) and counted.t.dtype == numpy.int64 and int(counted.t) == plain.t == 4


def test_a_captured_adam_step_replays_for_every_count():
    rng = numpy.random.default_rng(1)
    params = {"w": rng.standard_normal((3, 2)).astype(numpy.float32)}
    adam = optim.Adam(alpha=0.1)
    step = fnet.capture(lambda p, s, g: optim.step(adam, g, s, p))
    state = adam.init(params).with_array_count()
    for _ in range(4):
        params, state = step(params, state, {"w": rng.standard_normal((3, 2)).astype(numpy.float32)})
    assert step.stats()["records"] == 1 and step.stats()["replays"] == 3
    assert int(state.t) == 4
