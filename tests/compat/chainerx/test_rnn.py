"""The recurrent routines: the same values as fnet's functions (without dropout), ChainerX's
nesting of results, and gradients through the steps."""

from __future__ import annotations

import numpy

import fnet.compat.chainerx as chx
import fnet.functions as F

_RNG = numpy.random.default_rng(1)


def _lstm_inputs(n_layers=1, in_size=3, out_size=2, batches=(3, 2)):
    h = _RNG.uniform(-1, 1, (n_layers, batches[0], out_size))
    c = _RNG.uniform(-1, 1, (n_layers, batches[0], out_size))
    xs = [_RNG.uniform(-1, 1, (b, in_size)) for b in batches]
    ws = [[_RNG.uniform(-1, 1, (out_size, in_size if i < 4 else out_size)) for i in range(8)]]
    bs = [[_RNG.uniform(-1, 1, (out_size,)) for _ in range(8)]]
    return h, c, ws, bs, xs


def test_n_step_lstm_gives_fnets_values_as_chainerx_nests_them():
    h, c, ws, bs, xs = _lstm_inputs()
    expected = F.n_step_lstm(1, 0.0, h, c, ws, bs, xs, train=False)

    def chx_nest(tree):
        return [chx_nest(t) for t in tree] if isinstance(tree, list) else chx.array(tree)

    hy, cy, ys = chx.n_step_lstm(1, chx.array(h), chx.array(c), chx_nest(ws), chx_nest(bs), chx_nest(xs))
    assert isinstance(ys, list) and len(ys) == 2
    numpy.testing.assert_array_equal(chx.to_numpy(hy), numpy.asarray(expected[0]))
    numpy.testing.assert_array_equal(chx.to_numpy(cy), numpy.asarray(expected[1]))
    for y, e in zip(ys, expected[2]):
        numpy.testing.assert_array_equal(chx.to_numpy(y), numpy.asarray(e))


def test_lstm_step_is_differentiable():
    c = chx.array(_RNG.uniform(-1, 1, (2, 3))).require_grad()
    x = chx.array(_RNG.uniform(-1, 1, (2, 12))).require_grad()

    def step(xs):
        return chx.lstm(xs[0], xs[1])

    gys = [chx.array(_RNG.uniform(-1, 1, (2, 3))) for _ in range(2)]
    chx.check_backward(
        step, [c, x], gys, [chx.full((2, 3), 1e-3, "float64"), chx.full((2, 12), 1e-3, "float64")]
    )


def test_tree_lstm_follows_its_formula_and_is_differentiable():
    c1, c2 = (_RNG.uniform(-1, 1, (4, 3)) for _ in range(2))
    x = _RNG.uniform(-1, 1, (4, 15))
    c, h = chx.tree_lstm(chx.array(c1), chx.array(c2), chx.array(x))
    a, i, o, f1, f2 = numpy.split(x, 5, axis=1)

    def sigmoid(v):
        return 1 / (1 + numpy.exp(-v))

    expected_c = numpy.tanh(a) * sigmoid(i) + c1 * sigmoid(f1) + c2 * sigmoid(f2)
    numpy.testing.assert_allclose(chx.to_numpy(c), expected_c, rtol=1e-12)  # float64, a few roundings
    numpy.testing.assert_allclose(chx.to_numpy(h), numpy.tanh(expected_c) * sigmoid(o), rtol=1e-12)
    inputs = [chx.array(v).require_grad() for v in (c1, c2, x)]
    gys = [chx.array(_RNG.uniform(-1, 1, (4, 3))) for _ in range(2)]
    eps = [chx.full(v.shape, 1e-3, "float64") for v in (c1, c2, x)]
    chx.check_backward(lambda xs: chx.tree_lstm(*xs), inputs, gys, eps)
