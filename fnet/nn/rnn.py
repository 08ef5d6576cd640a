"""Recurrent layers: Chainer's ``L.LSTM``, ``L.StatelessLSTM``, the GRU and MGU cells,
``L.StatefulZoneoutLSTM`` and the stacked ``L.NStepLSTM`` family.

Chainer's stateful links keep their recurrent state in attributes and update it at every
call; here the state is an explicit tree. ``init_state()`` gives the empty state (``None``
entries, as after Chainer's ``reset_state()``: the first step starts from zeros, or, for the
GRU, from Chainer's special first step), ``apply(params, x, state, *, train=True) -> (y,
state)`` returns the next one, and setting the state (Chainer's ``set_state``) is passing
``{"c": c, "h": h}``. The stateless cells take and return the state as arrays, and the NStep
layers run whole batches of variable-length sequences with ``fnet.functions.n_step_*``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence

import attrs
import numpy

from .. import backend, initializers, ops, random
from .. import functions as F
from ..autodiff.tracer import shape_of as _shape
from ..autodiff.tracer import unbox_all
from ..errors import InvalidInputError, ShapeError, message
from .layer import Layer, lazy_field
from .linear import Linear
from .normalization import _check_state, _require_example

__all__ = [
    "LSTM",
    "StatelessLSTM",
    "GRU",
    "StatelessGRU",
    "StatefulGRU",
    "StatefulZoneoutLSTM",
    "StatefulPeepholeLSTM",
    "StatelessMGU",
    "StatefulMGU",
    "NStepLSTM",
    "NStepBiLSTM",
    "NStepGRU",
    "NStepBiGRU",
    "NStepRNNTanh",
    "NStepRNNReLU",
    "NStepBiRNNTanh",
    "NStepBiRNNReLU",
]


def _zeros(x, units: int):
    """A zero state ``(len(x), units)`` in ``x``'s dtype, on ``x``'s device."""
    raw = unbox_all(x)
    return backend.xp(raw).zeros((_shape(raw)[0], units), raw.dtype)


def _in_size(fn: str, in_size: int | None, x) -> int:
    """``in_size``, or the size of one example of ``x`` when it is None (a lazy layer)."""
    if in_size is not None:
        return in_size
    _require_example(fn, "in_size", x)
    return int(numpy.prod(_shape(x)[1:]))


def _caller(children: Mapping[str, Layer], params: Mapping) -> Callable:
    """``link(name, x)``: the child ``name`` applied to ``x`` with its params."""
    return lambda name, x: children[name].apply(params[name], x)


def _init_children(key, children: Mapping[str, Layer], x=None) -> dict:
    """Each child's params, one key split off per child; ``x`` sizes lazy children."""
    keys = random.split(key, len(children))
    return {name: child.init(k, x) for (name, child), k in zip(children.items(), keys)}


# -- LSTM --------------------------------------------------------------------------------------
def _lstm_links(in_size: int | None, out_size: int) -> dict[str, Linear]:
    """The two projections of Chainer's LSTM links, each to the four gates."""
    return {
        "upward": Linear(in_size, 4 * out_size),
        "lateral": Linear(out_size, 4 * out_size, nobias=True),
    }


@attrs.frozen(init=False)
class _LSTMBase(Layer):
    """The parameters of Chainer's LSTM links: ``upward`` (``Linear(in_size, 4 * out_size)``)
    and ``lateral`` (``Linear(out_size, 4 * out_size, nobias=True)``).

    As in Chainer, each gate's block of ``out_size`` rows of ``upward/W`` and ``lateral/W`` is
    drawn separately from ``upward_init`` / ``lateral_init`` (LeCun normal by default), and the
    bias holds the gates interleaved (``b[4 j + k]`` is gate ``k`` of unit ``j``, in the order
    a, i, f, o that ``F.lstm`` reads): ``bias_init`` (0) for a, i, o and ``forget_bias_init``
    (1) for the forget gate f, each drawn with Chainer's shape ``(1, out_size, 1)``.
    """

    in_size: int | None = lazy_field()  # sizes the children's W
    out_size: int
    lateral_init: object = None
    upward_init: object = None
    bias_init: object = None
    forget_bias_init: object = None

    def __init__(
        self,
        in_size: int | None,
        out_size: int | None = None,
        lateral_init=None,
        upward_init=None,
        bias_init=None,
        forget_bias_init=None,
    ):
        if out_size is None:  # Chainer's LSTM(out_size): the input size is inferred
            in_size, out_size = None, in_size
        self.__attrs_init__(in_size, out_size, lateral_init, upward_init, bias_init, forget_bias_init)

    def sublayers(self) -> dict[str, Linear]:
        """The Linear children, by name."""
        return _lstm_links(self.in_size, self.out_size)

    def init(self, key, x=None) -> dict:
        """``upward`` (``W``, ``b``) and ``lateral`` (``W``); ``x`` sizes a lazy ``in_size``."""
        in_size = _in_size(f"{type(self).__name__}.init", self.in_size, x)
        n = self.out_size
        keys = random.split(key, 12)

        def blocks(initial, shape, block_keys):
            draw = initializers.as_initializer(initial, initializers.LeCunNormal())
            return numpy.concatenate([draw(k, shape) for k in block_keys])

        zero, one = initializers.Zero(), initializers.Constant(1.0)
        bias_inits = (
            (self.bias_init, zero),
            (self.bias_init, zero),
            (self.forget_bias_init, one),
            (self.bias_init, zero),
        )
        gates = [  # a, i, f, o
            initializers.as_initializer(initial, default)(k, (1, n, 1)).reshape(n)
            for (initial, default), k in zip(bias_inits, keys[8:])
        ]
        return {
            "upward": {
                "W": blocks(self.upward_init, (n, in_size), keys[:4]),
                "b": numpy.stack(gates, axis=1).reshape(4 * n),
            },
            "lateral": {"W": blocks(self.lateral_init, (n, n), keys[4:8])},
        }


@attrs.frozen(init=False)
class StatelessLSTM(_LSTMBase):
    """One LSTM step with the state passed in and out, as Chainer's ``L.StatelessLSTM``.

    ``StatelessLSTM(in_size, out_size)`` (or ``(out_size)``, lazy); parameters as ``LSTM``.
    ``apply(params, c, h, x) -> (c, h)``: ``F.lstm(c, upward(x) + lateral(h))``, where ``h``
    None adds nothing and ``c`` None starts from zeros.

    >>> import numpy, fnet
    >>> cell = StatelessLSTM(3, 2)
    >>> c, h = cell(cell.init(fnet.random.key(0)), None, None, numpy.ones((4, 3), numpy.float32))
    >>> c.shape, h.shape
    ((4, 2), (4, 2))
    """

    def apply(self, params, c, h, x) -> tuple:
        """``(c, h)`` after one step on ``x`` from the state ``(c, h)`` (None: zeros)."""
        link = _caller(self.sublayers(), params)
        lstm_in = link("upward", x)
        if h is not None:
            lstm_in = ops.add(lstm_in, link("lateral", h))
        return F.lstm(_zeros(x, self.out_size) if c is None else c, lstm_in)


@attrs.frozen(init=False)
class LSTM(_LSTMBase):
    """Fully connected LSTM layer, as Chainer's ``L.LSTM``, with its state ``{"c", "h"}`` explicit.

    ``LSTM(in_size, out_size)``, or ``LSTM(out_size)`` with ``in_size`` inferred by
    ``init(key, x)``. Parameters: ``upward`` and ``lateral`` (see their initialization in
    ``StatelessLSTM``; the forget gates' bias starts at 1). ``apply(params, x, state, *,
    train=True) -> (h, state)``; ``train`` has no effect. As in Chainer, ``x`` may have fewer
    rows than the state (sequences sorted by decreasing length): only the first ``len(x)``
    rows are updated and the others are kept; ``h`` None (``init_state()``) adds no lateral
    term and ``c`` None starts from zeros.

    >>> import numpy, fnet
    >>> lstm = LSTM(3, 2)
    >>> params, state = lstm.init(fnet.random.key(0)), lstm.init_state()
    >>> h, state = lstm(params, numpy.ones((4, 3), numpy.float32), state)
    >>> h, state = lstm(params, numpy.ones((1, 3), numpy.float32), state)
    >>> h.shape, state["h"].shape
    ((1, 2), (4, 2))
    """

    stateful = True

    def init_state(self) -> dict:
        """The empty state ``{"c": None, "h": None}`` (Chainer's ``reset_state``)."""
        return {"c": None, "h": None}

    def apply(self, params, x, state, *, train: bool = True) -> tuple:
        """``(h, state)`` after one step on ``x``."""
        fn = f"{type(self).__name__}.apply"
        _check_state(fn, state, ("c", "h"))
        c, h = state["c"], state["h"]
        batch = _shape(x)[0]
        link = _caller(self.sublayers(), params)
        lstm_in = link("upward", x)
        h_rest = None
        if h is not None:
            rows = _shape(h)[0]
            if rows < batch:
                raise ShapeError(
                    message(
                        fn,
                        f"expected len(x) <= len(state['h']), got {batch} > {rows}",
                        {"x": x, "h": h},
                        "the batch may only shrink from one step to the next (sort sequences by length)",
                    )
                )
            if batch == 0:
                h_rest = h
            elif rows > batch:
                h, h_rest = F.split_axis(h, [batch], axis=0)
            if batch:
                lstm_in = ops.add(lstm_in, link("lateral", h))
        c, y = F.lstm(_zeros(x, self.out_size) if c is None else c, lstm_in)
        if h_rest is None:
            h = y
        else:
            h = h_rest if batch == 0 else F.concat([y, h_rest], axis=0)
        return y, {"c": c, "h": h}


@attrs.frozen(init=False)
class StatefulPeepholeLSTM(Layer):
    """LSTM with peephole connections, Chainer's ``L.StatefulPeepholeLSTM(in_size, out_size)``,
    its state ``{"c", "h"}`` explicit: children ``upward`` (``Linear(in_size, 4 * out_size)``),
    ``lateral`` (``Linear(out_size, 4 * out_size)``, no bias) and ``peep_i``, ``peep_f``,
    ``peep_o`` (``Linear(out_size, out_size)``, no bias).

    ``apply(params, x, state, *, train=True) -> (h, state)``: with the gate inputs ``a, i, f,
    o`` of ``upward(x) + lateral(h)`` (interleaved per unit, as ``F.lstm`` reads them), ``c' =
    tanh(a) * sigmoid(i + peep_i(c)) + sigmoid(f + peep_f(c)) * c`` and ``h' = sigmoid(o +
    peep_o(c')) * tanh(c')``; from ``init_state()`` there is no lateral term and ``c`` starts
    at zeros. ``train`` has no effect.

    >>> import numpy, fnet
    >>> lstm = StatefulPeepholeLSTM(3, 2)
    >>> params, state = lstm.init(fnet.random.key(0)), lstm.init_state()
    >>> h, state = lstm(params, numpy.ones((4, 3), numpy.float32), state)
    >>> h.shape, state["c"].shape
    ((4, 2), (4, 2))
    """

    in_size: int | None = lazy_field()  # sizes upward
    out_size: int
    stateful = True

    def __init__(self, in_size: int | None, out_size: int):
        self.__attrs_init__(in_size, out_size)

    def sublayers(self) -> dict[str, Linear]:
        """The Linear children, by name."""
        n = self.out_size
        peep = {name: Linear(n, n, nobias=True) for name in ("peep_i", "peep_f", "peep_o")}
        return {"upward": Linear(self.in_size, 4 * n), "lateral": Linear(n, 4 * n, nobias=True), **peep}

    def init(self, key, x=None) -> dict:
        """The children's params; ``x`` (an example input) sizes a lazy ``in_size``."""
        return _init_children(key, self.sublayers(), x)

    def init_state(self) -> dict:
        """The empty state ``{"c": None, "h": None}`` (Chainer's ``reset_state``)."""
        return {"c": None, "h": None}

    def apply(self, params, x, state, *, train: bool = True) -> tuple:
        """``(h, state)`` after one step on ``x`` ``(batch, in_size)``."""
        _check_state(f"{type(self).__name__}.apply", state, ("c", "h"))
        link = _caller(self.sublayers(), params)
        gates = link("upward", x)
        if state["h"] is not None:
            gates = ops.add(gates, link("lateral", state["h"]))
        c = _zeros(x, self.out_size) if state["c"] is None else state["c"]
        rows, width = _shape(gates)
        a, i, f, o = F.separate(F.reshape(gates, (rows, width // 4, 4)), axis=2)
        input_gate = F.sigmoid(ops.add(i, link("peep_i", c)))
        forget_gate = F.sigmoid(ops.add(f, link("peep_f", c)))
        c = ops.add(ops.multiply(F.tanh(a), input_gate), ops.multiply(forget_gate, c))
        h = ops.multiply(F.sigmoid(ops.add(o, link("peep_o", c))), F.tanh(c))
        return h, {"c": c, "h": h}


# -- GRU ---------------------------------------------------------------------------------------
_STATELESS_GRU_HINT = "GRU is stateful (since Chainer v2): for the step GRU(h, x) use StatelessGRU"


@attrs.frozen(init=False)
class _GRUBase(Layer):
    """The parameters of Chainer's GRU links: ``Linear`` children ``W_r``, ``W_z``, ``W``
    (``in_size -> out_size``, weights from ``init``) and ``U_r``, ``U_z``, ``U`` (``out_size ->
    out_size``, weights from ``inner_init``), biases from ``bias_init``. The constructor's
    ``init`` argument is kept in the field ``input_init`` (``init`` is the method)."""

    in_size: int | None = lazy_field()  # sizes the children's W
    out_size: int
    input_init: object = None
    inner_init: object = None
    bias_init: object = None

    def __init__(self, in_size: int | None, out_size: int, init=None, inner_init=None, bias_init=None):
        self.__attrs_init__(in_size, out_size, init, inner_init, bias_init)

    def sublayers(self) -> dict[str, Linear]:
        """The Linear children, by name."""

        def linear(in_size, initialW):
            return Linear(in_size, self.out_size, initialW=initialW, initial_bias=self.bias_init)

        upward, inner = (self.in_size, self.input_init), (self.out_size, self.inner_init)
        return {
            "W_r": linear(*upward),
            "U_r": linear(*inner),
            "W_z": linear(*upward),
            "U_z": linear(*inner),
            "W": linear(*upward),
            "U": linear(*inner),
        }

    def init(self, key, x=None) -> dict:
        """The six ``Linear`` children's params; ``x`` sizes a lazy ``in_size``."""
        return _init_children(key, self.sublayers(), x)


@attrs.frozen(init=False)
class StatelessGRU(_GRUBase):
    """One GRU step with the state passed in and out, as Chainer's ``L.StatelessGRU``.

    ``apply(params, h, x) -> h_new``: ``r = sigmoid(W_r x + U_r h)``, ``z = sigmoid(W_z x + U_z
    h)``, ``h_bar = tanh(W x + U (r * h))`` and ``h_new = z * h_bar + (1 - z) * h`` (Chainer's
    ``linear_interpolate(z, h_bar, h)``). Parameters as in ``StatefulGRU``.

    >>> import numpy, fnet
    >>> gru = StatelessGRU(3, 2)
    >>> h = numpy.zeros((4, 2), numpy.float32)
    >>> gru(gru.init(fnet.random.key(0)), h, numpy.ones((4, 3), numpy.float32)).shape
    (4, 2)
    """

    def apply(self, params, h, x):
        """The next state from ``h`` and the input ``x``."""
        link = _caller(self.sublayers(), params)
        r = F.sigmoid(ops.add(link("W_r", x), link("U_r", h)))
        z = F.sigmoid(ops.add(link("W_z", x), link("U_z", h)))
        h_bar = F.tanh(ops.add(link("W", x), link("U", ops.multiply(r, h))))
        return F.linear_interpolate(z, h_bar, h)


@attrs.frozen(init=False)
class StatefulGRU(_GRUBase):
    """GRU layer with its state ``{"h"}`` explicit, as Chainer's ``L.StatefulGRU``.

    ``StatefulGRU(in_size, out_size, init=None, inner_init=None, bias_init=0)``: ``Linear``
    children ``W_r``, ``U_r``, ``W_z``, ``U_z``, ``W``, ``U`` (LeCun normal weights by default,
    zero biases). ``apply(params, x, state, *, train=True) -> (h, state)`` computes the step of
    ``StatelessGRU``; from the empty state (``init_state()``), as in Chainer, the first step is
    ``h = sigmoid(W_z x) * tanh(W x)`` (no recurrent terms). ``train`` has no effect.

    >>> import numpy, fnet
    >>> gru = StatefulGRU(3, 2)
    >>> params, state = gru.init(fnet.random.key(0)), gru.init_state()
    >>> h, state = gru(params, numpy.ones((4, 3), numpy.float32), state)
    >>> h.shape
    (4, 2)
    """

    stateful = True

    def __init__(self, in_size: int | None, out_size: int, init=None, inner_init=None, bias_init=0):
        self.__attrs_init__(in_size, out_size, init, inner_init, bias_init)

    def init_state(self) -> dict:
        """The empty state ``{"h": None}`` (Chainer's ``reset_state``)."""
        return {"h": None}

    def apply(self, params, x, state, *, train: bool = True) -> tuple:
        """``(h, state)`` after one step on ``x``."""
        fn = f"{type(self).__name__}.apply"
        _check_state(fn, state, ("h",), _STATELESS_GRU_HINT)
        h = state["h"]
        link = _caller(self.sublayers(), params)
        z, h_bar = link("W_z", x), link("W", x)
        if h is not None:
            r = F.sigmoid(ops.add(link("W_r", x), link("U_r", h)))
            z = ops.add(z, link("U_z", h))
            h_bar = ops.add(h_bar, link("U", ops.multiply(r, h)))
        z, h_bar = F.sigmoid(z), F.tanh(h_bar)
        h = ops.multiply(z, h_bar) if h is None else F.linear_interpolate(z, h_bar, h)
        return h, {"h": h}


@attrs.frozen(init=False)
class GRU(StatefulGRU):
    """Chainer's ``L.GRU``: the stateful GRU (``StatefulGRU``) since Chainer v2; for the
    stateless step ``GRU(h, x)`` of Chainer v1 use ``StatelessGRU``.

    >>> import numpy, fnet
    >>> gru = GRU(3, 2)
    >>> h, state = gru(gru.init(fnet.random.key(0)), numpy.ones((1, 3), numpy.float32), gru.init_state())
    >>> h.shape
    (1, 2)
    """


# -- MGU ---------------------------------------------------------------------------------------
@attrs.frozen
class _MGUBase(Layer):
    """The parameters of Chainer's MGU links: ``W_f`` and ``W_h``, both ``Linear(in_size +
    out_size, out_size)`` (LeCun normal weights, zero biases), acting on ``[h, x]``."""

    in_size: int
    out_size: int

    def sublayers(self) -> dict[str, Linear]:
        """The Linear children, by name."""
        return {name: Linear(self.in_size + self.out_size, self.out_size) for name in ("W_f", "W_h")}

    def init(self, key) -> dict:
        """``W_f`` and ``W_h`` (each ``W``, ``b``)."""
        return _init_children(key, self.sublayers())

    def _step(self, params, h, x):
        """``f = sigmoid(W_f [h, x])``, ``h_bar = tanh(W_h [f * h, x])``, ``f * h_bar + (1 - f) * h``."""
        link = _caller(self.sublayers(), params)
        f = F.sigmoid(link("W_f", F.concat([h, x])))
        h_bar = F.tanh(link("W_h", F.concat([ops.multiply(f, h), x])))
        return F.linear_interpolate(f, h_bar, h)


@attrs.frozen(init=False)
class StatelessMGU(_MGUBase):
    """One minimal gated unit step, as Chainer's ``L.StatelessMGU(n_inputs, n_units)``.

    ``apply(params, h, x) -> h_new`` with ``f = sigmoid(W_f [h, x])``, ``h_bar = tanh(W_h [f *
    h, x])`` and ``h_new = f * h_bar + (1 - f) * h``.

    >>> import numpy, fnet
    >>> mgu = StatelessMGU(3, 2)
    >>> h = numpy.zeros((4, 2), numpy.float32)
    >>> mgu(mgu.init(fnet.random.key(0)), h, numpy.ones((4, 3), numpy.float32)).shape
    (4, 2)
    """

    def __init__(self, n_inputs: int, n_units: int):
        self.__attrs_init__(n_inputs, n_units)

    def apply(self, params, h, x):
        """The next state from ``h`` and the input ``x``."""
        return self._step(params, h, x)


@attrs.frozen
class StatefulMGU(_MGUBase):
    """Minimal gated unit layer with its state ``{"h"}`` explicit, as Chainer's ``L.StatefulMGU``.

    ``apply(params, x, state, *, train=True) -> (h, state)``: the step of ``StatelessMGU``,
    from zeros after ``init_state()`` (in ``x``'s dtype; Chainer uses its default dtype).
    ``train`` has no effect.

    >>> import numpy, fnet
    >>> mgu = StatefulMGU(3, 2)
    >>> h, state = mgu(mgu.init(fnet.random.key(0)), numpy.ones((4, 3), numpy.float32), mgu.init_state())
    >>> h.shape
    (4, 2)
    """

    stateful = True

    def init_state(self) -> dict:
        """The empty state ``{"h": None}`` (Chainer's ``reset_state``)."""
        return {"h": None}

    def apply(self, params, x, state, *, train: bool = True) -> tuple:
        """``(h, state)`` after one step on ``x``."""
        _check_state(f"{type(self).__name__}.apply", state, ("h",))
        h = _zeros(x, self.out_size) if state["h"] is None else state["h"]
        h = self._step(params, h, x)
        return h, {"h": h}


# -- zoneout LSTM ------------------------------------------------------------------------------
@attrs.frozen
class StatefulZoneoutLSTM(Layer):
    """LSTM layer with zoneout, as Chainer's ``L.StatefulZoneoutLSTM``; its state ``{"c", "h"}``
    is explicit.

    Parameters: ``upward`` (``Linear(in_size, 4 * out_size)``) and ``lateral`` (``nobias``),
    with ``Linear``'s default initializers. A step computes the LSTM's new ``c`` and ``h``
    (``F.lstm``) and, in training, keeps each element of the previous ``c`` with probability
    ``c_ratio`` and of the previous ``h`` with probability ``h_ratio`` (``F.zoneout``, drawn
    from ``key``). ``apply(params, x, state, *, key=None, train=True) -> (h, state)``; the
    empty state (``init_state()``) starts from zeros; ``train=False`` takes every new value.

    >>> import numpy, fnet
    >>> lstm = StatefulZoneoutLSTM(3, 2)
    >>> params, state = lstm.init(fnet.random.key(0)), lstm.init_state()
    >>> h, state = lstm(params, numpy.ones((4, 3), numpy.float32), state, key=fnet.random.key(1))
    >>> h.shape
    (4, 2)
    """

    in_size: int
    out_size: int
    c_ratio: float = 0.5
    h_ratio: float = 0.5
    stateful = True

    def sublayers(self) -> dict[str, Linear]:
        """The Linear children, by name."""
        return _lstm_links(self.in_size, self.out_size)

    def init(self, key) -> dict:
        """``upward`` (``W``, ``b``) and ``lateral`` (``W``)."""
        return _init_children(key, self.sublayers())

    def init_state(self) -> dict:
        """The empty state ``{"c": None, "h": None}`` (Chainer's ``reset_state``)."""
        return {"c": None, "h": None}

    def apply(self, params, x, state, *, key=None, train: bool = True) -> tuple:
        """``(h, state)`` after one step on ``x``; ``key`` draws the zoneout in training."""
        fn = f"{type(self).__name__}.apply"
        _check_state(fn, state, ("c", "h"))
        if train and key is None:
            raise InvalidInputError(
                message(
                    fn,
                    "expected a random key for the zoneout, got key=None",
                    hint="pass key=fnet.random.key(seed) (a fresh one per step), or train=False",
                )
            )
        link = _caller(self.sublayers(), params)
        c, h = state["c"], state["h"]
        lstm_in = link("upward", x)
        if h is None:
            h = _zeros(x, self.out_size)
        else:
            lstm_in = ops.add(lstm_in, link("lateral", h))
        c_prev = _zeros(x, self.out_size) if c is None else c
        c_new, h_new = F.lstm(c_prev, lstm_in)
        c_key, h_key = random.split(key) if train else (None, None)
        c = F.zoneout(c_prev, c_new, self.c_ratio, key=c_key, train=train)
        h = F.zoneout(h, h_new, self.h_ratio, key=h_key, train=train)
        return h, {"c": c, "h": h}


# -- NStep layers ------------------------------------------------------------------------------
def _descending(fn: str, xs) -> numpy.ndarray:
    """The order of the sequences ``xs`` by decreasing length (stable)."""
    if not isinstance(xs, Sequence) or isinstance(xs, str) or not xs:
        raise InvalidInputError(
            message(
                fn,
                f"expected xs to be a non-empty list of sequences, got {type(xs).__name__}",
                hint="pass [x_0, x_1, ...] with x_i of shape (length_i, in_size), in any order",
            )
        )
    return numpy.argsort([-_shape(x)[0] if _shape(x) else 0 for x in xs], kind="stable").astype(numpy.int32)


@attrs.frozen
class _NStepBase(Layer):
    """Stacked (bi)directional recurrent layers over batches of variable-length sequences.

    Parameters, as in Chainer's ChainList: ``params[str(s)]`` for layer and direction ``s =
    layer * directions + direction`` holds ``w0, w1, ...`` (``(out_size, in)`` on the input
    of the first layer, ``(out_size, out_size * directions)`` on the input of the others and
    ``(out_size, out_size)`` on the state; the first half act on the input) drawn from
    ``initialW`` (LeCun normal), and ``b0, b1, ...`` ``(out_size,)`` from ``initial_bias`` (0).
    """

    n_layers: int
    in_size: int
    out_size: int
    dropout: float
    initialW: object = attrs.field(default=None, kw_only=True)
    initial_bias: object = attrs.field(default=None, kw_only=True)
    _n_weights = 0  # matrices per layer and direction
    _directions = 1
    _function = None  # the fnet.functions.n_step_* computing the stack (a staticmethod)

    def init(self, key) -> dict:
        """``{"0": {"w0": ..., "b0": ..., ...}, "1": ...}``, one entry per layer and direction."""
        draw_w = initializers.as_initializer(self.initialW, initializers.LeCunNormal())
        draw_b = initializers.as_initializer(self.initial_bias, initializers.Zero())
        half = self._n_weights // 2
        params = {}
        layer_keys = random.split(key, self.n_layers * self._directions)
        for s, layer_key in enumerate(layer_keys):
            # the first layer reads x; the others read the (concatenated) outputs below
            inputs = self.in_size if s < self._directions else self.out_size * self._directions
            keys = random.split(layer_key, 2 * self._n_weights)
            entry = {}
            for j in range(self._n_weights):
                width = inputs if j < half else self.out_size
                entry[f"w{j}"] = draw_w(keys[2 * j], (self.out_size, width))
                entry[f"b{j}"] = draw_b(keys[2 * j + 1], (self.out_size,))
            params[str(s)] = entry
        return params

    def _run(self, params, states: list, xs, key, train: bool) -> tuple[list, list]:
        """Chainer's ``NStepRNNBase._call``: sort the sequences by length, transpose them to
        time steps, run the stack, and undo both on the outputs; None states are zeros."""
        fn = f"{type(self).__name__}.apply"
        order = _descending(fn, xs)
        ordered = [xs[i] for i in order]
        layers = self.n_layers * self._directions
        raw = unbox_all(ordered[0])
        states = [
            backend.xp(raw).zeros((layers, len(xs), self.out_size), raw.dtype)
            if state is None
            else F.permutate(state, order, axis=1)
            for state in states
        ]
        ws = [[params[str(s)][f"w{j}"] for j in range(self._n_weights)] for s in range(layers)]
        bs = [[params[str(s)][f"b{j}"] for j in range(self._n_weights)] for s in range(layers)]
        steps = F.transpose_sequence(ordered)
        *finals, ys = self._function(
            self.n_layers, self.dropout, *states, ws, bs, steps, key=key, train=train
        )
        finals = [F.permutate(final, order, axis=1, inv=True) for final in finals]
        ys = F.transpose_sequence(ys)
        unsorted = [None] * len(xs)
        for i, y in zip(order, ys):
            unsorted[i] = y
        return finals, unsorted


@attrs.frozen
class _NStepCell(_NStepBase):
    """NStep layers with a cell state (the LSTMs)."""

    def apply(self, params, hx, cx, xs, *, key=None, train: bool = True) -> tuple:
        """``(hy, cy, ys)`` for the sequences ``xs`` from the states ``hx``, ``cx`` (None: zeros)."""
        (hy, cy), ys = self._run(params, [hx, cx], xs, key, train)
        return hy, cy, ys


@attrs.frozen
class _NStepPlain(_NStepBase):
    """NStep layers without a cell state (GRUs and plain RNNs)."""

    def apply(self, params, hx, xs, *, key=None, train: bool = True) -> tuple:
        """``(hy, ys)`` for the sequences ``xs`` from the state ``hx`` (None: zeros)."""
        (hy,), ys = self._run(params, [hx], xs, key, train)
        return hy, ys


@attrs.frozen
class NStepLSTM(_NStepCell):
    """Stacked LSTM over a batch of variable-length sequences, as Chainer's ``L.NStepLSTM``.

    ``NStepLSTM(n_layers, in_size, out_size, dropout, *, initialW=None, initial_bias=None)``.
    ``apply(params, hx, cx, xs, *, key=None, train=True) -> (hy, cy, ys)``: ``xs`` is a list of
    sequences ``(length_i, in_size)`` in any order; ``hx`` and ``cx`` are ``(n_layers,
    len(xs), out_size)``, None for zeros, and so are ``hy`` and ``cy``, the final states;
    ``ys[i]`` ``(length_i, out_size)`` holds the last layer's outputs for sequence ``i``. In
    training (``train=True``) the input of every layer above the first goes through dropout
    with ratio ``dropout``, drawn from ``key``. Computed by ``F.n_step_lstm``.

    Parameters (Chainer's ChainList of links): ``params[str(s)]`` for layer (and direction)
    ``s`` holds ``w0..w7`` and ``b0..b7`` in ``F.n_step_lstm``'s order; ``w0..w3`` act on the
    layer's input (``(out_size, in_size)`` on the first layer, ``(out_size, out_size *
    directions)`` above), ``w4..w7`` on the state (``(out_size, out_size)``). Weights are drawn
    from ``initialW`` (LeCun normal), biases from ``initial_bias`` (0).

    >>> import numpy, fnet
    >>> rnn = NStepLSTM(2, 3, 4, 0.0)
    >>> xs = [numpy.ones((5, 3), numpy.float32), numpy.ones((2, 3), numpy.float32)]
    >>> hy, cy, ys = rnn(rnn.init(fnet.random.key(0)), None, None, xs)
    >>> hy.shape, [y.shape for y in ys]
    ((2, 2, 4), [(5, 4), (2, 4)])
    """

    _n_weights = 8
    _function = staticmethod(F.n_step_lstm)


@attrs.frozen
class NStepBiLSTM(_NStepCell):
    """Stacked bidirectional LSTM over variable-length sequences, as Chainer's ``L.NStepBiLSTM``.

    As ``NStepLSTM`` with a forward and a backward LSTM on each layer (``params["2 * layer +
    direction"]``, states ``(2 * n_layers, len(xs), out_size)``); ``ys[i]`` is ``(length_i, 2
    * out_size)``, both directions concatenated. Computed by ``F.n_step_bilstm``.

    >>> import numpy, fnet
    >>> rnn = NStepBiLSTM(1, 3, 4, 0.0)
    >>> hy, cy, ys = rnn(rnn.init(fnet.random.key(0)), None, None, [numpy.ones((5, 3), numpy.float32)])
    >>> hy.shape, ys[0].shape
    ((2, 1, 4), (5, 8))
    """

    _n_weights = 8
    _directions = 2
    _function = staticmethod(F.n_step_bilstm)


@attrs.frozen
class NStepGRU(_NStepPlain):
    """Stacked GRU over a batch of variable-length sequences, as Chainer's ``L.NStepGRU``.

    As ``NStepLSTM`` without the cell state: ``apply(params, hx, xs, *, key=None, train=True)
    -> (hy, ys)``, with ``w0..w5`` and ``b0..b5`` per layer in ``F.n_step_gru``'s order
    (``w0..w2`` on the input).

    >>> import numpy, fnet
    >>> rnn = NStepGRU(1, 3, 4, 0.0)
    >>> hy, ys = rnn(rnn.init(fnet.random.key(0)), None, [numpy.ones((5, 3), numpy.float32)])
    >>> hy.shape, ys[0].shape
    ((1, 1, 4), (5, 4))
    """

    _n_weights = 6
    _function = staticmethod(F.n_step_gru)


@attrs.frozen
class NStepBiGRU(_NStepPlain):
    """Stacked bidirectional GRU over variable-length sequences, as Chainer's ``L.NStepBiGRU``.

    ``NStepGRU`` with both directions, laid out as in ``NStepBiLSTM``. Computed by
    ``F.n_step_bigru``.

    >>> import numpy, fnet
    >>> rnn = NStepBiGRU(1, 3, 4, 0.0)
    >>> hy, ys = rnn(rnn.init(fnet.random.key(0)), None, [numpy.ones((5, 3), numpy.float32)])
    >>> hy.shape, ys[0].shape
    ((2, 1, 4), (5, 8))
    """

    _n_weights = 6
    _directions = 2
    _function = staticmethod(F.n_step_bigru)


@attrs.frozen
class NStepRNNTanh(_NStepPlain):
    """Stacked Elman RNN with tanh over variable-length sequences, as Chainer's ``L.NStepRNNTanh``.

    As ``NStepGRU`` with ``w0``, ``w1``, ``b0``, ``b1`` per layer (``F.n_step_rnn``, tanh).

    >>> import numpy, fnet
    >>> rnn = NStepRNNTanh(1, 3, 4, 0.0)
    >>> hy, ys = rnn(rnn.init(fnet.random.key(0)), None, [numpy.ones((5, 3), numpy.float32)])
    >>> hy.shape, ys[0].shape
    ((1, 1, 4), (5, 4))
    """

    _n_weights = 2
    _function = staticmethod(functools.partial(F.n_step_rnn, activation="tanh"))


@attrs.frozen
class NStepRNNReLU(_NStepPlain):
    """Stacked Elman RNN with ReLU over variable-length sequences, as Chainer's ``L.NStepRNNReLU``.

    As ``NStepRNNTanh`` with ``relu`` (``F.n_step_rnn``, relu).

    >>> import numpy, fnet
    >>> rnn = NStepRNNReLU(1, 3, 4, 0.0)
    >>> hy, ys = rnn(rnn.init(fnet.random.key(0)), None, [numpy.ones((5, 3), numpy.float32)])
    >>> bool((ys[0] >= 0).all())
    True
    """

    _n_weights = 2
    _function = staticmethod(functools.partial(F.n_step_rnn, activation="relu"))


@attrs.frozen
class NStepBiRNNTanh(_NStepPlain):
    """Stacked bidirectional tanh RNN over variable-length sequences, as Chainer's ``L.NStepBiRNNTanh``.

    ``NStepRNNTanh`` with both directions, laid out as in ``NStepBiLSTM`` (``F.n_step_birnn``).

    >>> import numpy, fnet
    >>> rnn = NStepBiRNNTanh(1, 3, 4, 0.0)
    >>> hy, ys = rnn(rnn.init(fnet.random.key(0)), None, [numpy.ones((5, 3), numpy.float32)])
    >>> hy.shape, ys[0].shape
    ((2, 1, 4), (5, 8))
    """

    _n_weights = 2
    _directions = 2
    _function = staticmethod(functools.partial(F.n_step_birnn, activation="tanh"))


@attrs.frozen
class NStepBiRNNReLU(_NStepPlain):
    """Stacked bidirectional ReLU RNN over variable-length sequences, as Chainer's ``L.NStepBiRNNReLU``.

    ``NStepRNNReLU`` with both directions, laid out as in ``NStepBiLSTM`` (``F.n_step_birnn``).

    >>> import numpy, fnet
    >>> rnn = NStepBiRNNReLU(1, 3, 4, 0.0)
    >>> hy, ys = rnn(rnn.init(fnet.random.key(0)), None, [numpy.ones((5, 3), numpy.float32)])
    >>> hy.shape, ys[0].shape
    ((2, 1, 4), (5, 8))
    """

    _n_weights = 2
    _directions = 2
    _function = staticmethod(functools.partial(F.n_step_birnn, activation="relu"))
