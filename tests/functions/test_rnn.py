"""Tests of fnet.functions' stacked recurrent networks (n_step_lstm, n_step_gru, n_step_rnn and
their bidirectional versions): forward values against a NumPy reference that runs each sequence
on its own, one time step at a time, with Chainer's weight layout; derivatives to order 2
(float64, tiny sizes); dropout between layers; and the error messages."""

from __future__ import annotations

import numpy
import pytest

import fnet
import fnet.functions as F
from fnet.errors import DTypeError, InvalidInputError, ShapeError
from fnet.testing import check_grads

TOL = {
    numpy.float16: dict(rtol=2e-2, atol=2e-2),
    numpy.float32: dict(rtol=1e-5, atol=1e-6),
    numpy.float64: dict(rtol=1e-12, atol=1e-12),
}


def sigmoid(v):
    return 1 / (1 + numpy.exp(-v))


# -- reference -------------------------------------------------------------------------------
# Cells on one sequence element: (x (I,), h (N,), c (N,) or None, W list, b list) -> (h, c).
def lstm_cell(x, h, c, W, b):
    i = sigmoid(W[0] @ x + W[4] @ h + b[0] + b[4])
    f = sigmoid(W[1] @ x + W[5] @ h + b[1] + b[5])
    a = numpy.tanh(W[2] @ x + W[6] @ h + b[2] + b[6])
    o = sigmoid(W[3] @ x + W[7] @ h + b[3] + b[7])
    c = f * c + i * a
    return o * numpy.tanh(c), c


def gru_cell(x, h, c, W, b):
    r = sigmoid(W[0] @ x + W[3] @ h + b[0] + b[3])
    z = sigmoid(W[1] @ x + W[4] @ h + b[1] + b[4])
    candidate = numpy.tanh(W[2] @ x + b[2] + r * (W[5] @ h + b[5]))
    return (1 - z) * candidate + z * h, None


def rnn_cell(activation):
    def cell(x, h, c, W, b):
        v = W[0] @ x + W[1] @ h + b[0] + b[1]
        return (numpy.tanh(v) if activation == "tanh" else numpy.maximum(v, 0)), None

    return cell


def reference(cell, n_layers, directions, hx, cx, ws, bs, xs):
    """Each sequence run separately over its own time steps: returns (hy, cy, ys)."""
    lengths = [sum(1 for x in xs if len(x) > m) for m in range(len(xs[0]))]
    sequences = [[xs[t][m] for t in range(lengths[m])] for m in range(len(lengths))]
    hy, cy = hx.astype(numpy.float64), None if cx is None else cx.astype(numpy.float64)
    for layer in range(n_layers):
        outputs = [[[] for _ in range(directions)] for _ in sequences]
        for d in range(directions):
            s = layer * directions + d
            for m, seq in enumerate(sequences):
                h, c = hx[s, m], None if cx is None else cx[s, m]
                for x in seq[::-1] if d else seq:
                    h, c = cell(x, h, c, ws[s], bs[s])
                    outputs[m][d].append(h)
                hy[s, m] = h
                if cx is not None:
                    cy[s, m] = c
        sequences = [
            [
                numpy.concatenate([out[d][::-1][t] if d else out[d][t] for d in range(directions)])
                for t in range(len(out[0]))
            ]
            for out in outputs
        ]
    ys = [numpy.stack([sequences[m][t] for m in range(len(xs[t]))]) for t in range(len(xs))]
    return hy, cy, ys


# -- problems --------------------------------------------------------------------------------
KINDS = {  # name: (function, matrices, acting on the input, reference cell, directions, has cell state)
    "lstm": (F.n_step_lstm, 8, 4, lstm_cell, 1, True),
    "bilstm": (F.n_step_bilstm, 8, 4, lstm_cell, 2, True),
    "gru": (F.n_step_gru, 6, 3, gru_cell, 1, False),
    "bigru": (F.n_step_bigru, 6, 3, gru_cell, 2, False),
    "rnn": (F.n_step_rnn, 2, 1, rnn_cell("tanh"), 1, False),
    "birnn": (F.n_step_birnn, 2, 1, rnn_cell("tanh"), 2, False),
}


def problem(kind, n_layers=2, lengths=(4, 2, 4, 1, 3), I=3, N=4, extra_rows=0, dtype=numpy.float64, seed=0):  # noqa: E741
    """Random inputs in Chainer's layout: sequences sorted by length and transposed."""
    _, n_weights, n_input, _, directions, cell_state = KINDS[kind]
    rng = numpy.random.RandomState(seed)
    lengths = sorted(lengths, reverse=True)
    xs = [rng.uniform(-1, 1, (sum(1 for n in lengths if n > t), I)).astype(dtype) for t in range(lengths[0])]
    S, B = n_layers * directions, len(lengths) + extra_rows
    ws = [
        [
            rng.uniform(
                -0.8, 0.8, (N, (I if s < directions else N * directions) if j < n_input else N)
            ).astype(dtype)
            for j in range(n_weights)
        ]
        for s in range(S)
    ]
    bs = [[rng.uniform(-0.5, 0.5, N).astype(dtype) for _ in range(n_weights)] for _ in range(S)]
    hx = rng.uniform(-1, 1, (S, B, N)).astype(dtype)
    cx = rng.uniform(-1, 1, (S, B, N)).astype(dtype) if cell_state else None
    return dict(n_layers=n_layers, hx=hx, cx=cx, ws=ws, bs=bs, xs=xs)


def run(kind, p, dropout_ratio=0.0, **kwargs):
    """Call the function under test; always returns (hy, cy, ys), cy None without cell state."""
    fn, *_, cell_state = KINDS[kind]
    states = (p["hx"], p["cx"]) if cell_state else (p["hx"],)
    out = fn(p["n_layers"], dropout_ratio, *states, p["ws"], p["bs"], p["xs"], **kwargs)
    return out if cell_state else (out[0], None, out[1])


def as64(p):
    return fnet.tree.map(lambda a: a.astype(numpy.float64) if isinstance(a, numpy.ndarray) else a, p)


# -- forward ---------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
@pytest.mark.parametrize(
    "n_layers, lengths, extra_rows",
    [(2, (4, 2, 4, 1, 3), 1), (1, (3,), 0), (3, (2, 2, 1), 0)],
)
def test_forward(kind, dtype, n_layers, lengths, extra_rows):
    p = problem(kind, n_layers, lengths, extra_rows=extra_rows, dtype=dtype)
    hy, cy, ys = run(kind, p)
    q = as64(p)
    expected = reference(
        KINDS[kind][3], n_layers, KINDS[kind][4], q["hx"], q["cx"], q["ws"], q["bs"], q["xs"]
    )
    for actual, wanted in zip([hy, cy, *ys], [expected[0], expected[1], *expected[2]]):
        if wanted is None:
            assert actual is None
            continue
        assert actual.dtype == dtype and actual.shape == wanted.shape
        numpy.testing.assert_allclose(actual, wanted, **TOL[dtype])
    assert isinstance(ys, tuple) and len(ys) == len(p["xs"])


@pytest.mark.parametrize("kind", ["lstm", "bigru"])
def test_forward_float16(kind):
    p = problem(kind, dtype=numpy.float16)
    hy, _, ys = run(kind, p)
    q = as64(p)
    expected = reference(KINDS[kind][3], 2, KINDS[kind][4], q["hx"], q["cx"], q["ws"], q["bs"], q["xs"])
    assert hy.dtype == numpy.float16
    numpy.testing.assert_allclose(hy, expected[0], **TOL[numpy.float16])
    numpy.testing.assert_allclose(ys[-1], expected[2][-1], **TOL[numpy.float16])


@pytest.mark.parametrize("bidirectional", [False, True])
def test_rnn_relu(bidirectional):
    kind = "birnn" if bidirectional else "rnn"
    p = problem(kind)
    fn = F.n_step_birnn if bidirectional else F.n_step_rnn
    hy, ys = fn(2, 0.0, p["hx"], p["ws"], p["bs"], p["xs"], activation="relu")
    expected = reference(
        rnn_cell("relu"), 2, 2 if bidirectional else 1, p["hx"], None, p["ws"], p["bs"], p["xs"]
    )
    numpy.testing.assert_allclose(hy, expected[0], **TOL[numpy.float64])
    for y, wanted in zip(ys, expected[2]):
        numpy.testing.assert_allclose(y, wanted, **TOL[numpy.float64])


# -- derivatives -----------------------------------------------------------------------------
@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("n_layers, lengths, extra_rows", [(2, (2, 1), 1), (1, (2, 2), 0)])
def test_grads(kind, n_layers, lengths, extra_rows):
    p = problem(kind, n_layers, lengths, I=2, N=2, extra_rows=extra_rows)
    cell_state = KINDS[kind][5]
    states = [p["hx"], p["cx"]] if cell_state else [p["hx"]]

    def f(*args):
        *states, ws, bs, xs = args
        out = KINDS[kind][0](n_layers, 0.0, *states, ws, bs, xs)
        return out[:-1] + tuple(out[-1])

    check_grads(f, [*states, p["ws"], p["bs"], p["xs"]], order=2)


# -- dropout ---------------------------------------------------------------------------------
def test_dropout_is_drawn_from_the_key_between_layers():
    p = problem("lstm", n_layers=2)
    plain = run("lstm", p)
    a = run("lstm", p, 0.5, key=fnet.random.key(0))
    b = run("lstm", p, 0.5, key=fnet.random.key(0))
    c = run("lstm", p, 0.5, key=fnet.random.key(1))
    numpy.testing.assert_array_equal(a[0], b[0])
    assert not numpy.allclose(a[0], c[0])
    assert not numpy.allclose(a[0][1], plain[0][1])
    numpy.testing.assert_allclose(a[0][0], plain[0][0])  # the first layer's input is never dropped
    numpy.testing.assert_allclose(run("lstm", p, 0.5, train=False)[0], plain[0])


def test_single_layer_has_no_dropout_and_needs_no_key():
    p = problem("gru", n_layers=1)
    numpy.testing.assert_allclose(run("gru", p, 0.9)[0], run("gru", p)[0])


def test_dropout_gradients_use_the_same_mask():
    p = problem("bilstm", n_layers=2, lengths=(2, 1), I=2, N=2)
    key = fnet.random.key(3)

    def f(hx, cx, ws):
        hy, cy, ys = F.n_step_bilstm(2, 0.3, hx, cx, ws, p["bs"], p["xs"], key=key)
        return hy, cy, *ys

    check_grads(f, [p["hx"], p["cx"], p["ws"]], order=2)


# -- errors ----------------------------------------------------------------------------------
def test_errors():
    p = problem("lstm")
    hx, cx, ws, bs, xs = p["hx"], p["cx"], p["ws"], p["bs"], p["xs"]
    with pytest.raises(ShapeError, match=r"n_step_lstm: expected xs\[1\].shape\[0\] <= xs\[0\].shape\[0\]"):
        F.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs[::-1])
    with pytest.raises(ShapeError, match=r"sort the sequences by decreasing length"):
        F.n_step_lstm(2, 0.0, hx, cx, ws, bs, xs[::-1])
    with pytest.raises(ShapeError, match=r"n_step_lstm: expected hx and cx of shape \(n_layers \* 1, B, N\)"):
        F.n_step_lstm(2, 0.0, hx[:1], cx[:1], ws, bs, xs)
    with pytest.raises(ShapeError, match=r"B >= xs\[0\].shape\[0\] = 5"):
        F.n_step_lstm(2, 0.0, hx[:, :3], cx[:, :3], ws, bs, xs)
    with pytest.raises(
        ShapeError, match=r"n_step_lstm: expected ws\[0\]\[0\].shape == \(4, 3\), got \(4, 2\)"
    ):
        F.n_step_lstm(2, 0.0, hx, cx, [[w[:, :2] for w in ws[0]], ws[1]], bs, xs)
    with pytest.raises(ShapeError, match=r"n_step_lstm: expected ws\[1\]\[4\].shape == \(4, 4\)"):
        F.n_step_lstm(2, 0.0, hx, cx, [ws[0], ws[1][:4] + [w[:, :3] for w in ws[1][4:]]], bs, xs)
    with pytest.raises(InvalidInputError, match=r"n_step_lstm: expected ws\[1\] to be a list of 8, got 6"):
        F.n_step_lstm(2, 0.0, hx, cx, [ws[0], ws[1][:6]], bs, xs)
    with pytest.raises(InvalidInputError, match=r"n_step_lstm: expected ws to be a list of 2, got 1"):
        F.n_step_lstm(2, 0.0, hx, cx, ws[:1], bs, xs)
    with pytest.raises(ShapeError, match=r"n_step_lstm: expected hx.ndim == 3, got 2"):
        F.n_step_lstm(2, 0.0, hx[0], cx, ws, bs, xs)
    with pytest.raises(DTypeError, match=r"n_step_lstm: expected xs\[0\].dtype == hx.dtype"):
        F.n_step_lstm(2, 0.0, hx.astype(numpy.float32), cx, ws, bs, xs)
    with pytest.raises(InvalidInputError, match=r"n_step_lstm: expected a random key for the dropout"):
        F.n_step_lstm(2, 0.5, hx, cx, ws, bs, xs)
    with pytest.raises(InvalidInputError, match=r"n_step_lstm: expected 0 <= dropout_ratio < 1, got 1.0"):
        F.n_step_lstm(2, 1.0, hx, cx, ws, bs, xs)
    with pytest.raises(InvalidInputError, match=r"n_step_lstm: expected n_layers to be an int >= 1, got 0"):
        F.n_step_lstm(0, 0.0, hx, cx, ws, bs, xs)
    with pytest.raises(InvalidInputError, match=r"n_step_lstm: expected xs to be a non-empty list"):
        F.n_step_lstm(2, 0.0, hx, cx, ws, bs, [])


def test_errors_of_the_other_networks():
    p = problem("bigru")
    with pytest.raises(ShapeError, match=r"n_step_bigru: expected ws\[2\]\[0\].shape == \(4, 8\)"):
        F.n_step_bigru(2, 0.0, p["hx"], [p["ws"][0], p["ws"][1], p["ws"][0], p["ws"][1]], p["bs"], p["xs"])
    with pytest.raises(ShapeError, match=r"n_step_gru: expected hx of shape \(n_layers \* 1, B, N\)"):
        F.n_step_gru(2, 0.0, p["hx"], p["ws"][:2], p["bs"][:2], p["xs"])
    q = problem("rnn")
    with pytest.raises(
        InvalidInputError, match=r"n_step_rnn: expected activation 'tanh' or 'relu', got 'sigmoid'"
    ):
        F.n_step_rnn(2, 0.0, q["hx"], q["ws"], q["bs"], q["xs"], activation="sigmoid")
    with pytest.raises(DTypeError, match=r"n_step_birnn: expected xs\[0\] to be a float array"):
        F.n_step_birnn(1, 0.0, q["hx"][:2], q["ws"][:2], q["bs"][:2], [numpy.ones((2, 3), numpy.int32)])
