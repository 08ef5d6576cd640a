"""Tests of the fast accumulator: deferred cotangents merged as they arrive, computed once, never
seen by a VJP; batches; the ancestor walk only where it can help."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import functions as F
from fnet import ops
from fnet.autodiff import Tracer, backward, new_level, primitive
from fnet.deferred import Deferred, deferrable, value_of
from fnet.testing import assert_allclose, check_grads


class Terms(Deferred):
    """A sum kept as its terms, counting how often it is computed."""

    computed = 0

    def __init__(self, terms):
        super().__init__(terms[0].shape, terms[0].dtype)
        self.terms = terms

    def _joined(self, other):
        return Terms(self.terms + other.terms)

    def value(self):
        Terms.computed += 1
        return sum(self.terms[1:], self.terms[0].copy())


@primitive
def _twice(x):
    return 2 * x


_twice.defvjp(lambda g, ans, x: ops.multiply(g, 2))
deferrable(_twice, lambda g, ans, x: Terms([2 * g]))


@pytest.fixture(autouse=True)
def count():
    Terms.computed = 0


def leaf(value):
    return Tracer.input(numpy.asarray(value, dtype=numpy.float64), new_level())


def test_terms_of_one_kind_are_merged_and_computed_once():
    x = leaf([1.0, 2.0])
    y = _twice(x) + _twice(x) * 3.0 + _twice(x)
    grads = backward([(y, numpy.ones(2))])
    assert Terms.computed == 1
    assert type(grads[x.record]) is numpy.ndarray
    assert_allclose(grads[x.record], [10.0, 10.0])


def test_a_deferred_term_meeting_an_array_is_computed_and_added():
    x = leaf([1.0, 2.0])
    y = _twice(x) + ops.sin(x) + _twice(x)
    grads = backward([(y, numpy.ones(2))])
    assert_allclose(grads[x.record], 4.0 + numpy.cos([1.0, 2.0]))


def test_a_vjp_receives_the_value_not_the_deferred_cotangent():
    x = leaf([1.0, 2.0])
    inner = ops.exp(x)  # its VJP gets the cotangent made of two deferred terms
    y = _twice(inner) + _twice(inner)
    grads = backward([(y, numpy.ones(2))])
    assert Terms.computed == 1
    assert_allclose(grads[x.record], 4.0 * numpy.exp([1.0, 2.0]))


def test_the_recorded_backward_pass_defers_no_traced_cotangent():
    x = leaf([1.0, 2.0])
    y = ops.square(_twice(x)) + ops.square(_twice(x))  # the cotangents reaching _twice are traced
    g = backward([(y, numpy.ones(2))], create_graph=True)[x.record]
    assert type(g) is Tracer and Terms.computed == 0
    assert_allclose(g.value, [16.0, 32.0])


class Batched(Deferred):
    """``2 * g``, computed together with the others of its key, recording each batch."""

    batches: list = []

    def __init__(self, g, key):
        super().__init__(g.shape, g.dtype)
        self.g = g
        self.batch_key = key

    def _joined(self, other):
        return Batched(self.g + other.g, self.batch_key)

    def value(self):
        return self.values([self])[0]

    @classmethod
    def values(cls, deferred):
        keys = {d.batch_key for d in deferred}
        assert len(keys) == 1
        cls.batches.append((keys.pop(), len(deferred)))
        return [2 * d.g for d in deferred]


@primitive
def _double(x, *, key):
    return 2 * x


_double.defvjp(lambda g, ans, x, *, key: ops.multiply(g, 2))
deferrable(_double, lambda g, ans, x, *, key: Batched(g, key))


def recurrence(x, steps, key="out"):
    """``h_t = sin(h_{t-1})`` with an output ``_double(h_t)`` per step, summed: the cotangents of
    the outputs reach the h_t one per step, each on the way back to h_0."""
    h, total = x, 0.0
    for _ in range(steps):
        h = ops.sin(h)
        total = ops.add(total, ops.sum(ops.square(_double(h, key=key))))
    return total


def test_deferred_cotangents_of_one_batch_key_are_computed_together():
    Batched.batches = []
    x = leaf([0.5, -1.0, 2.0])
    g = backward([(recurrence(x, 4), numpy.float64(1.0))])[x.record]
    # every output's cotangent is there before the first h_t is visited: one batch of four
    assert Batched.batches == [("out", 4)]
    assert_allclose(g, fnet.grad(lambda x: recurrence(x, 4))(x.value))


def test_batching_keeps_the_gradients_of_every_order():
    x = numpy.array([0.5, -1.0, 2.0])
    check_grads(lambda x: recurrence(x, 3), [x], order=2)


def test_deferred_cotangents_of_other_keys_are_computed_apart():
    Batched.batches = []
    x = leaf([0.5, -1.0])
    y = ops.add(recurrence(x, 2, key="a"), recurrence(x, 3, key="b"))
    g = backward([(y, numpy.float64(1.0))])[x.record]
    # The engine reorders once, for the first key it meets (b, made last): a's cotangents,
    # visited meanwhile, are computed one by one, then b's at once.
    assert Batched.batches == [("a", 1), ("a", 1), ("b", 3)]
    assert_allclose(g, fnet.grad(lambda x: recurrence(x, 2, key="a") + recurrence(x, 3, key="b"))(x.value))


def test_value_of_leaves_arrays_alone():
    a = numpy.ones(2)
    assert value_of(a) is a
    assert_allclose(value_of(Terms([a, a])), [2.0, 2.0])


# -- the two kinds in fnet.functions ---------------------------------------------------------
def unrolled(W, b, xs):
    """A weight shared by every step of a loop, as an RNN's output layer."""
    return sum(ops.sum(ops.square(F.linear(x, W, b))) for x in xs)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_linear_weight_used_at_every_step(dtype):
    rng = numpy.random.default_rng(0)
    W, b = rng.standard_normal((4, 3)).astype(dtype), rng.standard_normal(4).astype(dtype)
    xs = [rng.standard_normal((n, 3)).astype(dtype) for n in (2, 5, 1)]
    gW = fnet.grad(unrolled)(W, b, xs)
    expected = sum((2 * (x @ W.T + b)).T @ x for x in xs)
    assert gW.dtype == dtype
    assert_allclose(gW, expected, rtol=1e-5 if dtype == numpy.float32 else 1e-12)


def test_linear_input_cotangents_of_a_weight_are_one_product(monkeypatch):
    from fnet.functions import connection

    sizes = []
    values = connection._InputProducts.values.__func__
    monkeypatch.setattr(
        connection._InputProducts,
        "values",
        classmethod(lambda cls, deferred: sizes.append(len(deferred)) or values(cls, deferred)),
    )
    rng = numpy.random.default_rng(3)
    W_in, W_out = rng.standard_normal((3, 3)), rng.standard_normal((4, 3))
    x = rng.standard_normal((2, 3))

    def rnn(W_in, W_out, x):
        h, total = x, 0.0
        for _ in range(5):
            h = ops.tanh(F.linear(h, W_in))
            total = total + ops.sum(ops.square(F.linear(h, W_out)))
        return total

    fnet.grad(rnn)(W_in, W_out, x)
    assert 5 in sizes  # the five products g_t @ W_out, at once
    check_grads(rnn, [W_in, W_out, x], order=2)


def test_linear_weight_used_in_a_loop_and_elsewhere():
    rng = numpy.random.default_rng(1)
    W, b = rng.standard_normal((4, 3)), rng.standard_normal(4)
    xs = [rng.standard_normal((2, 3)) for _ in range(3)]
    check_grads(lambda W, b: unrolled(W, b, xs) + ops.sum(ops.sin(W)), [W, b], order=2)


def test_embedding_used_at_every_step():
    rng = numpy.random.default_rng(2)
    W = rng.standard_normal((5, 3))
    steps = [numpy.array([0, 4, 0]), numpy.array([[4, 2], [-1, 4]]), numpy.array([1])]

    def loss(W):
        return sum(ops.sum(ops.square(F.embed_id(ids, W, ignore_label=-1))) for ids in steps)

    expected = numpy.zeros_like(W)
    for ids in steps:
        for i in ids.ravel():
            if i >= 0:
                expected[i] += 2 * W[i]
    assert_allclose(fnet.grad(loss)(W), expected)
    check_grads(loss, [W], order=2)


# -- the ancestor walk: only where a batch can form ------------------------------------------
@pytest.fixture
def walks(monkeypatch):
    """The Records from which the accumulator walked to the ancestors, in this test."""
    from fnet import deferred

    started = []
    ancestors = deferred._ancestors
    monkeypatch.setattr(deferred, "_ancestors", lambda record: started.append(record) or ancestors(record))
    return started


def test_a_feed_forward_pass_walks_no_graph(walks):
    rng = numpy.random.default_rng(4)
    W1, W2, x = rng.standard_normal((5, 3)), rng.standard_normal((2, 5)), rng.standard_normal((4, 3))

    def mlp(W1, W2):
        return ops.sum(ops.square(F.linear(ops.tanh(F.linear(x, W1)), W2)))

    g1, g2 = fnet.grad(mlp, argnums=(0, 1))(W1, W2)
    assert walks == []  # linear's input cotangents have batch keys, but no other step can join them
    h = numpy.tanh(x @ W1.T)
    assert_allclose(g2, (2 * h @ W2.T).T @ h, rtol=1e-12)


def test_a_recurrent_pass_walks_once(walks):
    x = leaf([0.5, -1.0, 2.0])
    backward([(recurrence(x, 4), numpy.float64(1.0))])
    assert len(walks) == 1
