"""``TimerHook``: measures how long the ``forward`` of each link takes."""

from __future__ import annotations

import sys

import numpy

from .._timer import NestedCallTimer
from .link_hook import ForwardPostprocessCallbackArgs, ForwardPreprocessCallbackArgs, LinkHook

__all__ = ["TimerHook"]


class TimerHook(LinkHook, NestedCallTimer):
    """Records the time of every link ``forward`` call (in seconds, by link class name).

    ``call_history`` lists ``(link class name, seconds)`` pairs; ``total_time()`` sums the
    outermost calls only (nested links are inside their parents' time); ``summary()`` and
    ``print_report()`` add them up per class. On a GPU the time is measured with CUDA events.

    >>> hook = TimerHook()
    >>> with hook:
    ...     pass
    >>> hook.total_time(), hook.summary()
    (0, {})
    """

    name = "TimerHook"

    def __init__(self) -> None:
        self.call_history: list[tuple[str, float]] = []
        self._running_stack: list = []
        self._depth = 0
        self._total_time = 0
        self.xp = numpy

    def forward_preprocess(self, args: ForwardPreprocessCallbackArgs) -> None:
        self.xp = args.link.xp
        self._start_timing(self.xp)

    def forward_postprocess(self, args: ForwardPostprocessCallbackArgs) -> None:
        self._stop_timing(type(args.link).__name__)

    def total_time(self) -> float:
        """The time spent in the outermost link calls, in seconds."""
        return self._total_time

    def summary(self) -> dict:
        """``{link class name: {'elapsed_time': seconds, 'occurrence': calls}}`` in call order."""
        summary: dict = {}
        for link_name, elapsed in self.call_history:
            record = summary.setdefault(link_name, {"elapsed_time": 0, "occurrence": 0})
            record["elapsed_time"] += elapsed
            record["occurrence"] += 1
        return summary

    def print_report(self, unit: str = "auto", file=None) -> None:
        """Print a table of the summary: LinkName, ElapsedTime and Occurrence columns.

        ``unit`` is ``'sec'``, ``'ms'``, ``'us'``, ``'ns'``, ``'auto'`` (the unit of the largest
        time, for all rows) or ``'auto_foreach'`` (each row its own unit).
        """
        if unit not in self.table and unit not in ("auto", "auto_foreach"):
            raise ValueError(
                f"TimerHook.print_report: unknown unit {unit!r}\n"
                f"  hint: use one of {list(self.table)}, 'auto' or 'auto_foreach'"
            )
        file = sys.stdout if file is None else file
        summary = self.summary()
        if unit == "auto":
            factor, unit = self._choose_unit(max(r["elapsed_time"] for r in summary.values()))
        elif unit != "auto_foreach":
            factor = self.table[unit]
        rows = [("LinkName", "ElapsedTime", "Occurrence")]
        for link_name, record in summary.items():
            second = record["elapsed_time"]
            if unit == "auto_foreach":
                row_factor, row_unit = self._choose_unit(second)
            else:
                row_factor, row_unit = factor, unit
            rows.append((link_name, f"{second * row_factor:3.2f}{row_unit}", str(record["occurrence"])))
        widths = [max(len(row[i]) for row in rows) for i in range(3)]
        for row in rows:
            file.write("  ".join(cell.rjust(w) for cell, w in zip(row, widths)) + "\n")
        file.flush()
