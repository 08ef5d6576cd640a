"""From a recording to a replay: drop the ops nothing reads, free each value after its last
use, let a ufunc write into a dead temporary of its result's layout, and write the ops out as
one Python function that makes the same raw calls in the same order.

The function is generated source (kept on the plan as ``source``): each op is one statement on
local names, so a replay costs the NumPy calls and little else.
"""

from __future__ import annotations

import numpy

from ..errors import CaptureError, message
from ._record import CapturedArray, Op, _captured_in

__all__ = ["Plan", "compile_plan"]

# How many ops ahead a dead temporary may be kept for a ufunc that makes an array of its layout:
# a short wait, so that memory stays at most the eager step's.
_REUSE_WINDOW = 8
# Only temporaries this large are reused: below it, NumPy's own cache of small blocks makes a
# new array cheaper than passing ``out=`` (measured: 8% slower per op on 10-element arrays).
_REUSE_MIN_BYTES = 1 << 16


class Plan:
    """A compiled recording: ``replay(*arrays)`` returns the output leaves."""

    __slots__ = ("replay", "source", "out_structure", "array_leaves", "ops_recorded", "ops_kept", "reused")

    def __init__(self, replay, source, out_structure, array_leaves, ops_recorded, ops_kept, reused):
        self.replay = replay
        self.source = source
        self.out_structure = out_structure
        self.array_leaves = array_leaves  # indices of the input leaves that are arrays
        self.ops_recorded = ops_recorded
        self.ops_kept = ops_kept
        self.reused = reused  # how many results are written into a dead temporary


def _results(op: Op) -> list:
    return _captured_in(op.result)


def _reads(op: Op) -> list:
    return _captured_in(op.args) + _captured_in(op.kwargs)


class _Groups:
    """Union-find over slots: values that may share memory (a view and its base)."""

    def __init__(self):
        self.parent: dict = {}

    def find(self, s: int) -> int:
        parent = self.parent
        while parent.get(s, s) != s:
            parent[s] = parent.get(parent[s], parent[s])
            s = parent[s]
        return s

    def union(self, a: int, b: int) -> None:
        ra, rb = self.find(a), self.find(b)
        if ra != rb:
            self.parent[ra] = rb


def _alias_groups(ops: list) -> _Groups:
    groups = _Groups()
    for op in ops:
        if op.fresh:
            continue
        results = _results(op)
        for r in results:
            for a in _reads(op):
                groups.union(r.slot, a.slot)
    return groups


def _live_ops(ops: list, inputs: list, outputs: list, groups: _Groups) -> list:
    """The ops that make an output or change a value that is read later (or an input)."""
    needed = {c.slot for c in outputs}
    needed_groups = {groups.find(s) for s in needed} | {groups.find(c.slot) for c in inputs}
    kept = []
    for op in reversed(ops):
        makes = any(r.slot in needed for r in _results(op))
        changes = any(groups.find(m.slot) in needed_groups for m in op.mutates)
        if not (makes or changes or op.effect):
            continue
        kept.append(op)
        for c in _reads(op) + _results(op):
            needed.add(c.slot)
            needed_groups.add(groups.find(c.slot))
    kept.reverse()
    return kept


def _layout(c: CapturedArray):
    v = c.value
    return (v.shape, v.dtype, v.strides)


def _recyclable(ops: list, outputs: list, inputs: list) -> set:
    """Slots whose buffer may be given to a later ufunc once they are dead: fresh ufunc results
    (ndarrays of at least one dimension) read only by ufunc calls, never outputs, never changed."""
    candidates = {op.result.slot for op in ops if _makes_a_fresh_array(op)}
    banned = {c.slot for c in outputs} | {c.slot for c in inputs}
    for op in ops:
        banned.update(m.slot for m in op.mutates)
        if not (op.fresh and isinstance(op.fn, numpy.ufunc)) or "where" in op.kwargs:
            banned.update(c.slot for c in _reads(op))
    return candidates - banned


class _Writer:
    """Writes ops out as Python statements; constants go into the function's namespace."""

    def __init__(self):
        # the generated code's module is this one: what it does is fnet's (to tools that ask)
        self.namespace: dict = {"__name__": __name__, "_shape_changed": _shape_changed}
        self.constants: dict = {}

    def constant(self, value) -> str:
        key = id(value)
        name = self.constants.get(key)
        if name is None:
            name = self.constants[key] = f"k{len(self.constants)}"
            self.namespace[name] = value
        return name

    def expr(self, template) -> str:
        kind = type(template)
        if kind is CapturedArray:
            return f"t{template.slot}"
        if kind is tuple:
            return "(" + "".join(self.expr(t) + ", " for t in template) + ")"
        if kind is list:
            return "[" + ", ".join(self.expr(t) for t in template) + "]"
        if kind is dict:
            return "{" + ", ".join(f"{self.constant(k)}: {self.expr(v)}" for k, v in template.items()) + "}"
        if kind is slice and _captured_in(template):
            start, stop, step = (self.expr(t) for t in (template.start, template.stop, template.step))
            return f"slice({start}, {stop}, {step})"
        if template is None or kind is bool or kind is int or kind is str:
            return repr(template)
        return self.constant(template)

    def target(self, result) -> str:
        kind = type(result)
        if kind is CapturedArray:
            return f"t{result.slot}"
        if isinstance(result, (tuple, list)):
            return "(" + "".join(self.target(r) + ", " for r in result) + ")"
        return "_"

    def call(self, op: Op, out_name: str | None) -> str:
        args = [self.expr(a) for a in op.args]
        kwargs = [f"{k}={self.expr(v)}" for k, v in op.kwargs.items()]
        if out_name is not None:
            kwargs.append(f"out={out_name}")
        if op.kind == "call":
            return f"{self.constant(op.fn)}({', '.join(args + kwargs)})"
        if op.kind == "method":
            return f"{args[0]}.{op.fn}({', '.join(args[1:] + kwargs)})"
        if op.kind == "attr":
            return f"{args[0]}.{op.fn}"
        if op.kind == "getitem":
            return f"{args[0]}[{args[1]}]"
        raise AssertionError(op.kind)

    def statement(self, op: Op, out_name: str | None) -> str:
        if op.kind == "setitem":
            return f"{self.expr(op.args[0])}[{self.expr(op.args[1])}] = {self.expr(op.args[2])}"
        call = self.call(op, out_name)
        if op.result is None or not _results(op):
            return call
        return f"{self.target(op.result)} = {call}"


def _makes_a_fresh_array(op: Op) -> bool:
    """Whether ``op`` is a ufunc call whose one result is a new ndarray of at least one
    dimension (a NumPy scalar cannot be written into)."""
    return (
        op.fresh
        and type(op.result) is CapturedArray
        and isinstance(op.fn, numpy.ufunc)
        and type(op.result.value) is numpy.ndarray
        and op.result.value.ndim >= 1
    )


def _takes_a_buffer(op: Op) -> bool:
    """Whether ``op`` is a ufunc call that can write its result into a dead temporary."""
    return (
        _makes_a_fresh_array(op) and "where" not in op.kwargs and op.result.value.nbytes >= _REUSE_MIN_BYTES
    )


def _next_taker(wants: dict, claims: dict, index: int, layout) -> int | None:
    """The first op after ``index``, within the window, that wants a buffer of ``layout`` and
    has none yet."""
    for j in range(index + 1, index + 1 + _REUSE_WINDOW):
        if wants.get(j) == layout and j not in claims:
            return j
    return None


def _shape_changed(where: str, recorded, got):
    raise CaptureError(
        message(
            "fnet.capture",
            f"{where} made an array of shape {got} where the recording made one of shape {recorded}: "
            "its shape depends on the values (a boolean mask, nonzero, unique...), and the steps "
            "after it were recorded for the old shape",
            hint="keep this step eager, or make the shape fixed (e.g. numpy.where(mask, x, 0) "
            "instead of x[mask])",
        )
    )


def compile_plan(
    ops: list, inputs: list, outputs: list, out_structure, array_leaves, name: str, reuse: bool = True
) -> Plan:
    """Compile the ops of a recording into a ``Plan``.

    ``inputs`` are the captured arrays of the input leaves, in order; ``outputs`` the output
    leaves (captured arrays, or constants returned as they are). ``reuse``: write results into
    dead temporaries (on the host; a device's memory pool already recycles its blocks).
    """
    out_captured = [o for o in outputs if type(o) is CapturedArray]
    groups = _alias_groups(ops)
    kept = _live_ops(ops, inputs, out_captured, groups)
    recyclable = _recyclable(kept, out_captured, inputs) if reuse else set()
    last_use: dict = {}
    for index, op in enumerate(kept):
        for c in _reads(op) + _results(op):
            last_use[c.slot] = index
    keep_alive = {c.slot for c in out_captured} | {c.slot for c in inputs}
    writer = _Writer()
    lines = [f"def replay({''.join(f't{c.slot}, ' for c in inputs)}):"]
    wants = {i: _layout(op.result) for i, op in enumerate(kept) if _takes_a_buffer(op)}
    claims: dict = {}  # op index -> the name of the dead temporary it writes into
    reused = 0
    for index, op in enumerate(kept):
        out_name = claims.pop(index, None)
        reused += out_name is not None
        lines.append("    " + writer.statement(op, out_name))
        if op.guard:
            for r in _results(op):
                shape = writer.constant(tuple(r.value.shape))
                where = writer.constant(f"{op!r} (recorded as slot {r.slot})")
                t = f"t{r.slot}"
                lines.append(f"    if {t}.shape != {shape}: _shape_changed({where}, {shape}, {t}.shape)")
        touched = {c.slot: c for c in _reads(op) + _results(op)}
        dead = []
        for slot in sorted(s for s in touched if last_use[s] == index and s not in keep_alive):
            taker = _next_taker(wants, claims, index, _layout(touched[slot])) if slot in recyclable else None
            if taker is None:
                dead.append(f"t{slot}")
            else:  # kept, under its name, for the ufunc a few ops on that makes an array of its layout
                claims[taker] = f"t{slot}"
        if out_name is not None:
            dead.append(out_name)  # the result holds the buffer now
        if dead:
            lines.append(f"    del {', '.join(dead)}")
    lines.append("    return (" + "".join(writer.expr(o) + ", " for o in outputs) + ")")
    source = "\n".join(lines) + "\n"
    exec(compile(source, f"<fnet.capture of {name}>", "exec"), writer.namespace)  # noqa: S102 - our own generated code
    return Plan(writer.namespace["replay"], source, out_structure, array_leaves, len(ops), len(kept), reused)
