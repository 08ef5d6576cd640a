"""Chainer's recurrent links: ``L.LSTM``, ``L.StatelessLSTM``, the GRU and MGU links,
``L.StatefulZoneoutLSTM`` and the ``L.NStep*`` stacks, each a ``SpecLink`` around its spec.

The stateful links keep their state as Variables in attributes (``c`` and ``h``, or ``h``)
that every call advances: ``reset_state()`` empties it (the next call starts from zeros, or
from the GRU's first step) and ``set_state(...)`` sets it. Their projections are Linear
children (``upward``/``lateral``, ``W_r``/``U_r``/..., ``W_f``/``W_h``); the NStep links are
ChainLists of one plain link per layer and direction, holding ``w0, w1, ...`` and ``b0, b1, ...``.

>>> import numpy
>>> lstm = LSTM(3, 2)
>>> y = lstm(numpy.ones((4, 3), numpy.float32))
>>> y.shape, lstm.c.shape
((4, 2), (4, 2))
>>> lstm.reset_state()
>>> lstm.h is None
True
"""

from __future__ import annotations

from typing import Any

import numpy

from ... import nn
from ...errors import message
from .. import functions as _functions
from ..functions import unwrap, wrap
from ..link import Chain, ChainList
from ..variable import Variable
from ._adapter import SpecLink, parse_kwargs, spec_attribute, spec_constructor, spec_view

__all__ = [
    "LSTM",
    "StatelessLSTM",
    "GRU",
    "StatelessGRU",
    "StatefulGRU",
    "StatefulZoneoutLSTM",
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

_RETIRED_TRAIN = {"train": "train argument is not supported anymore. Use chainer.using_config"}
_LSTM_INITIALIZERS = ("lateral_init", "upward_init", "bias_init", "forget_bias_init")
_GRU_INITIALIZERS = ("init", "inner_init", "bias_init")


class _Cell(SpecLink, Chain):
    """Recurrent links whose projections are Linear children named by the spec."""

    state_size = spec_attribute("out_size", "The size of the state (the output size).")


class LSTMBase(_Cell):
    """Chainer's base of the LSTM links: their initial values, as Chainer keeps them."""

    lateral_init = spec_attribute("lateral_init", "The initializer of ``lateral.W`` (None: LeCun normal).")
    upward_init = spec_attribute("upward_init", "The initializer of ``upward.W`` (None: LeCun normal).")
    bias_init = spec_view(lambda s: _or(s.bias_init, 0), "The initial bias of the a, i, o gates.")
    forget_bias_init = spec_view(
        lambda s: _or(s.forget_bias_init, 1), "The initial bias of the forget gates."
    )


def _or(value, default):
    return default if value is None else value


class _Stateful(_Cell):
    """Links that keep their recurrent state in Variable attributes (``_state_names``)."""

    _keeps_state = False
    _state_names: tuple[str, ...] = ()

    def reset_state(self) -> None:
        """Forget the state: the next call starts afresh."""
        for name in self._state_names:
            setattr(self, name, None)

    def _set_state(self, **states: Variable) -> None:
        """Chainer's ``set_state``: the given Variables become the state, moved to the link's device."""
        for name, value in states.items():
            if not isinstance(value, Variable):
                raise AssertionError(
                    f"{type(self).__name__}.set_state: expected {name} to be a Variable, "
                    f"got {type(value).__name__}\n"
                    f"  hint: wrap the array, e.g. chainer.Variable({name})"
                )
            value.to_device(self.device)
        for name, value in states.items():
            setattr(self, name, value)

    def device_resident_accept(self, visitor) -> None:
        """Visit the parameters, then the state Variables (so that ``to_device`` moves them)."""
        super().device_resident_accept(visitor)
        for name in self._state_names:
            value = getattr(self, name)
            if value is not None:
                visitor.visit_variable(value)

    def forward(self, x) -> Variable:
        """One step on ``x``: the output, the new state kept in the attributes."""
        state = {name: unwrap(getattr(self, name)) for name in self._state_names}
        y, new = self._apply("apply", x, state)
        for name in self._state_names:
            value = new[name]
            setattr(self, name, y if value is unwrap(y) else wrap(value))
        return y


class _CellAndOutput(_Stateful):
    """A state of a cell ``c`` and an output ``h`` (the LSTMs)."""

    _state_names = ("c", "h")
    c = None
    h = None

    def set_state(self, c: Variable, h: Variable) -> None:
        """Set the cell state ``c`` and the output ``h`` (Variables, moved to the link's device)."""
        self._set_state(c=c, h=h)


class _Output(_Stateful):
    """A state that is the output ``h`` (the GRU and the MGU)."""

    _state_names = ("h",)
    h = None

    def set_state(self, h: Variable) -> None:
        """Set the state ``h`` (a Variable, moved to the link's device)."""
        self._set_state(h=h)


class LSTM(LSTMBase, _CellAndOutput):
    """Fully connected LSTM layer, Chainer's ``L.LSTM(in_size, out_size=None, lateral_init=None,
    upward_init=None, bias_init=None, forget_bias_init=None)``: children ``upward`` (``in_size
    -> 4 * out_size``) and ``lateral`` (no bias); the forget gates' bias starts at 1.

    ``LSTM(out_size)`` infers ``in_size``. ``forward(x)`` advances the state ``c``, ``h``; a batch
    smaller than the state updates its first rows only (sequences sorted by decreasing length).
    """

    spec_type = nn.LSTM
    __init__ = spec_constructor(nn.LSTM, *_LSTM_INITIALIZERS)

    def forward(self, x) -> Variable:
        """One step on ``x``; a batch larger than the state's is a ``TypeError``, as in Chainer."""
        if self.h is not None and x.shape[0] > self.h.shape[0]:
            raise TypeError(
                message(
                    "LSTM.forward",
                    f"expected len(x) <= len(h), got {x.shape[0]} > {self.h.shape[0]}",
                    {"x": unwrap(x), "h": unwrap(self.h)},
                    "the batch may only shrink from one step to the next (sort sequences by "
                    "decreasing length), or call reset_state() first",
                )
            )
        return super().forward(x)


class StatelessLSTM(LSTMBase):
    """One LSTM step with the state passed in and out, Chainer's ``L.StatelessLSTM(in_size,
    out_size=None, ...)`` (the arguments of LSTM): ``forward(c, h, x) -> (c_new, h_new)``; ``h``
    None adds no lateral term and ``c`` None starts from zeros."""

    spec_type = nn.StatelessLSTM
    __init__ = spec_constructor(nn.StatelessLSTM, *_LSTM_INITIALIZERS)
    _example_arg = (2, "x")


class GRUBase(_Cell):
    """Chainer's base of the GRU links (``W_r``, ``U_r``, ``W_z``, ``U_z``, ``W``, ``U``)."""


class StatelessGRU(GRUBase):
    """One GRU step, Chainer's ``L.StatelessGRU(in_size, out_size, init=None, inner_init=None,
    bias_init=None)``: ``forward(h, x) -> h_new``; Linear children ``W_r``, ``U_r``, ``W_z``,
    ``U_z``, ``W``, ``U``."""

    spec_type = nn.StatelessGRU
    __init__ = spec_constructor(nn.StatelessGRU, *_GRU_INITIALIZERS)
    _example_arg = (1, "x")


class StatefulGRU(GRUBase, _Output):
    """GRU layer, Chainer's ``L.StatefulGRU(in_size, out_size, init=None, inner_init=None,
    bias_init=0)``: ``forward(x)`` advances the state ``h``; from the empty state the first step
    is ``sigmoid(W_z x) * tanh(W x)``."""

    spec_type = nn.StatefulGRU
    __init__ = spec_constructor(nn.StatefulGRU, *_GRU_INITIALIZERS)


class GRU(StatefulGRU):
    """Chainer's ``L.GRU``: the stateful GRU since Chainer v2 (``forward(x)``); a call with two
    arguments, the stateless ``GRU(h, x)`` of Chainer v1, is refused with a hint."""

    spec_type = nn.GRU
    __init__ = spec_constructor(nn.GRU, *_GRU_INITIALIZERS)

    def forward(self, *args: Any) -> Variable:
        """One step on ``x`` (the only argument)."""
        if len(args) != 1:
            message = f"Invalid argument. The length of GRU.forward must be 1. But {len(args)} is given. "
            if len(args) == 2:
                message += (
                    "In Chainer v2, chainer.links.GRU is changed from stateless to stateful. One possibility "
                    "is you assume GRU to be stateless. Use chainer.links.StatelessGRU instead."
                )
            raise ValueError(message)
        return super().forward(args[0])


class MGUBase(_Cell):
    """Chainer's base of the minimal gated unit links (``W_f`` and ``W_h``)."""


class StatelessMGU(MGUBase):
    """One minimal gated unit step, Chainer's ``L.StatelessMGU(n_inputs, n_units)``:
    ``forward(h, x) -> h_new``; Linear children ``W_f`` and ``W_h`` on ``[h, x]``."""

    spec_type = nn.StatelessMGU
    __init__ = spec_constructor(nn.StatelessMGU)


class StatefulMGU(MGUBase, _Output):
    """Minimal gated unit layer, Chainer's ``L.StatefulMGU(in_size, out_size)``: ``forward(x)``
    advances the state ``h`` (zeros after ``reset_state()``)."""

    spec_type = nn.StatefulMGU
    __init__ = spec_constructor(nn.StatefulMGU)


class StatefulZoneoutLSTM(_CellAndOutput):
    """LSTM with zoneout, Chainer's ``L.StatefulZoneoutLSTM(in_size, out_size, c_ratio=0.5,
    h_ratio=0.5)``: in training each element of the state keeps its previous value with
    probability ``c_ratio`` / ``h_ratio`` (drawn from NumPy's global random state)."""

    spec_type = nn.StatefulZoneoutLSTM
    __init__ = spec_constructor(nn.StatefulZoneoutLSTM, retired=_RETIRED_TRAIN)
    c_ratio = spec_attribute("c_ratio", "The probability of keeping each element of ``c``.", settable=True)
    h_ratio = spec_attribute("h_ratio", "The probability of keeping each element of ``h``.", settable=True)

    def forward(self, x) -> Variable:
        """One step on ``x``, made of Chainer's functions as Chainer's link is, so that ``c``
        and ``h`` come from ``F.zoneout`` (their creators hold the flags it drew)."""
        if self._pending:
            self._initialize((x, self._spec.init_state()), {})
        lstm_in = self.upward(x)
        if self.h is None:
            self.h = Variable(self.xp.zeros((x.shape[0], self.state_size), x.dtype))
        else:
            lstm_in = lstm_in + self.lateral(self.h)
        if self.c is None:
            self.c = Variable(self.xp.zeros((x.shape[0], self.state_size), x.dtype))
        c_new, h_new = _functions.lstm(self.c, lstm_in)
        self.c = _functions.zoneout(self.c, c_new, self.c_ratio)
        self.h = _functions.zoneout(self.h, h_new, self.h_ratio)
        return self.h


# -- NStep stacks ------------------------------------------------------------------------------
_RETIRED_NSTEP = {
    "use_cudnn": "use_cudnn argument is not supported anymore. Use chainer.using_config",
    "use_bi_direction": "use_bi_direction is not supported anymore",
    "activation": "activation is not supported anymore",
}


def argsort_list_descent(lst) -> numpy.ndarray:
    """The indices (int32) that order the sequences of ``lst`` from the longest to the shortest."""
    return numpy.argsort([-len(x) for x in lst]).astype(numpy.int32)


def permutate_list(lst, indices, inv: bool) -> list:
    """``lst`` reordered by ``indices`` (``[lst[i] for i in indices]``), or, with ``inv``, put
    back in the order before that reordering."""
    if not inv:
        return [lst[i] for i in indices]
    out = [None] * len(lst)
    for item, i in zip(lst, indices, strict=True):
        out[i] = item
    return out


def _nstep_constructor(spec_type: type):
    """The constructor of an NStep link: the spec's arguments, Chainer v1's keywords refused."""
    return spec_constructor(spec_type, "initialW", "initial_bias", retired=_RETIRED_NSTEP)


class NStepRNNBase(SpecLink, ChainList):
    """Stacked recurrent layers over lists of variable-length sequences (Chainer's
    ``NStepRNNBase``): one child link per layer and direction, with the parameters ``w0...``,
    ``b0...``. In training the inputs of the layers above the first go through dropout."""

    n_weights = 0
    use_bi_direction = False
    n_cells = 1
    n_layers = spec_attribute("n_layers", "The number of layers.")
    out_size = spec_attribute("out_size", "The size of the hidden state.")
    dropout = spec_attribute("dropout", "The dropout ratio between the layers.", settable=True)

    def __init_subclass__(cls, **kwargs):
        """A subclass naming its ``spec_type`` gets that spec's constructor, its number of
        weight matrices per layer (``n_weights``) and its directions (``use_bi_direction``)."""
        super().__init_subclass__(**kwargs)
        spec_type = cls.__dict__.get("spec_type")
        if spec_type is not None:
            if "__init__" not in cls.__dict__:
                cls.__init__ = _nstep_constructor(spec_type)
            cls.n_weights = spec_type._n_weights
            cls.use_bi_direction = spec_type._directions == 2

    @property
    def direction(self) -> int:
        """2 for the bidirectional stacks, 1 otherwise."""
        return 2 if self.use_bi_direction else 1

    @property
    def ws(self) -> list[list]:
        """The weight Parameters, ``ws[layer][j]`` (``w<j>`` of each child)."""
        return [[getattr(layer, f"w{j}") for j in range(self.n_weights)] for layer in self]

    @property
    def bs(self) -> list[list]:
        """The bias Parameters, ``bs[layer][j]``."""
        return [[getattr(layer, f"b{j}") for j in range(self.n_weights)] for layer in self]

    def init_hx(self, xs) -> Variable:
        """A zero state ``(n_layers * direction, len(xs), out_size)`` in the dtype of ``xs``."""
        shape = (self.n_layers * self.direction, len(xs), self.out_size)
        return Variable(self.xp.zeros(shape, dtype=xs[0].dtype))

    def _run(self, *args: Any, kwargs: dict):
        parse_kwargs(f"{type(self).__name__}.forward", kwargs, {}, _RETIRED_TRAIN)
        return self._apply("apply", *args)

    def forward(self, hx, xs, **kwargs: Any) -> tuple:
        """``(hy, ys)`` for the sequences ``xs`` (a list, any order) from the state ``hx``
        ``(n_layers * direction, len(xs), out_size)`` (None: zeros)."""
        return self._run(hx, xs, kwargs=kwargs)


class NStepLSTMBase(NStepRNNBase):
    """The NStep LSTMs: a cell state besides the hidden state."""

    n_cells = 2

    def forward(self, hx, cx, xs, **kwargs: Any) -> tuple:
        """``(hy, cy, ys)`` for the sequences ``xs`` (a list, any order) from the states ``hx``
        and ``cx`` ``(n_layers * direction, len(xs), out_size)`` (None: zeros)."""
        return self._run(hx, cx, xs, kwargs=kwargs)


class NStepLSTM(NStepLSTMBase):
    """Stacked LSTM, Chainer's ``L.NStepLSTM(n_layers, in_size, out_size, dropout, *,
    initialW=None, initial_bias=None)``: ``forward(hx, cx, xs) -> (hy, cy, ys)``."""

    spec_type = nn.NStepLSTM


class NStepBiLSTM(NStepLSTMBase):
    """Stacked bidirectional LSTM, Chainer's ``L.NStepBiLSTM(n_layers, in_size, out_size,
    dropout, *, initialW=None, initial_bias=None)``: ``ys[i]`` holds both directions."""

    spec_type = nn.NStepBiLSTM


class NStepGRUBase(NStepRNNBase):
    """Chainer's base of the NStep GRU links."""


class NStepGRU(NStepGRUBase):
    """Stacked GRU, Chainer's ``L.NStepGRU(n_layers, in_size, out_size, dropout, *,
    initialW=None, initial_bias=None)``: ``forward(hx, xs) -> (hy, ys)``."""

    spec_type = nn.NStepGRU


class NStepBiGRU(NStepGRUBase):
    """Stacked bidirectional GRU, Chainer's ``L.NStepBiGRU(n_layers, in_size, out_size, dropout,
    *, initialW=None, initial_bias=None)``."""

    spec_type = nn.NStepBiGRU


class NStepRNNTanh(NStepRNNBase):
    """Stacked Elman RNN with tanh, Chainer's ``L.NStepRNNTanh(n_layers, in_size, out_size,
    dropout, *, initialW=None, initial_bias=None)``."""

    spec_type = nn.NStepRNNTanh


class NStepRNNReLU(NStepRNNBase):
    """Stacked Elman RNN with ReLU, Chainer's ``L.NStepRNNReLU(n_layers, in_size, out_size,
    dropout, *, initialW=None, initial_bias=None)``."""

    spec_type = nn.NStepRNNReLU


class NStepBiRNNTanh(NStepRNNBase):
    """Stacked bidirectional tanh RNN, Chainer's ``L.NStepBiRNNTanh(n_layers, in_size, out_size,
    dropout, *, initialW=None, initial_bias=None)``."""

    spec_type = nn.NStepBiRNNTanh


class NStepBiRNNReLU(NStepRNNBase):
    """Stacked bidirectional ReLU RNN, Chainer's ``L.NStepBiRNNReLU(n_layers, in_size, out_size,
    dropout, *, initialW=None, initial_bias=None)``."""

    spec_type = nn.NStepBiRNNReLU
