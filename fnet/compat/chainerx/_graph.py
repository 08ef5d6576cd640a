"""An array's graphs on fnet's tape, and which graphs record now (the backprop modes).

A ChainerX array's value is a NumPy/CuPy array boxed in one fnet ``Tracer`` per graph it is in,
the highest trace level outermost (the order fnet's primitives unbox them in). Each backprop ID
is one level. ``no_backprop_mode``/``force_backprop_mode`` set, per thread, which levels record:
a routine strips the levels that do not from its operands before it runs.
"""

from __future__ import annotations

import contextlib
import contextvars

from ...autodiff import Tracer
from ._device import CHAINER_LEVEL, live_backprop_ids

__all__ = [
    "tracers",
    "at_level",
    "strip",
    "with_input",
    "rebox",
    "records",
    "set_mode",
    "mode",
    "level_records",
    "in_chainer_graph",
]

# (the contexts whose graphs are all off, {level: on?} for the graphs named in the innermost modes)
_mode: contextvars.ContextVar[tuple[frozenset, dict] | None] = contextvars.ContextVar(
    "chainerx_mode", default=None
)


def tracers(value) -> list:
    """The tracers of ``value``, outermost (highest level) first."""
    found = []
    while type(value) is Tracer:
        found.append(value)
        value = value.value
    return found


def at_level(value, level: int):
    """The tracer of ``value`` on ``level``, or None."""
    while type(value) is Tracer:
        if value.level == level:
            return value
        if value.level < level:
            return None
        value = value.value
    return None


def _rebuild(raw, kept) -> object:
    for tracer in reversed(kept):
        raw = Tracer(raw, tracer.level, tracer.record)
    return raw


def rebox(raw, value):
    """``raw`` in the graphs of ``value`` (the same records), in place of ``value``'s data."""
    return _rebuild(raw, tracers(value))


def strip(value, keep=None):
    """``value`` without its tracers on the levels for which ``keep(level)`` is False (all of
    them when ``keep`` is None)."""
    if type(value) is not Tracer:
        return value
    found = tracers(value)
    raw = found[-1].value
    if keep is None:
        return raw
    kept = [t for t in found if keep(t.level)]
    if len(kept) == len(found):
        return value
    return _rebuild(raw, kept)


def in_chainer_graph(value):
    """``value`` in the graph the Chainer layer shares (trace level 0) only: its tracer there,
    or its raw data when it is not in that graph."""
    return strip(value, _is_chainer_level)


def _is_chainer_level(level: int) -> bool:
    return level == CHAINER_LEVEL


def with_input(value, level: int, owner):
    """``value`` made an input of the graph on ``level`` (an input record presented by
    ``owner``); returns the new value and the record."""
    found = tracers(value)
    raw = found[-1].value if found else value
    new = Tracer.input(raw, level, owner=owner)
    kept = sorted([*found, new], key=lambda t: -t.level)
    return _rebuild(raw, kept), new.record


def records(value) -> dict:
    """``{level: record}`` for the graphs ``value`` is in."""
    return {t.level: t.record for t in tracers(value)}


def level_records(value, level: int):
    tracer = at_level(value, level)
    return None if tracer is None else tracer.record


def mode():
    """The current backprop mode: None (every graph records) or ``(contexts off, {level: on})``."""
    return _mode.get()


@contextlib.contextmanager
def set_mode(on: bool, levels, context=None):
    """Within the block, the graphs on ``levels`` (every graph of ``context``: None) record
    (``on``) or not."""
    off, named = _mode.get() or (frozenset(), {})
    if levels is None:
        off = off - {context} if on else off | {context}
        named = {level: v for level, v in named.items() if _context_of(level) is not context}
    else:
        named = {**named, **dict.fromkeys(levels, on)}
    token = _mode.set((off, named) if off or named else None)
    try:
        yield
    finally:
        _mode.reset(token)


def _context_of(level: int):
    bid = live_backprop_ids.get(level)
    return None if bid is None else bid.context


def recording(level: int) -> bool:
    """Whether the graph on ``level`` records now."""
    current = _mode.get()
    if current is None:
        return True
    off, named = current
    on = named.get(level)
    return on if on is not None else _context_of(level) not in off
