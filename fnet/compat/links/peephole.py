"""Chainer's ``L.StatefulPeepholeLSTM``: an LSTM whose gates also look at the cell state, a Chain
of Linear links (``upward``, ``lateral``, ``peep_i``, ``peep_f``, ``peep_o``) that keeps its
state in the Variables ``c`` and ``h``.

>>> import numpy
>>> lstm = StatefulPeepholeLSTM(3, 2)
>>> y = lstm(numpy.ones((4, 3), numpy.float32))
>>> y.shape, lstm.c.shape
((4, 2), (4, 2))
>>> lstm.reset_state()
>>> lstm.c is None and lstm.h is None
True
"""

from __future__ import annotations

from ..functions import reshape, separate, sigmoid, tanh
from ..link import Chain
from ..variable import Variable
from .connection import Linear

__all__ = ["StatefulPeepholeLSTM"]


class _StateVariables(Chain):
    """A Chain keeping a recurrent state in the Variable attributes named by ``_state_names``
    (None when empty), moved with the link between devices."""

    _state_names: tuple[str, ...] = ()

    def reset_state(self) -> None:
        """Forget the state (every state attribute becomes None): the next call starts afresh."""
        for name in self._state_names:
            setattr(self, name, None)

    def device_resident_accept(self, visitor) -> None:
        """Visit the parameters, then the state Variables (so that ``to_device`` moves them)."""
        super().device_resident_accept(visitor)
        for name in self._state_names:
            value = getattr(self, name)
            if value is not None:
                visitor.visit_variable(value)


class StatefulPeepholeLSTM(_StateVariables):
    """Fully connected LSTM with peephole connections, Chainer's ``L.StatefulPeepholeLSTM(in_size,
    out_size)``: children ``upward`` (``in_size -> 4 * out_size``), ``lateral`` (``out_size -> 4 *
    out_size``, no bias) and ``peep_i``, ``peep_f``, ``peep_o`` (``out_size -> out_size``, no bias).

    ``forward(x)`` advances the state: with the gate inputs ``a, i, f, o`` of ``upward(x) +
    lateral(h)`` (interleaved per unit, as in ``F.lstm``), ``c' = tanh(a) * sigmoid(i + peep_i(c))
    + sigmoid(f + peep_f(c)) * c`` and ``h' = sigmoid(o + peep_o(c')) * tanh(c')``; the first step
    after ``reset_state()`` has no lateral term and starts from ``c`` of zeros.
    """

    _state_names = ("c", "h")

    def __init__(self, in_size: int | None, out_size: int) -> None:
        super().__init__()
        self.state_size = out_size
        self.reset_state()
        with self.init_scope():
            self.upward = Linear(in_size, 4 * out_size)
            self.lateral = Linear(out_size, 4 * out_size, nobias=True)
            self.peep_i = Linear(out_size, out_size, nobias=True)
            self.peep_f = Linear(out_size, out_size, nobias=True)
            self.peep_o = Linear(out_size, out_size, nobias=True)

    def forward(self, x) -> Variable:
        """One step on ``x`` ``(batch, in_size)``: the new output ``h``, kept with the new ``c``."""
        gates = self.upward(x)
        if self.h is not None:
            gates = gates + self.lateral(self.h)
        if self.c is None:
            self.c = Variable(self.xp.zeros((len(x), self.state_size), dtype=x.dtype))
        a, i, f, o = separate(reshape(gates, (len(gates), gates.shape[1] // 4, 4)), axis=2)
        c = self.c
        self.c = tanh(a) * sigmoid(i + self.peep_i(c)) + sigmoid(f + self.peep_f(c)) * c
        self.h = sigmoid(o + self.peep_o(self.c)) * tanh(self.c)
        return self.h
