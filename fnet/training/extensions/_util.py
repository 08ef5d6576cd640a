"""What several extensions share: a terminal progress display, summaries of observations, and
the figures of the plotting extensions."""

from __future__ import annotations

import collections
import datetime
import functools
import math
import os
import sys
import time
import warnings

from .. import reporter as _reporter
from .snapshot_writers import write_atomically


def is_terminal(stream) -> bool:
    """Whether ``stream`` is an interactive terminal (its ``isatty()`` says so): only there are
    ANSI cursor-control escapes written; a file or a pipe gets plain lines."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if callable(isatty) else False
    except (ValueError, OSError):  # a closed or detached stream
        return False


class TerminalBar:
    """A block of lines redrawn in place on a terminal (ANSI escape codes), with the rate of progress.

    ``update(lines)`` erases what was drawn, writes ``lines`` and moves the cursor back to their
    first line; ``close()`` erases them. On a stream that is not a terminal (``interactive`` is
    False: a log file, a pipe) ``update`` writes the lines as they are, with no escape codes,
    and ``close`` writes nothing: the callers write fewer, plain lines there.
    ``speed(iteration, epoch_detail)`` gives the iterations and epochs per second over the last
    100 calls.
    """

    def __init__(self, bar_length: int | None = None, out=None):
        self.bar_length = 50 if bar_length is None else bar_length
        self.out = sys.stdout if out is None else out
        self.interactive = is_terminal(self.out)
        self._timing: collections.deque = collections.deque(maxlen=100)

    def bar(self, title: str, rate: float) -> str:
        """One bar line: ``title [####......] 45.00%``."""
        marks = "#" * int(rate * self.bar_length)
        return f"{title} [{marks}{'.' * (self.bar_length - len(marks))}] {rate:6.2%}\n"

    def speed(self, iteration: float, epoch_detail: float) -> tuple[float, float]:
        """Iterations and epochs per second since the oldest of the last 100 calls (inf at first)."""
        now = time.time()
        self._timing.append((iteration, epoch_detail, now))
        old_iteration, old_epoch, old_time = self._timing[0]
        span = now - old_time
        if span == 0:
            return math.inf, math.inf
        return (iteration - old_iteration) / span, (epoch_detail - old_epoch) / span

    @staticmethod
    def time_left(remaining: float, speed: float) -> str:
        """The time to do ``remaining`` units at ``speed`` units/s (``unknown`` without progress)."""
        if speed > 0:
            return str(datetime.timedelta(seconds=max(remaining / speed, 0.0)))
        return "unknown"  # no progress seen yet over the window

    @classmethod
    def speed_line(cls, iterations_per_second: float, remaining: float, speed: float) -> str:
        """The line with the rate and the time left: ``remaining`` units at ``speed`` units/s."""
        eta = cls.time_left(remaining, speed)
        return f"{iterations_per_second:10.5g} iters/sec. Estimated time to finish: {eta}.\n"

    def update(self, lines: list[str]) -> None:
        """Draw ``lines`` in place of the previous ones (on a terminal; else write them)."""
        out = self.out
        if self.interactive:
            out.write("\033[J")
        for line in lines:
            out.write(line)
        if self.interactive:
            out.write(f"\033[{len(lines):d}A")
        self.flush()

    def close(self) -> None:
        """Erase the drawn lines (on a terminal; nothing to erase elsewhere)."""
        if self.interactive:
            self.out.write("\033[J")
            self.flush()

    def flush(self) -> None:
        """Flush the stream if it can be flushed."""
        if hasattr(self.out, "flush"):
            self.out.flush()


def accumulate(summary: _reporter.DictSummary, observation: dict, keys) -> None:
    """Add ``observation`` to ``summary``: every entry when ``keys`` is None, else those of ``keys``."""
    if keys is None:
        summary.add(observation)
    else:
        summary.add({key: observation[key] for key in keys if key in observation})


def host_means(summary: _reporter.DictSummary, updater) -> dict:
    """The means of ``summary`` as Python floats, then the updater's ``epoch`` and ``iteration``."""
    stats = {name: float(value) for name, value in summary.compute_mean().items()}
    stats["epoch"] = updater.epoch
    stats["iteration"] = updater.iteration
    return stats


@functools.cache
def matplotlib_found() -> bool:
    """Whether matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def matplotlib_available(who: str) -> bool:
    """Whether matplotlib can be imported; when it cannot, a warning says nothing will be plotted."""
    found = matplotlib_found()
    if not found:
        warnings.warn(
            f"{who}: matplotlib is not installed on your environment, so nothing will be plotted at "
            "this time. Please install matplotlib to plot figures.\n\n  $ pip install matplotlib\n",
            stacklevel=3,
        )
    return found


def figure_file_name(who: str, filename: str | None, kwargs: dict, default: str, hint: str) -> str:
    """The image file of a plotting extension: ``filename``, else its old name ``file_name``
    taken from ``kwargs``, else ``default``; any other keyword in ``kwargs`` is a TypeError."""
    file_name = kwargs.pop("file_name", default)
    if kwargs:
        raise TypeError(
            f"{who}() got unexpected keyword argument(s) {', '.join(map(repr, kwargs))}\n  hint: {hint}"
        )
    return file_name if filename is None else filename


def new_figure(**kwargs):
    """A matplotlib Figure drawn by the Agg (PNG) canvas: no pyplot, no global backend change."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(**kwargs)
    FigureCanvasAgg(figure)
    return figure


def _savefig(path: str, figure, **kwargs) -> None:
    figure.savefig(path, **kwargs)


def save_figure(figure, path: str, **kwargs) -> None:
    """Save ``figure`` as ``path`` (format from the suffix) atomically, with ``savefig(**kwargs)``."""
    directory, name = os.path.split(path)
    write_atomically(name, directory, figure, _savefig, **kwargs)
