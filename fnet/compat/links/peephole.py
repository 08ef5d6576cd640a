"""Chainer's ``L.StatefulPeepholeLSTM``: the pure ``fnet.nn.StatefulPeepholeLSTM`` (an LSTM whose
gates also look at the cell state) as a Chain of Linear links (``upward``, ``lateral``,
``peep_i``, ``peep_f``, ``peep_o``) that keeps its state in the Variables ``c`` and ``h``.

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

from ... import nn
from ._adapter import spec_constructor
from .rnn import _CellAndOutput

__all__ = ["StatefulPeepholeLSTM"]


class StatefulPeepholeLSTM(_CellAndOutput):
    """Fully connected LSTM with peephole connections, Chainer's ``L.StatefulPeepholeLSTM(in_size,
    out_size)``: children ``upward`` (``in_size -> 4 * out_size``), ``lateral`` (``out_size -> 4 *
    out_size``, no bias) and ``peep_i``, ``peep_f``, ``peep_o`` (``out_size -> out_size``, no bias).

    ``forward(x)`` advances the state ``c``, ``h`` (see ``fnet.nn.StatefulPeepholeLSTM`` for the
    formulas); the first step after ``reset_state()`` has no lateral term and starts from ``c``
    of zeros.
    """

    spec_type = nn.StatefulPeepholeLSTM
    __init__ = spec_constructor(nn.StatefulPeepholeLSTM)
