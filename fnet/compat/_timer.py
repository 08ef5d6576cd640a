"""What the two ``TimerHook`` classes share (``chainer.function_hooks`` and
``chainer.link_hooks``): timing nested calls, with ``time.perf_counter`` on NumPy arrays and
CUDA events on a GPU, and choosing a unit to print the times in."""

from __future__ import annotations

import time

import numpy


class NestedCallTimer:
    """Times calls that may nest: each timed call adds ``(name, seconds)`` to ``call_history``,
    and ``_total_time`` sums the outermost calls only (an inner call is inside its caller's time).

    Subclasses make ``call_history``, ``_running_stack``, ``_depth`` and ``_total_time``.
    """

    table = {"sec": 1, "ms": 10**3, "us": 10**6, "ns": 10**9}

    call_history: list
    _running_stack: list
    _depth: int
    _total_time: float

    def _start_timing(self, xp) -> None:
        """Start timing a call whose arrays are of the array module ``xp``."""
        if xp is numpy:
            started = time.perf_counter()
        else:
            started = xp.cuda.Event(), xp.cuda.Event()
            started[0].record()
        self._running_stack.append((xp, started))
        self._depth += 1

    def _stop_timing(self, name: str) -> None:
        """Stop timing the innermost running call and record its time under ``name``."""
        xp, started = self._running_stack.pop()
        if xp is numpy:
            elapsed = time.perf_counter() - started
        else:
            start, stop = started
            stop.record()
            stop.synchronize()
            elapsed = xp.cuda.get_elapsed_time(start, stop) / 1000  # given in milliseconds
        self.call_history.append((name, elapsed))
        self._depth -= 1
        if self._depth == 0:
            self._total_time += elapsed

    @staticmethod
    def _choose_unit(seconds: float) -> tuple[float, str]:
        """The largest unit in which ``seconds`` is at least 1, with its factor (ns at the least)."""
        factor = 1.0
        for unit in ("sec", "ms", "us"):
            if seconds * factor >= 1:
                return factor, unit
            factor *= 1000.0
        return factor, "ns"
