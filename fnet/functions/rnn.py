"""Stacked recurrent networks over variable-length sequences (Chainer's ``F.n_step_lstm``...).

Every function here is a composition of ``linear``, ``lstm`` and fnet.ops, so gradients of any
order come for free. The sequences are given as Chainer lays them out: ``xs[t]`` holds time
step ``t`` of every sequence still running, sorted by decreasing length, so the batch can only
shrink from one step to the next. Each layer (and direction) projects its whole input sequence
with one matrix product before the time loop (the input weights do not depend on the state),
so the loop itself only multiplies the state by the recurrent weights and applies the cell.
The states of sequences that have ended are set aside, not copied back at every step.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy

from .. import ops
from .. import random as _random
from ..autodiff.tracer import shape_of as _shape
from ..errors import InvalidInputError, ShapeError, message
from ._checks import check_float, check_ndim, check_same_dtype
from .activation import lstm, relu, sigmoid
from .connection import linear
from .noise import dropout

__all__ = ["n_step_bigru", "n_step_bilstm", "n_step_birnn", "n_step_gru", "n_step_lstm", "n_step_rnn"]


def _rows(x, start: int, stop: int | None = None):
    return ops.getitem(x, slice(start, stop))


def _cols(x, start: int, stop: int | None = None):
    return ops.getitem(x, (slice(None), slice(start, stop)))


# -- cells -------------------------------------------------------------------------------------
# A cell is prepared once per layer and direction from its weights ``w`` and biases ``b``:
# ``prepare(w, b) -> (W_x, b_x, recurrent)``, where ``linear(x, W_x, b_x)`` projects the inputs
# of every time step at once, and ``step(p, h, c, recurrent) -> (h, c)`` advances the state by
# one step from the projection ``p`` of that step's input (``c`` is None without a cell state).
class _Cell(NamedTuple):
    name: str
    n_weights: int  # matrices (and biases) per layer and direction
    n_input: int  # how many of them act on the input; the others act on the state
    prepare: Callable
    step: Callable


def _interleave(arrays: list):
    """``(N, ...)`` arrays of the four LSTM gates as one ``(4 N, ...)``: row ``4 j + k`` holds
    gate ``k`` of unit ``j``, the layout of ``activation.lstm``."""
    stacked = ops.stack(arrays, axis=1)
    shape = _shape(stacked)
    return ops.reshape(stacked, (shape[0] * 4, *shape[2:]))


# Chainer's ws[0..3] are the input, forget, cell-input and output gates (cuDNN's order, which
# Chainer's code follows: its documentation swaps the last two), and lstm() takes a, i, f, o.
_LSTM_GATES = (2, 0, 1, 3)


def _lstm_prepare(w, b):
    bias = ops.add(_interleave([b[k] for k in _LSTM_GATES]), _interleave([b[4 + k] for k in _LSTM_GATES]))
    return _interleave([w[k] for k in _LSTM_GATES]), bias, _interleave([w[4 + k] for k in _LSTM_GATES])


def _lstm_step(p, h, c, recurrent):
    c, h = lstm(c, ops.add(p, linear(h, recurrent)))
    return h, c


def _gru_prepare(w, b):
    recurrent = (ops.concatenate(w[3:6], axis=0), ops.concatenate(b[3:6], axis=0))
    return ops.concatenate(w[:3], axis=0), ops.concatenate(b[:3], axis=0), recurrent


def _gru_step(p, h, c, recurrent):
    """``r, z = sigmoid(x_rz + h_rz)``, ``n = tanh(x_n + r * h_n)``, ``h' = n + z * (h - n)``
    (that is ``(1 - z) * n + z * h``), with ``x_*`` and ``h_*`` the projections of the input and
    of the state (each with its own bias, ``b_5`` inside the reset gate)."""
    units = _shape(h)[1]
    q = linear(h, *recurrent)
    gates = sigmoid(ops.add(_cols(p, 0, 2 * units), _cols(q, 0, 2 * units)))
    r, z = _cols(gates, 0, units), _cols(gates, units)
    candidate = ops.tanh(ops.add(_cols(p, 2 * units), ops.multiply(r, _cols(q, 2 * units))))
    return ops.add(candidate, ops.multiply(z, ops.subtract(h, candidate))), None


def _rnn_prepare(w, b):
    return w[0], ops.add(b[0], b[1]), w[1]


def _rnn_cell(activation: Callable) -> _Cell:
    def step(p, h, c, recurrent):
        return activation(ops.add(p, linear(h, recurrent))), None

    return _Cell("n_step_rnn", 2, 1, _rnn_prepare, step)


_LSTM = _Cell("n_step_lstm", 8, 4, _lstm_prepare, _lstm_step)
_GRU = _Cell("n_step_gru", 6, 3, _gru_prepare, _gru_step)
_RNN = {"tanh": _rnn_cell(ops.tanh), "relu": _rnn_cell(relu)}


# -- checks ------------------------------------------------------------------------------------
def _count(fn: str, name: str, items, expected: int, hint: str) -> None:
    if not isinstance(items, Sequence) or len(items) != expected:
        got = len(items) if isinstance(items, Sequence) else type(items).__name__
        raise InvalidInputError(
            message(fn, f"expected {name} to be a list of {expected}, got {got}", hint=hint)
        )


def _check(fn: str, cell: _Cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs, directions: int) -> None:
    """Chainer's layout: ``xs`` a list of ``(B_t, I)`` with ``B_t`` non-increasing, ``hx`` (and
    ``cx``) ``(S, B, N)`` with ``S = n_layers * directions``, ``ws[s]`` and ``bs[s]`` lists of the
    cell's matrices ``(N, I_s)`` (input) or ``(N, N)`` (state) and biases ``(N,)``."""
    if isinstance(n_layers, bool) or not isinstance(n_layers, (int, numpy.integer)) or n_layers < 1:
        raise InvalidInputError(message(fn, f"expected n_layers to be an int >= 1, got {n_layers!r}"))
    if not 0.0 <= dropout_ratio < 1.0:
        raise InvalidInputError(
            message(fn, f"expected 0 <= dropout_ratio < 1, got {dropout_ratio!r}", hint="0 disables dropout")
        )
    if not isinstance(xs, Sequence) or not xs:
        raise InvalidInputError(
            message(
                fn,
                "expected xs to be a non-empty list of arrays, one per time step",
                hint="pass [x_0, x_1, ...]",
            )
        )
    for t, x in enumerate(xs):
        check_float(fn, f"xs[{t}]", x)
        check_ndim(fn, f"xs[{t}]", x, 2, "each time step is (batch, features)")
        check_same_dtype(fn, ("xs[0]", f"xs[{t}]"), xs[0], x)
        if _shape(x)[1] != _shape(xs[0])[1] or (t and _shape(x)[0] > _shape(xs[t - 1])[0]):
            raise ShapeError(
                message(
                    fn,
                    f"expected xs[{t}].shape[0] <= xs[{t - 1}].shape[0] and one feature size, got "
                    f"{_shape(xs[t - 1])} then {_shape(x)}",
                    {f"xs[{t - 1}]": xs[t - 1], f"xs[{t}]": x},
                    "sort the sequences by decreasing length and transpose them (F.transpose_sequence)",
                )
            )
    states = [("hx", hx)] + ([("cx", cx)] if cell is _LSTM else [])
    for name, state in states:
        check_float(fn, name, state)
        check_ndim(fn, name, state, 3, f"{name} is (n_layers * directions, batch, units)")
        check_same_dtype(fn, ("xs[0]", name), xs[0], state)
    layers, batch, units = _shape(hx)
    if (
        layers != n_layers * directions
        or batch < _shape(xs[0])[0]
        or (cx is not None and _shape(cx) != _shape(hx))
    ):
        raise ShapeError(
            message(
                fn,
                f"expected hx{' and cx' if cx is not None else ''} of shape (n_layers * {directions}, B, N) "
                f"with n_layers = {n_layers} and B >= xs[0].shape[0] = {_shape(xs[0])[0]}",
                dict(states),
                "stack the initial states of every layer (and direction) along axis 0",
            )
        )
    hint = f"ws[i] (and bs[i]) holds the {cell.n_weights} matrices (biases) of layer and direction i"
    _count(fn, "ws", ws, layers, hint)
    _count(fn, "bs", bs, layers, hint)
    inputs = _shape(xs[0])[1]
    for s in range(layers):
        _count(fn, f"ws[{s}]", ws[s], cell.n_weights, hint)
        _count(fn, f"bs[{s}]", bs[s], cell.n_weights, hint)
        width = inputs if s < directions else units * directions
        for j in range(cell.n_weights):
            expected = (units, width if j < cell.n_input else units)
            for name, p, shape in (
                (f"ws[{s}][{j}]", ws[s][j], expected),
                (f"bs[{s}][{j}]", bs[s][j], (units,)),
            ):
                check_float(fn, name, p)
                check_same_dtype(fn, ("xs[0]", name), xs[0], p)
                if _shape(p) != shape:
                    raise ShapeError(
                        message(
                            fn,
                            f"expected {name}.shape == {shape}, got {_shape(p)}",
                            {name: p},
                            f"the first {cell.n_input} matrices act on the layer's input ({width} features), "
                            f"the others on the state ({units} units); biases are (N,)",
                        )
                    )


# -- the stacked recurrence --------------------------------------------------------------------
def _fit(states: tuple, parked: list, batch: int) -> tuple[tuple, list]:
    """The running states resized to ``batch`` rows: rows beyond are set aside in ``parked``
    (pieces in row order), and taken back from there when the batch grows again."""
    rows = _shape(states[0])[0]
    if batch < rows:
        parked = [tuple(_rows(s, batch) for s in states), *parked]
        return tuple(_rows(s, 0, batch) for s in states), parked
    if batch > rows:
        pool = parked[0] if len(parked) == 1 else tuple(ops.concatenate(piece) for piece in zip(*parked))
        need = batch - rows
        grown = tuple(ops.concatenate([s, _rows(p, 0, need)]) for s, p in zip(states, pool))
        rest = [tuple(_rows(p, need) for p in pool)] if _shape(pool[0])[0] > need else []
        return grown, rest
    return states, parked


def _direction(cell: _Cell, inputs, batches: list, h, c, w, b, reverse: bool):
    """One layer in one direction over the concatenated inputs ``(sum B_t, I)``: the final
    states and the outputs of every step, in time order."""
    W_x, b_x, recurrent = cell.prepare(w, b)
    projected = linear(inputs, W_x, b_x)
    starts = numpy.cumsum([0, *batches])
    order = range(len(batches) - 1, -1, -1) if reverse else range(len(batches))
    states = (h,) if c is None else (h, c)
    parked: list = []
    outputs = [None] * len(batches)
    for t in order:
        states, parked = _fit(states, parked, batches[t])
        p = projected if len(batches) == 1 else _rows(projected, int(starts[t]), int(starts[t + 1]))
        h, c = cell.step(p, states[0], states[-1] if len(states) == 2 else None, recurrent)
        states = (h,) if c is None else (h, c)
        outputs[t] = h
    if parked:
        states = tuple(ops.concatenate([s, *piece]) for s, piece in zip(states, zip(*parked)))
    return states, outputs


def _n_step(cell: _Cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs, directions: int, key, train: bool):
    fn = cell.name.replace("n_step_", "n_step_bi") if directions == 2 else cell.name
    _check(fn, cell, n_layers, dropout_ratio, hx, cx, ws, bs, xs, directions)
    dropping = train and dropout_ratio > 0 and n_layers > 1
    if dropping and key is None:
        raise InvalidInputError(
            message(
                fn,
                "expected a random key for the dropout between layers, got key=None",
                hint="pass key=fnet.random.key(seed) (a fresh one per call), dropout_ratio=0, or train=False",
            )
        )
    keys = _random.split(key, n_layers * directions) if dropping else None
    batches = [_shape(x)[0] for x in xs]
    steps = list(xs)
    final = []
    for layer in range(n_layers):
        inputs = steps[0] if len(steps) == 1 else ops.concatenate(steps, axis=0)
        runs = []
        for d in range(directions):
            s = layer * directions + d
            layer_in = dropout(inputs, dropout_ratio, key=keys[s]) if dropping and layer else inputs
            c0 = None if cx is None else ops.getitem(cx, s)
            states, outputs = _direction(
                cell, layer_in, batches, ops.getitem(hx, s), c0, ws[s], bs[s], d == 1
            )
            final.append(states)
            runs.append(outputs)
        steps = runs[0] if directions == 1 else [ops.concatenate(pair, axis=1) for pair in zip(*runs)]
    hy = ops.stack([states[0] for states in final])
    cy = None if cx is None else ops.stack([states[1] for states in final])
    return hy, cy, tuple(steps)


# -- public functions --------------------------------------------------------------------------
def n_step_lstm(n_layers: int, dropout_ratio: float, hx, cx, ws, bs, xs, *, key=None, train: bool = True):
    """Stacked LSTM over a batch of variable-length sequences; returns ``(hy, cy, ys)``.

    For each layer, with ``x_t`` its input and ``W_j``, ``b_j`` = ``ws[layer][j]``,
    ``bs[layer][j]``: ``i = sigmoid(W_0 x_t + W_4 h + b_0 + b_4)``, ``f = sigmoid(W_1 x_t + W_5 h
    + b_1 + b_5)``, ``a = tanh(W_2 x_t + W_6 h + b_2 + b_6)``, ``o = sigmoid(W_3 x_t + W_7 h + b_3
    + b_7)``, ``c_t = f c_{t-1} + i a`` and ``h_t = o tanh(c_t)`` (the order of Chainer's code and
    of cuDNN; Chainer's docstring swaps ``W_2`` and ``W_3``). ``W_0..W_3`` are ``(N, I)`` on the
    first layer and ``(N, N)`` above, like ``W_4..W_7``. ``xs[t]`` is ``(B_t, I)`` with ``B_t``
    non-increasing (sorted sequences, transposed); ``hx`` and ``cx`` are ``(n_layers, B, N)``.
    ``hy`` and ``cy`` hold each layer's last states (a sequence that ended early keeps its state
    from its last step), and ``ys[t]`` is the last layer's ``h_t``, ``(B_t, N)``. In training
    (``train=True``) the input of every layer above the first goes through dropout with
    ``dropout_ratio``, drawn from ``key``.

    >>> import numpy
    >>> N, I = 3, 2
    >>> ws = [[numpy.zeros((N, I), numpy.float32)] * 4 + [numpy.zeros((N, N), numpy.float32)] * 4]
    >>> bs = [[numpy.zeros(N, numpy.float32)] * 8]
    >>> h0 = numpy.zeros((1, 2, N), numpy.float32)
    >>> xs = [numpy.ones((2, I), numpy.float32), numpy.ones((1, I), numpy.float32)]
    >>> hy, cy, ys = n_step_lstm(1, 0.0, h0, h0, ws, bs, xs)
    >>> hy.shape, [y.shape for y in ys]
    ((1, 2, 3), [(2, 3), (1, 3)])
    """
    return _n_step(_LSTM, n_layers, dropout_ratio, hx, cx, ws, bs, xs, 1, key, train)


def n_step_bilstm(n_layers: int, dropout_ratio: float, hx, cx, ws, bs, xs, *, key=None, train: bool = True):
    """Stacked bidirectional LSTM over variable-length sequences; returns ``(hy, cy, ys)``.

    As ``n_step_lstm``, with a forward and a backward (last step first) LSTM on each layer:
    ``ws[2 * layer]`` and ``ws[2 * layer + 1]`` are their weights, ``hx`` and ``cx`` are ``(2
    n_layers, B, N)`` in the same order, and the input of the layers above the first is the
    concatenation ``[h_forward, h_backward]``, so their ``W_0..W_3`` are ``(N, 2 N)``. ``ys[t]``
    is that concatenation for the last layer, ``(B_t, 2 N)``. Dropout (in training) is drawn
    separately for each direction.

    >>> import numpy
    >>> N, I = 3, 2
    >>> ws = [[numpy.zeros((N, I), numpy.float32)] * 4 + [numpy.zeros((N, N), numpy.float32)] * 4] * 2
    >>> bs = [[numpy.zeros(N, numpy.float32)] * 8] * 2
    >>> h0 = numpy.zeros((2, 2, N), numpy.float32)
    >>> hy, cy, ys = n_step_bilstm(1, 0.0, h0, h0, ws, bs, [numpy.ones((2, I), numpy.float32)])
    >>> hy.shape, ys[0].shape
    ((2, 2, 3), (2, 6))
    """
    return _n_step(_LSTM, n_layers, dropout_ratio, hx, cx, ws, bs, xs, 2, key, train)


def n_step_gru(n_layers: int, dropout_ratio: float, hx, ws, bs, xs, *, key=None, train: bool = True):
    """Stacked GRU over a batch of variable-length sequences; returns ``(hy, ys)``.

    For each layer: ``r = sigmoid(W_0 x_t + W_3 h + b_0 + b_3)``, ``z = sigmoid(W_1 x_t + W_4 h
    + b_1 + b_4)``, ``h' = tanh(W_2 x_t + b_2 + r (W_5 h + b_5))`` and ``h_t = (1 - z) h' + z
    h_{t-1}``, with ``W_j``, ``b_j`` = ``ws[layer][j]``, ``bs[layer][j]`` (``W_0..W_2`` are ``(N,
    I)`` on the first layer, the others ``(N, N)``). The sequence layout, ``hx``, ``hy``,
    ``ys`` and the dropout between layers are as in ``n_step_lstm``.

    >>> import numpy
    >>> N, I = 3, 2
    >>> ws = [[numpy.zeros((N, I), numpy.float32)] * 3 + [numpy.zeros((N, N), numpy.float32)] * 3]
    >>> bs = [[numpy.zeros(N, numpy.float32)] * 6]
    >>> xs = [numpy.ones((2, I), numpy.float32)]
    >>> hy, ys = n_step_gru(1, 0.0, numpy.ones((1, 2, N), numpy.float32), ws, bs, xs)
    >>> ys[0]
    array([[0.5, 0.5, 0.5],
           [0.5, 0.5, 0.5]], dtype=float32)
    """
    return _n_step(_GRU, n_layers, dropout_ratio, hx, None, ws, bs, xs, 1, key, train)[::2]


def n_step_bigru(n_layers: int, dropout_ratio: float, hx, ws, bs, xs, *, key=None, train: bool = True):
    """Stacked bidirectional GRU over variable-length sequences; returns ``(hy, ys)``.

    The GRU of ``n_step_gru`` run forward and backward on each layer, with the layout of
    ``n_step_bilstm``: ``ws[2 * layer + d]`` for direction ``d``, ``hx`` ``(2 n_layers, B, N)``,
    and ``ys[t]`` the concatenation ``[h_forward, h_backward]`` of the last layer.

    >>> import numpy
    >>> N, I = 3, 2
    >>> ws = [[numpy.zeros((N, I), numpy.float32)] * 3 + [numpy.zeros((N, N), numpy.float32)] * 3] * 2
    >>> bs = [[numpy.zeros(N, numpy.float32)] * 6] * 2
    >>> xs = [numpy.ones((2, I), numpy.float32)]
    >>> hy, ys = n_step_bigru(1, 0.0, numpy.zeros((2, 2, N), numpy.float32), ws, bs, xs)
    >>> hy.shape, ys[0].shape
    ((2, 2, 3), (2, 6))
    """
    return _n_step(_GRU, n_layers, dropout_ratio, hx, None, ws, bs, xs, 2, key, train)[::2]


def _rnn(fn: str, activation: str) -> _Cell:
    if activation not in _RNN:
        raise InvalidInputError(
            message(
                fn, f"expected activation 'tanh' or 'relu', got {activation!r}", hint="the default is 'tanh'"
            )
        )
    return _RNN[activation]


def n_step_rnn(
    n_layers: int,
    dropout_ratio: float,
    hx,
    ws,
    bs,
    xs,
    activation: str = "tanh",
    *,
    key=None,
    train: bool = True,
):
    """Stacked Elman RNN over a batch of variable-length sequences; returns ``(hy, ys)``.

    For each layer ``h_t = f(W_0 x_t + W_1 h_{t-1} + b_0 + b_1)`` with ``f`` the ``activation``,
    ``'tanh'`` or ``'relu'``, and ``W_j``, ``b_j`` = ``ws[layer][j]``, ``bs[layer][j]`` (``W_0``
    is ``(N, I)`` on the first layer, ``(N, N)`` above). The sequence layout, ``hx``, ``hy``,
    ``ys`` and the dropout between layers are as in ``n_step_lstm``.

    >>> import numpy
    >>> ws = [[numpy.eye(2, dtype=numpy.float32)] * 2]
    >>> bs = [[numpy.zeros(2, numpy.float32)] * 2]
    >>> x = numpy.array([[1.0, -1.0]], numpy.float32)
    >>> hy, ys = n_step_rnn(1, 0.0, numpy.zeros((1, 1, 2), numpy.float32), ws, bs, [x, x], activation="relu")
    >>> ys[1]
    array([[2., 0.]], dtype=float32)
    """
    return _n_step(
        _rnn("n_step_rnn", activation), n_layers, dropout_ratio, hx, None, ws, bs, xs, 1, key, train
    )[::2]


def n_step_birnn(
    n_layers: int,
    dropout_ratio: float,
    hx,
    ws,
    bs,
    xs,
    activation: str = "tanh",
    *,
    key=None,
    train: bool = True,
):
    """Stacked bidirectional Elman RNN over variable-length sequences; returns ``(hy, ys)``.

    The RNN of ``n_step_rnn`` run forward and backward on each layer, with the layout of
    ``n_step_bilstm``: ``ws[2 * layer + d]`` for direction ``d``, ``hx`` ``(2 n_layers, B, N)``,
    and ``ys[t]`` the concatenation ``[h_forward, h_backward]`` of the last layer.

    >>> import numpy
    >>> ws = [[numpy.eye(2, dtype=numpy.float32)] * 2] * 2
    >>> bs = [[numpy.zeros(2, numpy.float32)] * 2] * 2
    >>> xs = [numpy.ones((1, 2), numpy.float32)]
    >>> hy, ys = n_step_birnn(1, 0.0, numpy.zeros((2, 1, 2), numpy.float32), ws, bs, xs)
    >>> ys[0].shape
    (1, 4)
    """
    return _n_step(
        _rnn("n_step_birnn", activation), n_layers, dropout_ratio, hx, None, ws, bs, xs, 2, key, train
    )[::2]
