"""Chainer's ``chainer.training.extensions.util.ProgressBar``: the base of progress displays that
redraw their lines in place, on fnet.training's terminal bar."""

from __future__ import annotations

import abc

from ...training.extensions._util import TerminalBar

__all__ = ["ProgressBar"]


class ProgressBar(abc.ABC):
    """A block of lines, given by :meth:`get_lines` (which a subclass defines), redrawn in place on
    ``out`` (``sys.stdout`` by default) with ANSI escape codes at every :meth:`update`.

    >>> import io
    >>> class Done(ProgressBar):
    ...     def get_lines(self):
    ...         return ["done\\n"]
    >>> out = io.StringIO()
    >>> Done(out=out).update()
    >>> out.getvalue()
    '\\x1b[Jdone\\n\\x1b[1A'
    """

    def __init__(self, bar_length: int | None = None, out=None):
        self._bar = TerminalBar(bar_length, out)
        self._bar.interactive = True  # as Chainer: the escape codes go to any stream

    @property
    def _bar_length(self) -> int:
        return self._bar.bar_length

    @property
    def _out(self):
        return self._bar.out

    def update_speed(self, iteration: float, epoch_detail: float) -> tuple[float, float]:
        """Iterations and epochs per second over the last 100 calls (inf at the first)."""
        return self._bar.speed(iteration, epoch_detail)

    @abc.abstractmethod
    def get_lines(self) -> list[str]:
        """The lines to draw, each ending with a newline."""

    def update(self) -> None:
        """Redraw the lines of :meth:`get_lines` in place of the previous ones."""
        self._bar.update(self.get_lines())

    def close(self) -> None:
        """Erase the lines."""
        self._bar.close()

    def erase_console(self) -> None:
        """Erase from the cursor to the end of the screen."""
        self._out.write("\033[J")

    def move_cursor_up(self, n: int) -> None:
        """Move the cursor ``n`` lines up (to the first line of the display)."""
        self._out.write(f"\033[{n:d}A")

    def flush(self) -> None:
        """Flush ``out`` if it can be flushed."""
        self._bar.flush()
