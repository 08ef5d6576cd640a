"""Recurrent links: Chainer's LSTM numbers over steps with a shrinking batch
(tests/golden/make_links_state.py), the state attributes, the GRU, MGU, zoneout and NStep links."""

import pathlib

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.functions as F
import fnet.compat.links as L
from fnet import nn

GOLDEN = numpy.load(pathlib.Path(__file__).parents[2] / "golden" / "links_state.npz")


def close(actual, key):
    numpy.testing.assert_allclose(getattr(actual, "array", actual), GOLDEN[key], rtol=1e-5, atol=1e-6)


def ones(*shape):
    return numpy.ones(shape, numpy.float32)


def test_lstm_steps_and_gradients_match_chainer():
    lstm = L.LSTM(3, 4)
    lstm.upward.W.array[...] = GOLDEN["lstm.upward_W"]
    lstm.upward.b.array[...] = GOLDEN["lstm.upward_b"]
    lstm.lateral.W.array[...] = GOLDEN["lstm.lateral_W"]
    xs = [chainer.Variable(GOLDEN[f"lstm.x{step}"]) for step in (1, 2, 3)]
    loss = 0
    for step, x in enumerate(xs, 1):
        y = lstm(x)
        loss = loss + F.sum(GOLDEN[f"lstm.w{step}"] * y)
        close(y, f"lstm.y{step}")
        close(lstm.c, f"lstm.c{step}")
        close(lstm.h, f"lstm.h{step}")
    lstm.cleargrads()  # Chainer's parameters start with NaN gradients (as the golden maker does)
    loss.backward()
    close(lstm.upward.W.grad, "lstm.g_upward_W")
    close(lstm.upward.b.grad, "lstm.g_upward_b")
    close(lstm.lateral.W.grad, "lstm.g_lateral_W")
    close(xs[0].grad, "lstm.gx1")


def test_lstm_initial_values_and_attributes():
    lstm = L.LSTM(3, 4)
    close(lstm.upward.b, "lstm.default_b")
    assert (lstm.state_size, lstm.bias_init, lstm.forget_bias_init, lstm.lateral_init) == (4, 0, 1, None)
    assert isinstance(lstm.upward, L.Linear) and lstm.lateral.b is None


def test_lstm_state_reset_and_set():
    lstm = L.LSTM(3, 2)
    assert lstm.c is None and lstm.h is None
    y = lstm(ones(4, 3))
    assert lstm.h is y and lstm.c.shape == (4, 2)
    lstm.reset_state()
    assert lstm.c is None and lstm.h is None
    c, h = chainer.Variable(ones(4, 2)), chainer.Variable(numpy.zeros((4, 2), numpy.float32))
    lstm.set_state(c, h)
    assert lstm.c is c and lstm.h is h
    expected_c, expected_h = nn.StatelessLSTM(3, 2).apply(lstm.params_tree(), c.array, h.array, ones(4, 3))
    lstm(ones(4, 3))
    numpy.testing.assert_allclose(lstm.c.array, expected_c, rtol=1e-6)
    numpy.testing.assert_allclose(lstm.h.array, expected_h, rtol=1e-6)
    with pytest.raises(AssertionError, match="expected c to be a Variable"):
        lstm.set_state(ones(4, 2), h)
    lstm.to_device("@numpy")
    assert lstm.c.device == lstm.device


def test_a_larger_batch_than_the_state_is_chainers_type_error():
    lstm = L.LSTM(3, 2)
    lstm(ones(2, 3))
    with pytest.raises(TypeError, match="LSTM.forward: expected len\\(x\\) <= len\\(h\\), got 3 > 2"):
        lstm(ones(3, 3))


def test_stateless_lstm_takes_and_returns_the_state():
    cell = L.StatelessLSTM(3, 2)
    c, h = cell(None, None, ones(4, 3))
    assert isinstance(c, chainer.Variable) and c.shape == h.shape == (4, 2)
    c2, h2 = cell(c, h, ones(4, 3))
    assert c2.shape == (4, 2)


def test_gru_is_stateful_and_refuses_the_v1_call():
    gru = L.GRU(3, 2)
    x = ones(4, 3)
    h = gru(x)
    expected = F.sigmoid(gru.W_z(x)) * F.tanh(gru.W(x))
    numpy.testing.assert_allclose(h.array, expected.array, rtol=1e-6)
    assert gru.h is h and gru.state_size == 2
    with pytest.raises(ValueError, match="Use chainer.links.StatelessGRU instead"):
        gru(ones(4, 2), x)
    with pytest.raises(ValueError, match="must be 1. But 0 is given"):
        gru()
    gru.reset_state()
    assert gru.h is None
    gru.set_state(chainer.Variable(h.array))
    assert gru(x).shape == (4, 2)


def test_mgu_links():
    mgu = L.StatefulMGU(3, 2)
    assert mgu(ones(4, 3)).shape == (4, 2) and mgu.h.shape == (4, 2)
    mgu.set_state(chainer.Variable(numpy.zeros((4, 2), numpy.float32)))
    assert mgu(ones(4, 3)).shape == (4, 2)
    cell = L.StatelessMGU(3, 2)
    assert cell(numpy.zeros((4, 2), numpy.float32), ones(4, 3)).shape == (4, 2)
    assert sorted(name for name, _ in cell.namedparams()) == ["/W_f/W", "/W_f/b", "/W_h/W", "/W_h/b"]


def test_zoneout_lstm_draws_from_numpy_and_is_plain_in_test_mode():
    def run():
        numpy.random.seed(5)
        lstm = L.StatefulZoneoutLSTM(3, 2, c_ratio=0.3, h_ratio=0.6)
        return lstm, [lstm(ones(4, 3)).array for _ in range(2)]

    (lstm, first), (_, second) = run(), run()
    numpy.testing.assert_array_equal(first, second)
    assert (lstm.c_ratio, lstm.h_ratio) == (0.3, 0.6)
    lstm.reset_state()
    with chainer.using_config("train", False):
        y = lstm(ones(4, 3))
    spec = nn.StatefulZoneoutLSTM(3, 2, 0.3, 0.6)
    expected, _ = spec.apply(lstm.params_tree(), ones(4, 3), spec.init_state(), train=False)
    numpy.testing.assert_allclose(y.array, expected, rtol=1e-6)


def test_zoneout_lstm_state_is_made_by_zoneout_nodes_with_their_flags():
    """``c.creator`` and ``h.creator`` are Chainer's Zoneout nodes: each new element is the
    previous one where ``flag_h`` is set and the LSTM's new value where ``flag_x`` is."""
    numpy.random.seed(3)
    lstm = L.StatefulZoneoutLSTM(3, 2, c_ratio=0.5, h_ratio=0.5)
    x = numpy.random.RandomState(0).randn(4, 3).astype(numpy.float32)
    lstm(x)
    c1, h1 = lstm.c.array.copy(), lstm.h.array.copy()
    h = lstm(x)
    c_node, h_node = lstm.c.creator, h.creator
    assert type(c_node).__name__ == "Zoneout" and h is lstm.h
    c_new, h_new = F.lstm(c1, x @ lstm.upward.W.array.T + lstm.upward.b.array + h1 @ lstm.lateral.W.array.T)
    for node, before, new, after in (
        (c_node, c1, c_new.array, lstm.c.array),
        (h_node, h1, h_new.array, h.array),
    ):
        numpy.testing.assert_array_equal(node.flag_h + node.flag_x, numpy.ones((4, 2)))
        numpy.testing.assert_allclose(after, before * node.flag_h + new * node.flag_x, rtol=1e-6, atol=1e-7)


def test_nstep_lstm_interface():
    rnn = L.NStepLSTM(2, 3, 4, 0.0)
    xs = [ones(5, 3), ones(2, 3), ones(4, 3)]
    hy, cy, ys = rnn(None, None, xs)
    assert hy.shape == cy.shape == (2, 3, 4)
    assert isinstance(ys, list) and [y.shape for y in ys] == [(5, 4), (2, 4), (4, 4)]
    assert all(isinstance(y, chainer.Variable) for y in ys)
    assert (rnn.n_layers, rnn.out_size, rnn.direction, rnn.n_weights, rnn.n_cells) == (2, 4, 1, 8, 2)
    assert len(rnn) == 2 and len(rnn.ws) == 2 and len(rnn.ws[0]) == 8 and rnn.bs[1][7] is rnn[1].b7
    assert rnn.init_hx(xs).shape == (2, 3, 4)
    with pytest.raises(ValueError, match="train argument is not supported anymore"):
        rnn(None, None, xs, train=False)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        rnn(None, None, xs, volatile=True)


def test_nstep_dropout_applies_in_training_only():
    rnn = L.NStepBiGRU(2, 3, 4, 0.5)
    assert (rnn.direction, rnn.n_weights, rnn.n_cells, rnn.dropout) == (2, 6, 1, 0.5)
    xs = [ones(3, 3), ones(2, 3)]
    _, train1 = rnn(None, xs)
    _, train2 = rnn(None, xs)
    assert not numpy.allclose(train1[0].array, train2[0].array)
    with chainer.using_config("train", False):
        _, test1 = rnn(None, xs)
        _, test2 = rnn(None, xs)
    numpy.testing.assert_array_equal(test1[0].array, test2[0].array)
    assert test1[0].shape == (3, 8)


def test_chainers_rnn_base_classes_and_helpers():
    from fnet.compat.links import rnn

    assert all(issubclass(c, rnn.GRUBase) for c in (L.GRU, L.StatefulGRU, L.StatelessGRU))
    assert all(issubclass(c, rnn.LSTMBase) for c in (L.LSTM, L.StatelessLSTM))
    assert all(issubclass(c, rnn.MGUBase) for c in (L.StatefulMGU, L.StatelessMGU))
    assert not issubclass(L.StatelessMGU, rnn.GRUBase)
    assert all(issubclass(c, rnn.NStepGRUBase) for c in (L.NStepGRU, L.NStepBiGRU))
    assert all(issubclass(c, rnn.NStepLSTMBase) for c in (L.NStepLSTM, L.NStepBiLSTM))
    assert issubclass(L.NStepRNNTanh, rnn.NStepRNNBase) and not issubclass(L.NStepRNNTanh, rnn.NStepGRUBase)
    order = rnn.argsort_list_descent([[1], [1, 2, 3], [1, 2]])
    assert order.dtype == numpy.int32 and order.tolist() == [1, 2, 0]
    moved = rnn.permutate_list(["a", "b", "c"], order, False)
    assert moved == ["b", "c", "a"] and rnn.permutate_list(moved, order, True) == ["a", "b", "c"]
