"""Recurrent routines: ``lstm``, ``slstm``, ``tree_lstm`` and the stacked ``n_step_*`` networks, each one
fnet function on the unwrapped arrays (nested lists of weights included), without dropout."""

from __future__ import annotations

from ... import functions as F
from ...errors import message
from ._array import ndarray, unwrap, wrap
from ._device import get_default_device
from ._errors import DtypeError
from ._routine import chainerx_errors

__all__ = [
    "lstm",
    "slstm",
    "tree_lstm",
    "n_step_lstm",
    "n_step_bilstm",
    "n_step_gru",
    "n_step_bigru",
    "n_step_rnn",
    "n_step_birnn",
]


def _flatten(tree, out: list) -> None:
    for item in tree:
        if isinstance(item, (list, tuple)):
            _flatten(item, out)
        else:
            out.append(item)


def _values(name: str, trees):
    """The unwrapped values of nested lists of ndarrays, in the same nesting, and their device."""
    flat: list = []
    _flatten(trees, flat)
    dtypes = {a.dtype for a in flat if isinstance(a, ndarray)}
    if any(d.kind != "f" for d in dtypes) or len(dtypes) > 1:
        raise DtypeError(
            message(
                f"chainerx.{name}",
                f"expected arrays of one float dtype, got {sorted(map(str, dtypes))}",
                hint="cast them all to one float dtype first",
            )
        )
    values, device = unwrap(name, flat)
    it = iter(values)

    def rebuild(tree):
        return [rebuild(t) if isinstance(t, (list, tuple)) else next(it) for t in tree]

    return rebuild(trees), device or get_default_device()


def _wrap(result, device):
    """ChainerX's nesting of results: arrays, and lists of arrays for sequences."""
    if isinstance(result, (list, tuple)):
        return [_wrap(r, device) for r in result]
    return wrap(result, device)


def lstm(c, x) -> tuple:
    """One LSTM step: the new cell and output from cell ``c`` and the gates' input ``x``."""
    (cv, xv), device = _values("lstm", [c, x])
    with chainerx_errors("lstm"):
        return tuple(_wrap(list(F.lstm(cv, xv)), device))


def slstm(c1, c2, x1, x2) -> tuple:
    """One S-LSTM step merging two children's cells ``c1``, ``c2``."""
    values, device = _values("slstm", [c1, c2, x1, x2])
    with chainerx_errors("slstm"):
        return tuple(_wrap(list(F.slstm(*values)), device))


def tree_lstm(*inputs) -> tuple:
    """One TreeLSTM step: the new cell and output from the children's cells ``c1, ..., cN`` and
    the input ``x`` (``inputs = (c1, ..., cN, x)``; ``x`` holds N + 3 blocks of a cell's width)."""
    values, device = _values("tree_lstm", list(inputs))
    with chainerx_errors("tree_lstm"):
        return tuple(_wrap(list(F.tree_lstm(*values)), device))


def _stacked(name: str, fn, with_cell: bool):
    def routine(n_layers, *args, **kwargs):
        values, device = _values(name, list(args))
        with chainerx_errors(name):
            result = fn(n_layers, 0.0, *values, train=False, **kwargs)
        hy, *rest = result
        wrapped = [wrap(hy, device)]
        if with_cell:
            wrapped.append(wrap(rest[0], device))
        wrapped.append(_wrap(list(rest[-1]), device))
        return tuple(wrapped)

    routine.__name__ = name
    routine.__doc__ = f"``{name}``: a stacked recurrent network over the sequences ``xs`` (no dropout)."
    return routine


n_step_lstm = _stacked("n_step_lstm", F.n_step_lstm, True)
n_step_bilstm = _stacked("n_step_bilstm", F.n_step_bilstm, True)
n_step_gru = _stacked("n_step_gru", F.n_step_gru, False)
n_step_bigru = _stacked("n_step_bigru", F.n_step_bigru, False)
n_step_rnn = _stacked("n_step_rnn", F.n_step_rnn, False)
n_step_birnn = _stacked("n_step_birnn", F.n_step_birnn, False)
