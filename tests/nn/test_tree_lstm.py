"""The pure tree LSTMs, the peephole LSTM and spectral normalization: forward against NumPy
formulas written from the papers' definitions, gradients to order 2 (float64), errors, lazy
sizes."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import errors, nn
from fnet.nn.spectral_normalization import as_matrix, max_singular_value, power_iteration
from fnet.testing import check_grads

KEY = fnet.random.key(0)
# rtol for float64 results computed two ways (fnet's functions vs NumPy): rounding differs in
# the order of sums only, far below 1e-12 relative
RTOL = 1e-12


def rand(*shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


def float64(params):
    return fnet.tree.map(lambda a: numpy.asarray(a, numpy.float64), params)


def sigmoid(x):
    return 1 / (1 + numpy.exp(-x))


def linear(p, x):
    return x @ p["W"].T + p.get("b", 0)


# -- ChildSumTreeLSTM -------------------------------------------------------------------------
def child_sum_reference(params, cs, hs, x):
    """Tai et al.'s Child-Sum cell, in NumPy."""
    n = params["W_h_f"]["W"].shape[0]
    wx = linear(params["W_x"], x)
    a, i, o, f_in = (wx[:, k * n : (k + 1) * n] for k in range(4))
    aio = linear(params["W_h_aio"], sum(hs)) if hs else 0
    a, i, o = (g + (aio[:, k * n : (k + 1) * n] if hs else 0) for k, g in enumerate((a, i, o)))
    c = numpy.tanh(a) * sigmoid(i)
    for c_k, h_k in zip(cs, hs):
        c = c + sigmoid(f_in + linear(params["W_h_f"], h_k)) * c_k
    return c, sigmoid(o) * numpy.tanh(c)


@pytest.mark.parametrize("n_children", [0, 1, 3])
def test_child_sum_tree_lstm_is_tai_et_als_cell(n_children):
    cell = nn.ChildSumTreeLSTM(3, 2)
    params = float64(cell.init(KEY))
    cs = [rand(4, 2, seed=1 + k) for k in range(n_children)]
    hs = [rand(4, 2, seed=11 + k) for k in range(n_children)]
    x = rand(4, 3, seed=21)
    c, h = cell(params, *cs, *hs, x)
    c_ref, h_ref = child_sum_reference(params, cs, hs, x)
    numpy.testing.assert_allclose(c, c_ref, rtol=RTOL)
    numpy.testing.assert_allclose(h, h_ref, rtol=RTOL)


def test_child_sum_tree_lstm_fills_missing_children_and_input_with_zeros():
    cell = nn.ChildSumTreeLSTM(3, 2)
    params = float64(cell.init(KEY))
    c1, h1 = rand(4, 2, seed=1), rand(4, 2, seed=2)
    zeros2, zeros3 = numpy.zeros((4, 2)), numpy.zeros((4, 3))
    got = cell(params, c1, None, h1, None, None)
    want = cell(params, c1, zeros2, h1, zeros2, zeros3)
    for a, b in zip(got, want):
        numpy.testing.assert_allclose(a, b, rtol=RTOL)


def test_gradients_through_the_child_sum_tree_lstm():
    cell = nn.ChildSumTreeLSTM(3, 2)
    params = float64(cell.init(KEY))
    args = (
        rand(2, 2, seed=1),
        rand(2, 2, seed=2),
        rand(2, 2, seed=3),
        rand(2, 2, seed=4),
        rand(2, 3, seed=5),
    )
    check_grads(cell, (params, *args), order=2)


def test_child_sum_tree_lstm_errors_name_the_arguments():
    cell = nn.ChildSumTreeLSTM(3, 2)
    params = cell.init(KEY)
    with pytest.raises(errors.InvalidInputError, match="odd number of inputs"):
        cell(params, numpy.zeros((1, 2), numpy.float32), numpy.zeros((1, 3), numpy.float32))
    with pytest.raises(errors.InvalidInputError, match=r"All inputs \(cs, hs, x\) are None"):
        cell(params, None, None, None)


def test_a_lazy_child_sum_tree_lstm_sizes_w_x_from_the_example():
    cell = nn.ChildSumTreeLSTM(None, 2)
    assert cell.lazy and cell.shapes()["W_x"] == {"W": None, "b": (8,)}
    params = cell.init(KEY, numpy.zeros((1, 5), numpy.float32))
    assert params["W_x"]["W"].shape == (8, 5)


# -- NaryTreeLSTM -----------------------------------------------------------------------------
def nary_reference(params, cs, hs, x):
    """Bowman et al.'s N-ary cell with one forget gate per child position, in NumPy."""
    n = params["W_h1"]["W"].shape[1]
    gates = linear(params["W_x"], x) + sum(linear(params[f"W_h{k}"], h) for k, h in enumerate(hs, 1))
    a, i, o, *fs = (gates[:, k * n : (k + 1) * n] for k in range(3 + len(cs)))
    c = numpy.tanh(a) * sigmoid(i) + sum(sigmoid(f) * c_k for f, c_k in zip(fs, cs))
    return c, sigmoid(o) * numpy.tanh(c)


@pytest.mark.parametrize("n_ary", [1, 3])
def test_nary_tree_lstm_gives_each_child_position_its_weights(n_ary):
    cell = nn.NaryTreeLSTM(3, 2, n_ary)
    params = float64(cell.init(KEY))
    assert sorted(params) == sorted(["W_x", *(f"W_h{k}" for k in range(1, n_ary + 1))])
    cs = [rand(4, 2, seed=1 + k) for k in range(n_ary)]
    hs = [rand(4, 2, seed=11 + k) for k in range(n_ary)]
    x = rand(4, 3, seed=21)
    for got, want in zip(cell(params, *cs, *hs, x), nary_reference(params, cs, hs, x)):
        numpy.testing.assert_allclose(got, want, rtol=RTOL)


def test_gradients_through_the_nary_tree_lstm():
    cell = nn.NaryTreeLSTM(3, 2, 2)
    params = float64(cell.init(KEY))
    args = (
        rand(2, 2, seed=1),
        rand(2, 2, seed=2),
        rand(2, 2, seed=3),
        rand(2, 2, seed=4),
        rand(2, 3, seed=5),
    )
    check_grads(cell, (params, *args), order=2)


def test_nary_tree_lstm_errors_name_the_arguments():
    with pytest.raises(errors.InvalidInputError, match="n_ary >= 1"):
        nn.NaryTreeLSTM(3, 2, 0)
    cell = nn.NaryTreeLSTM(3, 2, 2)
    with pytest.raises(errors.InvalidInputError, match="expected 5 inputs"):
        cell(cell.init(KEY), None, None, numpy.zeros((1, 3), numpy.float32))


# -- StatefulPeepholeLSTM ---------------------------------------------------------------------
def peephole_reference(params, x, c, h):
    """The peephole LSTM step, in NumPy (gates interleaved per unit: a, i, f, o)."""
    gates = linear(params["upward"], x) + (0 if h is None else linear(params["lateral"], h))
    n = gates.shape[1] // 4
    a, i, f, o = (gates.reshape(len(x), n, 4)[:, :, k] for k in range(4))
    c = numpy.zeros((len(x), n)) if c is None else c
    c_new = (
        numpy.tanh(a) * sigmoid(i + linear(params["peep_i"], c))
        + sigmoid(f + linear(params["peep_f"], c)) * c
    )
    return c_new, sigmoid(o + linear(params["peep_o"], c_new)) * numpy.tanh(c_new)


def test_peephole_lstm_steps_with_explicit_state():
    lstm = nn.StatefulPeepholeLSTM(3, 2)
    params = float64(lstm.init(KEY))
    assert sorted(params) == ["lateral", "peep_f", "peep_i", "peep_o", "upward"]
    state = lstm.init_state()
    c, h = None, None
    for step in range(2):
        x = rand(4, 3, seed=step)
        y, state = lstm(params, x, state)
        c, h = peephole_reference(params, x, c, h)
        numpy.testing.assert_allclose(state["c"], c, rtol=RTOL)
        numpy.testing.assert_allclose(y, h, rtol=RTOL)
        assert state["h"] is y


def test_gradients_through_two_peephole_steps():
    lstm = nn.StatefulPeepholeLSTM(3, 2)

    def run(params, x):
        _, state = lstm(params, x, lstm.init_state())
        return lstm(params, x * 2.0, state)[1]["c"]

    check_grads(run, (float64(lstm.init(KEY)), rand(2, 3)), order=2)


def test_a_lazy_peephole_lstm_sizes_upward_from_the_example():
    lstm = nn.StatefulPeepholeLSTM(None, 2)
    assert lstm.shapes()["upward"]["W"] is None
    assert lstm.init(KEY, numpy.zeros((1, 6), numpy.float32))["upward"]["W"].shape == (8, 6)
    with pytest.raises(errors.InvalidInputError, match="init_state"):
        lstm(lstm.init(KEY, numpy.zeros((1, 6))), numpy.zeros((1, 6)), None)


# -- spectral normalization -------------------------------------------------------------------
def test_spectral_normalize_divides_by_the_largest_singular_value():
    W = rand(4, 3, 2)
    W_sn, u = nn.spectral_normalize(W, rand(4, seed=1), n_power_iteration=200, eps=0.0)
    sigma = numpy.linalg.svd(W.reshape(4, -1), compute_uv=False)[0]
    numpy.testing.assert_allclose(W_sn, W / sigma, rtol=1e-10)
    left = numpy.linalg.svd(W.reshape(4, -1))[0][:, 0]
    numpy.testing.assert_allclose(numpy.abs(u), numpy.abs(left), rtol=1e-8)


def test_spectral_normalize_on_the_output_axis_and_with_a_factor():
    W = rand(3, 4, 2)  # a deconvolution's layout: the output axis is 1
    W_sn, u = nn.spectral_normalize(W, rand(4, seed=1), n_power_iteration=200, eps=0.0, axis=1, factor=2.0)
    assert u.shape == (4,)
    sigma = numpy.linalg.svd(W.transpose(1, 0, 2).reshape(4, -1), compute_uv=False)[0]
    numpy.testing.assert_allclose(W_sn, 2.0 * W / sigma, rtol=1e-10)


def test_one_power_iteration_step_is_the_textbook_step():
    W, u0 = rand(3, 5), rand(3, seed=1)
    _, u = nn.spectral_normalize(W, u0, eps=1e-6)
    v = u0 @ W / (numpy.linalg.norm(u0 @ W) + 1e-6)
    numpy.testing.assert_allclose(u, W @ v / (numpy.linalg.norm(W @ v) + 1e-6), rtol=RTOL)


def test_gradients_reach_the_weight_through_the_singular_value_only():
    """The singular vectors are held fixed (no gradient through the power iteration): to order
    2 with ``u`` and ``v`` fixed, and to order 1 through ``spectral_normalize`` once converged
    (the vectors' own change then moves ``sigma`` by second-order terms only)."""
    u, v = power_iteration(rand(3, 4, seed=2), rand(3, seed=1), 3)
    check_grads(lambda W: W / max_singular_value(as_matrix(W), u, v), (rand(3, 2, 2, seed=2),), order=2)
    W = rand(3, 2, 2, seed=3)
    u, _ = power_iteration(as_matrix(W), rand(3, seed=1), 500, 0.0)
    check_grads(lambda W: nn.spectral_normalize(W, u, n_power_iteration=50, eps=0.0)[0], (W,), order=1)
