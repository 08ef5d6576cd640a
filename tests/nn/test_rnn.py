"""Recurrent layers against Chainer 7.8.1 (golden data from tests/golden/make_nn_rnn_norm.py):
parameter names and shapes, initializers, steps with explicit state, NStep layers on unsorted
sequences, zoneout and dropout, gradients, errors."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import errors, nn
from fnet.testing import check_grads

from .test_normalization import Golden, assert_close

KEY = fnet.random.key(0)
GOLDEN = Golden("nn_rnn.npz")

NSTEP = {
    "nstep_lstm": (nn.NStepLSTM, 2),
    "nstep_bilstm": (nn.NStepBiLSTM, 2),
    "nstep_gru": (nn.NStepGRU, 2),
    "nstep_bigru": (nn.NStepBiGRU, 1),
    "nstep_rnn_tanh": (nn.NStepRNNTanh, 2),
    "nstep_rnn_relu": (nn.NStepRNNReLU, 1),
    "nstep_birnn_tanh": (nn.NStepBiRNNTanh, 1),
    "nstep_birnn_relu": (nn.NStepBiRNNReLU, 2),
}
CELLS = {
    "lstm": nn.LSTM(3, 4),
    "stateless_lstm": nn.StatelessLSTM(3, 4),
    "stateful_gru": nn.StatefulGRU(3, 4),
    "gru": nn.GRU(3, 4),
    "stateless_gru": nn.StatelessGRU(3, 4),
    "stateless_mgu": nn.StatelessMGU(3, 4),
    "stateful_mgu": nn.StatefulMGU(3, 4),
    "zoneout_lstm": nn.StatefulZoneoutLSTM(3, 4, c_ratio=0.3, h_ratio=0.6),
}
LAYERS = {**CELLS, **{case: cls(n_layers, 3, 4, 0.25) for case, (cls, n_layers) in NSTEP.items()}}


def rand(*shape, seed=0):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape)


# -- parameters ---------------------------------------------------------------------------------
@pytest.mark.parametrize("case", sorted(LAYERS))
def test_params_have_chainers_names_and_shapes(case):
    GOLDEN.assert_names(case, LAYERS[case].init(KEY))


def test_lstm_bias_starts_with_the_forget_gates_at_one():
    golden = GOLDEN.case("lstm_init")
    assert_close(nn.LSTM(3, 4).init(KEY)["upward"]["b"], golden["b"])
    custom = nn.LSTM(2, 3, bias_init=0.5, forget_bias_init=-2).init(KEY)
    assert_close(custom["upward"]["b"], golden["b_custom"])


def test_lstm_weights_are_lecun_normal_per_gate_block():
    params = nn.LSTM(400, 100).init(KEY)
    upward, lateral = params["upward"]["W"], params["lateral"]["W"]
    assert upward.shape == (400, 400) and lateral.shape == (400, 100)
    for block in range(4):
        rows = slice(100 * block, 100 * (block + 1))
        assert abs(upward[rows].std() - (1 / 400) ** 0.5) < 0.003
        assert abs(lateral[rows].std() - (1 / 100) ** 0.5) < 0.006
    orthogonal = nn.LSTM(8, 4, upward_init=fnet.initializers.Orthogonal(scale=1.0)).init(KEY)["upward"]["W"]
    for block in range(4):  # each gate's block is drawn on its own, as in Chainer
        rows = orthogonal[4 * block : 4 * (block + 1)]
        numpy.testing.assert_allclose(rows @ rows.T, numpy.eye(4), atol=1e-5)


@pytest.mark.parametrize("case", ["stateful_gru", "stateless_mgu", "zoneout_lstm", "nstep_bilstm"])
def test_default_weights_are_lecun_normal_and_biases_zero(case):
    layer = {
        "stateful_gru": nn.StatefulGRU(300, 200),
        "stateless_mgu": nn.StatelessMGU(300, 200),
        "zoneout_lstm": nn.StatefulZoneoutLSTM(300, 200),
        "nstep_bilstm": nn.NStepBiLSTM(2, 300, 200, 0.0),
    }[case]
    for path, leaf in fnet.tree.flatten_with_paths(layer.init(KEY)):
        name = path[-1]
        assert leaf.dtype == numpy.float32
        if name.startswith("b"):
            numpy.testing.assert_array_equal(leaf, 0)
        else:
            assert abs(leaf.std() - (1 / leaf.shape[1]) ** 0.5) < 0.1 * (1 / leaf.shape[1]) ** 0.5, path


def test_initializers_are_passed_on():
    gru = nn.StatelessGRU(3, 2, init=1.0, inner_init=2.0, bias_init=3.0).init(KEY)
    assert (gru["W_z"]["W"] == 1).all() and (gru["U"]["W"] == 2).all() and (gru["U_r"]["b"] == 3).all()
    rnn = nn.NStepGRU(1, 3, 2, 0.0, initialW=0.5, initial_bias=-1.0).init(KEY)
    assert (rnn["0"]["w4"] == 0.5).all() and (rnn["0"]["b5"] == -1).all()
    assert nn.StatefulGRU(3, 2).bias_init == 0 and nn.StatelessGRU(3, 2).bias_init is None


def test_lazy_in_size_is_inferred_from_an_example():
    x = numpy.ones((2, 3, 2), numpy.float32)
    assert nn.LSTM(5).init(KEY, x)["upward"]["W"].shape == (20, 6)
    assert nn.StatelessLSTM(5).init(KEY, x)["lateral"]["W"].shape == (20, 5)
    params = nn.StatelessGRU(None, 5).init(KEY, x)
    assert params["W_r"]["W"].shape == (5, 6) and params["U_r"]["W"].shape == (5, 5)
    with pytest.raises(
        errors.InvalidInputError, match=r"LSTM.init: expected an example input x, got None: in_size is None"
    ):
        nn.LSTM(5).init(KEY)


# -- steps against Chainer ----------------------------------------------------------------------
def test_lstm_steps_are_chainers_also_when_the_batch_shrinks():
    golden, params = GOLDEN.case("lstm"), GOLDEN.params("lstm")
    lstm = nn.LSTM(3, 4)
    state = lstm.init_state()
    assert state == {"c": None, "h": None}
    for t in range(3):
        y, state = lstm(params, golden[f"x{t}"], state)
        assert_close(y, golden[f"y{t}"])
        assert_close(state["c"], golden[f"c{t}"])
        assert_close(state["h"], golden[f"h{t}"])


def test_stateless_lstm_is_chainers():
    golden, params = GOLDEN.case("stateless_lstm"), GOLDEN.params("stateless_lstm")
    cell = nn.StatelessLSTM(3, 4)
    c, h = None, None
    for t in range(2):
        c, h = cell(params, c, h, golden[f"x{t}"])
        assert_close(c, golden[f"c{t}"])
        assert_close(h, golden[f"h{t}"])


@pytest.mark.parametrize("case", ["stateful_gru", "gru", "stateful_mgu"])
def test_stateful_cells_are_chainers(case):
    golden, params, layer = GOLDEN.case(case), GOLDEN.params(case), CELLS[case]
    state = layer.init_state()
    for t in range(2):
        y, state = layer(params, golden[f"x{t}"], state)
        assert_close(y, golden[f"y{t}"])
        assert state["h"] is y


@pytest.mark.parametrize("case", ["stateless_gru", "stateless_mgu"])
def test_stateless_cells_are_chainers(case):
    golden = GOLDEN.case(case)
    assert_close(CELLS[case](GOLDEN.params(case), golden["h"], golden["x"]), golden["y"])


def test_zoneout_lstm_in_test_mode_is_chainers():
    golden, params = GOLDEN.case("zoneout_lstm"), GOLDEN.params("zoneout_lstm")
    layer = CELLS["zoneout_lstm"]
    state = layer.init_state()
    for t in range(2):
        y, state = layer(params, golden[f"x{t}"], state, train=False)
        assert_close(y, golden[f"y{t}"])
        assert_close(state["c"], golden[f"c{t}"])
        assert_close(state["h"], golden[f"h{t}"])


@pytest.mark.parametrize("case", sorted(NSTEP))
def test_nstep_layers_are_chainers_on_unsorted_sequences(case):
    golden, params, layer = GOLDEN.case(case), GOLDEN.params(case), LAYERS[case]
    xs = [golden[f"xs{i}"] for i in range(3)]
    cell = "cx" in golden
    given = [golden["hx"], golden["cx"]] if cell else [golden["hx"]]
    for tag, states in (("", given), ("_zero", [None] * len(given))):
        *finals, ys = layer(params, *states, xs, train=False)  # test mode: no dropout
        assert_close(finals[0], golden[f"hy{tag}"])
        if cell:
            assert_close(finals[1], golden[f"cy{tag}"])
        assert isinstance(ys, list) and len(ys) == 3
        for i, y in enumerate(ys):
            assert_close(y, golden[f"ys{tag}{i}"])


# -- randomness: zoneout and dropout --------------------------------------------------------------
def test_zoneout_keeps_the_previous_state_or_takes_the_new_one():
    golden, params = GOLDEN.case("zoneout_lstm"), GOLDEN.params("zoneout_lstm")
    x0, x1 = golden["x0"], golden["x1"]
    never = nn.StatefulZoneoutLSTM(3, 4, c_ratio=0.0, h_ratio=0.0)
    _, state = never(params, x0, never.init_state(), key=KEY)
    y, state = never(params, x1, state, key=fnet.random.key(1))
    assert_close(y, golden["y1"])
    always = nn.StatefulZoneoutLSTM(3, 4, c_ratio=1.0, h_ratio=1.0)
    y, state = always(params, x0, always.init_state(), key=KEY)
    assert not y.any() and not state["c"].any()  # the zero initial state is kept
    layer = nn.StatefulZoneoutLSTM(3, 4, c_ratio=0.5, h_ratio=0.5)
    _, start = layer(params, x0, layer.init_state(), train=False)
    y, state = layer(params, x1, start, key=fnet.random.key(2))
    new_c = layer(params, x1, start, train=False)[1]["c"]
    kept, updated = state["c"] == start["c"], state["c"] == new_c
    assert (kept | updated).all() and kept.any() and updated.any()
    numpy.testing.assert_array_equal(y, layer(params, x1, start, key=fnet.random.key(2))[0])


def test_nstep_dropout_is_drawn_from_the_key_in_training():
    layer = nn.NStepLSTM(2, 3, 4, 0.5)
    params = layer.init(KEY)
    xs = [rand(4, 3).astype(numpy.float32), rand(2, 3, seed=1).astype(numpy.float32)]
    test = layer(params, None, None, xs, train=False)[2]
    a = layer(params, None, None, xs, key=fnet.random.key(1))[2]
    b = layer(params, None, None, xs, key=fnet.random.key(1))[2]
    c = layer(params, None, None, xs, key=fnet.random.key(2))[2]
    for ya, yb, yc, yt in zip(a, b, c, test):
        numpy.testing.assert_array_equal(ya, yb)
        assert not numpy.allclose(ya, yc) and not numpy.allclose(ya, yt)
    with pytest.raises(errors.InvalidInputError, match="n_step_lstm: expected a random key"):
        layer(params, None, None, xs)


# -- purity and composition -----------------------------------------------------------------------
def test_steps_leave_params_and_state_untouched():
    lstm = nn.LSTM(3, 4)
    params = lstm.init(KEY)
    x = rand(2, 3).astype(numpy.float32)
    _, state = lstm(params, x, lstm.init_state())
    before = fnet.tree.map(numpy.copy, (params, state))
    y1, new = lstm(params, x[:1], state)
    assert fnet.testing.tree_allclose((params, state), before, rtol=0)
    numpy.testing.assert_array_equal(lstm(params, x[:1], state)[0], y1)
    assert new["h"].shape == (2, 4)


def test_a_state_with_an_empty_batch_is_kept():
    lstm = nn.LSTM(3, 4)
    params = lstm.init(KEY)
    _, state = lstm(params, numpy.ones((2, 3), numpy.float32), lstm.init_state())
    y, after = lstm(params, numpy.ones((0, 3), numpy.float32), state)
    assert y.shape == (0, 4)
    numpy.testing.assert_array_equal(after["h"], state["h"])
    numpy.testing.assert_array_equal(after["c"], state["c"])


def test_sequential_threads_the_recurrent_state():
    model = nn.Sequential(nn.LSTM(3, 4), nn.Linear(4, 2))
    params, state = model.init(KEY), model.init_state()
    assert state == {"0": {"c": None, "h": None}}
    x = numpy.ones((5, 3), numpy.float32)
    y1, state = model(params, x, state)
    y2, state = model(params, x, state)
    assert y1.shape == y2.shape == (5, 2) and not numpy.allclose(y1, y2)


# -- gradients ----------------------------------------------------------------------------------
def float64(params):
    return fnet.tree.map(lambda a: a.astype(numpy.float64), params)


def test_gradients_through_two_lstm_steps():
    lstm = nn.LSTM(3, 2)
    params = float64(lstm.init(KEY))

    def run(params, x):
        y, state = lstm(params, x, lstm.init_state())
        return lstm(params, x[:2] * 2.0, state)[1]["h"]

    check_grads(run, (params, rand(3, 3)), order=2)


@pytest.mark.parametrize("case", ["stateless_gru", "stateless_mgu", "stateless_lstm"])
def test_gradients_through_stateless_cells(case):
    cell = {
        "stateless_gru": nn.StatelessGRU(3, 2),
        "stateless_mgu": nn.StatelessMGU(3, 2),
        "stateless_lstm": nn.StatelessLSTM(3, 2),
    }[case]
    params, x, h = float64(cell.init(KEY)), rand(2, 3), rand(2, 2, seed=1)
    states = (rand(2, 2, seed=2), h) if case == "stateless_lstm" else (h,)  # (c, h) or h
    check_grads(cell, (params, *states, x), order=2)


def test_gradients_through_nstep_layers():
    lstm = nn.NStepBiLSTM(2, 2, 2, 0.0)
    xs = [rand(3, 2), rand(1, 2, seed=1)]
    check_grads(
        lambda p, h, c, xs: lstm(p, h, c, xs),
        (float64(lstm.init(KEY)), rand(4, 2, 2), rand(4, 2, 2), xs),
        order=1,
    )
    gru = nn.NStepGRU(1, 2, 2, 0.0)
    check_grads(lambda p, xs: gru(p, None, xs), (float64(gru.init(KEY)), xs), order=1)


# -- errors -------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", ["lstm", "stateful_gru", "stateful_mgu", "zoneout_lstm"])
def test_stateful_layers_need_their_state(case):
    layer = CELLS[case]
    x = numpy.ones((2, 3), numpy.float32)
    name = type(layer).__name__
    with pytest.raises(
        errors.InvalidInputError, match=rf"{name}.apply: expected state to be a dict with the keys"
    ):
        layer(layer.init(KEY), x, {}, train=False)


def test_gru_called_the_v1_way_points_to_stateless_gru():
    gru = nn.GRU(3, 2)
    h, x = numpy.zeros((1, 2), numpy.float32), numpy.ones((1, 3), numpy.float32)
    with pytest.raises(errors.InvalidInputError, match=r"float32\[1, 3\]\n  hint: .*use StatelessGRU"):
        gru(gru.init(KEY), h, x)


def test_lstm_batch_cannot_grow():
    lstm = nn.LSTM(3, 4)
    params = lstm.init(KEY)
    _, state = lstm(params, numpy.ones((1, 3), numpy.float32), lstm.init_state())
    with pytest.raises(
        errors.ShapeError, match=r"LSTM.apply: expected len\(x\) <= len\(state\['h'\]\), got 2 > 1"
    ):
        lstm(params, numpy.ones((2, 3), numpy.float32), state)


def test_zoneout_needs_a_key_in_training():
    layer = nn.StatefulZoneoutLSTM(3, 2)
    with pytest.raises(
        errors.InvalidInputError, match=r"StatefulZoneoutLSTM.apply: expected a random key.*\n.*hint"
    ):
        layer(layer.init(KEY), numpy.ones((1, 3), numpy.float32), layer.init_state())


@pytest.mark.parametrize("xs", [[], numpy.ones((2, 3), numpy.float32), "abc"])
def test_nstep_layers_need_a_list_of_sequences(xs):
    layer = nn.NStepRNNTanh(1, 3, 2, 0.0)
    with pytest.raises(
        errors.InvalidInputError, match=r"NStepRNNTanh.apply: expected xs to be a non-empty list"
    ):
        layer(layer.init(KEY), None, xs)


def test_nstep_input_errors_come_from_the_functions():
    layer = nn.NStepLSTM(1, 3, 2, 0.0)
    with pytest.raises(errors.ShapeError, match="n_step_lstm"):
        layer(layer.init(KEY), None, None, [numpy.ones((2, 5), numpy.float32)])
