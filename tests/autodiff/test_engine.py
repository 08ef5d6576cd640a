"""Tests of the backward engine on its own: create_graph, keep, fan-out, visiting order, and its
plain accumulator."""

from __future__ import annotations

import importlib.util
import pathlib

import numpy
import pytest

import fnet
from fnet import functions as F
from fnet import ops
from fnet.autodiff import Tracer, backward, engine, new_level
from fnet.autodiff.engine import Sum
from fnet.deferred import DeferringSum
from fnet.testing import assert_allclose

ROOT = pathlib.Path(__file__).resolve().parents[2]


def inputs(*values):
    level = new_level()
    return [Tracer.input(numpy.asarray(v, dtype=numpy.float64), level) for v in values]


ONE = numpy.float64(1.0)


def test_plain_backward_returns_input_cotangents():
    x, y = inputs(2.0, 3.0)
    z = x * y + ops.sin(x)
    grads = backward([(z, ONE)])
    assert set(grads) == {x.record, y.record}
    assert_allclose(grads[x.record], 3.0 + numpy.cos(2.0))
    assert_allclose(grads[y.record], 2.0)
    assert not isinstance(grads[x.record], Tracer)


def test_create_graph_records_the_backward_pass():
    (x,) = inputs(3.0)
    y = x * x * x
    g = backward([(y, ONE)], create_graph=True)[x.record]
    assert type(g) is Tracer and g.level == x.level  # the cotangent is on x's level
    assert_allclose(g.value, 27.0)  # 3 x^2
    g2 = backward([(g, ONE)], create_graph=True)[x.record]
    assert type(g2) is Tracer
    assert_allclose(g2.value, 18.0)  # 6 x
    g3 = backward([(g2, ONE)])[x.record]
    assert_allclose(g3, 6.0)
    assert not isinstance(g3, Tracer)


def test_create_graph_off_gives_raw_cotangents():
    (x,) = inputs(3.0)
    g = backward([(x * x, ONE)])[x.record]
    assert not isinstance(g, Tracer)


def test_keep_returns_intermediate_cotangents():
    (x,) = inputs(3.0)
    h = x * 2.0
    k = ops.exp(h)
    y = h * h + k
    grads = backward([(y, ONE)], keep=lambda r: r is h.record or r is k.record)
    assert set(grads) == {x.record, h.record, k.record}
    assert_allclose(grads[k.record], 1.0)
    assert_allclose(grads[h.record], 2 * 6.0 + numpy.exp(6.0))
    assert_allclose(grads[x.record], 2 * (2 * 6.0 + numpy.exp(6.0)))


def test_fan_out_accumulates():
    (x,) = inputs(0.4)
    y = ops.sin(x) + x * 2.0 + ops.exp(x) + x
    assert_allclose(backward([(y, ONE)])[x.record], numpy.cos(0.4) + 2 + numpy.exp(0.4) + 1)


def test_fan_out_accumulation_is_recorded_with_create_graph():
    (x,) = inputs(0.4)
    y = ops.sin(x) + ops.exp(x) * x
    g = backward([(y, ONE)], create_graph=True)[x.record]
    assert type(g) is Tracer
    assert_allclose(g.value, numpy.cos(0.4) + numpy.exp(0.4) * 1.4)
    # second derivative: -sin x + e^x (x + 2)
    assert_allclose(backward([(g, ONE)])[x.record], -numpy.sin(0.4) + numpy.exp(0.4) * 2.4)


def test_several_roots_and_repeated_roots_accumulate():
    x, y = inputs([1.0, 2.0], [3.0, 4.0])
    a = x * y
    b = ops.sum(x)
    grads = backward([(a, numpy.array([1.0, 10.0])), (b, ONE), (a, numpy.array([1.0, 1.0]))])
    assert_allclose(grads[x.record], numpy.array([2.0, 11.0]) * [3.0, 4.0] + 1.0)
    assert_allclose(grads[y.record], numpy.array([2.0, 11.0]) * [1.0, 2.0])


def test_a_root_that_is_an_input():
    (x,) = inputs(5.0)
    assert_allclose(backward([(x, numpy.float64(2.5))])[x.record], 2.5)


def test_unreached_inputs_are_absent():
    x, y = inputs(1.0, 2.0)
    grads = backward([(x * 3.0, ONE)])
    assert x.record in grads and y.record not in grads


def test_integer_operands_get_no_cotangent():
    level = new_level()
    x = Tracer.input(numpy.array([1.0, 2.0]), level)
    n = Tracer.input(numpy.array([3, 4]), level)
    grads = backward([(ops.sum(x * n), ONE)])
    assert_allclose(grads[x.record], [3.0, 4.0])
    assert n.record not in grads


def test_records_are_visited_in_descending_sequence_numbers(scratch_primitive):
    visited = []

    def tag(x, *, label):
        return x

    def tag_vjp(g, ans, x, *, label):
        visited.append(label)
        return g

    tag = scratch_primitive(tag, tag_vjp)
    (x,) = inputs(1.5)
    a = tag(x, label="a")
    b = tag(x, label="b")
    c = tag(a, label="c")
    d = tag(b, label="d")
    e = tag(c * d, label="e")
    f = tag(a + e, label="f")  # a is used again, late: a's VJP must wait for f and e
    assert [r.record.seq for r in (a, b, c, d, e, f)] == sorted(r.record.seq for r in (a, b, c, d, e, f))
    grads = backward([(f, ONE)])
    assert visited == ["f", "e", "d", "c", "b", "a"]  # each once, newest first
    assert_allclose(grads[x.record], 1.0 + 2 * 1.5)


def test_each_vjp_runs_once_after_all_its_consumers(scratch_primitive):
    calls = []

    def probe(x):
        return x

    def probe_vjp(g, ans, x):
        calls.append(float(g))
        return g

    probe = scratch_primitive(probe, probe_vjp)
    (x,) = inputs(2.0)
    p = probe(x)
    y = p * p + p + ops.exp(p)
    backward([(y, ONE)])
    assert calls == [pytest.approx(2 * 2.0 + 1 + numpy.exp(2.0))]


def test_backward_on_an_outer_level_is_unaffected_by_inner_levels():
    (x,) = inputs(2.0)
    (y,) = [Tracer.input(x, new_level())]  # an inner level boxing an outer tracer
    z = x * y  # recorded on the inner level, computed on the outer one
    inner = backward([(z, ONE)])
    g_inner = inner[y.record]
    assert type(g_inner) is Tracer and g_inner.level == x.level  # d z / d y = x, still traced
    assert_allclose(backward([(g_inner, ONE)])[x.record], 1.0)


def test_in_place_accumulation_never_touches_an_aliased_cotangent():
    # add's VJP hands the same array to both operands; x1 then gets more cotangents, which the
    # engine may add in place only into sums it made itself, so x2's gradient must stay c.
    c, d, e = (numpy.array([1.0, 2.0]), numpy.array([10.0, 20.0]), numpy.array([100.0, 200.0]))

    def loss(x1, x2):
        first = ops.sum(ops.multiply(x1, e)) + ops.sum(ops.multiply(x1, d))
        return first + ops.sum(ops.multiply(ops.add(x1, x2), c)) + ops.sum(ops.multiply(x1, d))

    g1, g2 = fnet.grad(loss, argnums=(0, 1))(numpy.ones(2), numpy.ones(2))
    numpy.testing.assert_array_equal(g1, c + 2 * d + e)
    numpy.testing.assert_array_equal(g2, c)
    g2_first, g1_then = fnet.grad(lambda x2, x1: loss(x1, x2), argnums=(0, 1))(numpy.ones(2), numpy.ones(2))
    numpy.testing.assert_array_equal(g2_first, c)
    numpy.testing.assert_array_equal(g1_then, c + 2 * d + e)


def _sin_and_square():
    """A primitive with two outputs, whose VJP gets a tuple of cotangents (None where unused)."""
    from fnet.autodiff.primitive import primitive

    @primitive
    def sin_and_square(x):
        return (numpy.sin(x), x * x)

    @sin_and_square.defvjp
    def _vjp(g, ans, x):
        g_sin, g_square = g
        total = 0.0 if g_sin is None else g_sin * fnet.ops.cos(x)
        return total if g_square is None else total + g_square * 2 * x

    return sin_and_square


def test_tuple_valued_primitive_gradients_of_each_and_both_outputs():
    from fnet.autodiff.primitive import take_output

    pair = _sin_and_square()
    x = numpy.array([0.3, -1.2, 2.0])

    def first(x):
        return fnet.ops.sum(take_output(pair(x), index=0))

    def both(x):
        p = pair(x)
        return fnet.ops.sum(take_output(p, index=0) * 3 + take_output(p, index=1))

    numpy.testing.assert_allclose(fnet.grad(first)(x), numpy.cos(x))
    numpy.testing.assert_allclose(fnet.grad(both)(x), 3 * numpy.cos(x) + 2 * x)
    fnet.testing.check_grads(both, (x,), order=2)


# -- the accumulators ------------------------------------------------------------------------
def test_the_engines_own_sum_is_differentiable_twice():
    a, b = numpy.array([0.5, -1.0]), numpy.array([2.0, 3.0])
    fnet.testing.check_grads(lambda a, b: engine.accumulate(a, b) * a, (a, b), order=2)


def test_a_recorded_pass_uses_the_plain_accumulator():
    assert type(engine.accumulator(create_graph=True)) is engine.Sum
    assert type(engine.accumulator(create_graph=False)) is DeferringSum  # registered by fnet.deferred


def rnn_loss(W_in, W_out, x):
    h, total = x, 0.0
    for _ in range(4):
        h = ops.tanh(F.linear(h, W_in))
        total = total + ops.sum(ops.square(F.linear(h, W_out)))
    return total


def test_the_plain_accumulator_alone_gives_the_same_gradients(monkeypatch):
    rng = numpy.random.default_rng(0)
    args = (rng.standard_normal((3, 3)), rng.standard_normal((4, 3)), rng.standard_normal((2, 3)))
    fast = fnet.grad(rnn_loss, argnums=(0, 1, 2))(*args)
    made = []
    monkeypatch.setattr(engine, "_fast", None)
    monkeypatch.setattr(engine, "Sum", lambda: made.append(1) or Sum())
    plain = fnet.grad(rnn_loss, argnums=(0, 1, 2))(*args)
    assert made  # the passes above ran on the plain accumulator
    for p, f in zip(plain, fast):
        assert type(p) is numpy.ndarray
        # one stacked product against a sum of per-step products: rounding differs, a few ulp
        assert_allclose(p, f, rtol=1e-13, atol=1e-13)


def test_autodiff_imports_nothing_above_it():
    spec = importlib.util.spec_from_file_location("import_rules", ROOT / "tools" / "import_rules.py")
    rules = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(rules)
    mine = ("fnet.autodiff", "fnet.deferred", "fnet.derivatives", "fnet.functions.connection")
    broken = [line for line in rules.check(ROOT) if line.split(": ", 1)[1].startswith(mine)]
    assert broken == []
