"""``PrintReport``: print the entries of a ``LogReport`` as a table, one row per entry.

Each column is as wide as its name, at least 10 characters, and columns are separated by two
spaces, as in Chainer; numbers are printed with ``{:g}``; a value missing from an entry leaves
its cell blank. On a terminal each row first erases what a ``ProgressBar`` drew below the cursor
(an ANSI escape code); a stream that is not a terminal gets the rows alone.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from ..extension import Extension
from ._util import is_terminal
from .log_report import LogReport

__all__ = ["PrintReport"]


class PrintReport(Extension):
    """Print the new entries of a log report (a header first, then a row per entry).

    Args:
        entries: the names of the values to print, in column order (e.g. ``['epoch',
            'main/loss', 'validation/main/accuracy', 'elapsed_time']``).
        log_report: the name of a ``LogReport`` registered to the trainer, or a ``LogReport``
            that this extension drives itself.
        out: the stream to print to.

    >>> import io
    >>> log = LogReport()
    >>> log.log.append({"epoch": 1, "main/loss": 0.25})
    >>> class Trainer:
    ...     def get_extension(self, name):
    ...         return log
    >>> out = io.StringIO()
    >>> PrintReport(["epoch", "main/loss", "main/accuracy"], out=out)(Trainer())
    >>> print(out.getvalue())  # doctest: +NORMALIZE_WHITESPACE
    epoch       main/loss   main/accuracy
    1           0.25
    """

    def __init__(
        self, entries: Sequence[str], log_report: str | LogReport = "LogReport", out: TextIO = sys.stdout
    ):
        self._entries = entries
        self._log_report = log_report
        self._out = out
        self._erase = "\033[J" if is_terminal(out) else ""  # what a progress bar drew below
        self._log_len = 0  # the number of entries printed so far
        widths = [max(10, len(entry)) for entry in entries]
        self._header: str | None = (
            "  ".join(f"{entry:{width}}" for entry, width in zip(entries, widths)) + "\n"
        )
        self._templates = [
            (entry, f"{{:<{width}g}}  ", " " * (width + 2)) for entry, width in zip(entries, widths)
        ]

    def __call__(self, trainer) -> None:
        """Print the header (the first time) and the entries added to the log since the last call."""
        out = self._out
        if self._header:
            out.write(self._header)
            self._header = None
        log_report = self._log_report
        if isinstance(log_report, str):
            log_report = trainer.get_extension(log_report)
        elif isinstance(log_report, LogReport):
            log_report(trainer)  # this extension drives its own log report
        else:
            raise TypeError(
                f"PrintReport: log_report must be the name of a LogReport extension or a LogReport, got "
                f"{type(log_report).__name__}\n  hint: the default 'LogReport' is the name under which "
                "trainer.extend(extensions.LogReport()) registers it"
            )
        log = log_report.log
        while len(log) > self._log_len:
            out.write(self._erase)
            self._print(log[self._log_len])
            self._log_len += 1

    def serialize(self, serializer) -> None:
        """Save or load the log report that this extension drives itself (under ``_log_report/``)."""
        if isinstance(self._log_report, LogReport):
            self._log_report.serialize(serializer["_log_report"])

    def _print(self, observation: dict) -> None:
        out = self._out
        for entry, template, empty in self._templates:
            out.write(template.format(observation[entry]) if entry in observation else empty)
        out.write("\n")
        if hasattr(out, "flush"):
            out.flush()
