"""``ProgressBar``: a progress display of the training, redrawn in place on a terminal.

On a terminal it shows four lines, in Chainer's layout: the progress of the whole training and of the
current epoch as bars with percentages, the iteration and epoch counts, and the speed
(iterations per second, over the last 100 redraws) with the estimated time left::

         total [#########.........................................] 18.75%
    this epoch [#####################################.............] 75.00%
           300 iter, 3 epoch / 16 epochs
        112.48 iters/sec. Estimated time to finish: 0:00:11.566355.

It is written with ANSI escape codes, not with tqdm: tqdm draws one bar per instance, while
this layout (two bars and two status lines) is what Chainer users and their log scrapers expect.

When the stream is not a terminal (``out.isatty()`` is false: output redirected to a file, a
pipe, a CI log) no escape code is written: one plain line every ``log_interval`` iterations,
and one for the last iteration when the training ends::

    iteration 300, epoch 3: 18.75% of 16 epochs, 112.48 iters/sec, estimated time to finish: 0:00:11.566355
"""

from __future__ import annotations

import sys
from typing import TextIO

from ..extension import Extension
from ._util import TerminalBar

__all__ = ["ProgressBar"]


class ProgressBar(Extension):
    """Redraw the progress of the training every ``update_interval`` iterations.

    Args:
        training_length: the length of the training, ``(length, 'epoch')`` or ``(length,
            'iteration')``; when None, the trainer's stop trigger gives it (an
            ``IntervalTrigger`` has ``get_training_length()``).
        update_interval: redraw every this many iterations.
        bar_length: the width of the bars, in characters.
        out: the stream to draw on.
        log_interval: when ``out`` is not a terminal, write a plain line every this many
            iterations (``10 * update_interval`` when None).

    >>> import io
    >>> class Updater:
    ...     iteration, epoch, epoch_detail = 50, 0, 0.5
    >>> class Trainer:
    ...     updater = Updater()
    >>> class Terminal(io.StringIO):
    ...     def isatty(self):
    ...         return True
    >>> out = Terminal()
    >>> bar = ProgressBar((2, "epoch"), update_interval=50, bar_length=10, out=out)
    >>> bar(Trainer())
    >>> print(out.getvalue().replace("\\033[J", "").replace("\\033[4A", ""), end="")
         total [##........] 25.00%
    this epoch [#####.....] 50.00%
            50 iter, 0 epoch / 2 epochs
           inf iters/sec. Estimated time to finish: 0:00:00.
    >>> log = io.StringIO()  # not a terminal
    >>> ProgressBar((2, "epoch"), update_interval=5, log_interval=50, out=log)(Trainer())
    >>> print(log.getvalue(), end="")
    iteration 50, epoch 0: 25.00% of 2 epochs, inf iters/sec, estimated time to finish: 0:00:00
    """

    def __init__(
        self,
        training_length: tuple | None = None,
        update_interval: int = 100,
        bar_length: int = 50,
        out: TextIO = sys.stdout,
        *,
        log_interval: int | None = None,
    ):
        _check_interval(
            "update_interval", update_interval, "the bar is redrawn every update_interval iterations"
        )
        if log_interval is not None:
            _check_interval(
                "log_interval", log_interval, "a plain line is written every log_interval iterations"
            )
        self._training_length = training_length
        self._update_interval = update_interval
        self._log_interval = 10 * update_interval if log_interval is None else log_interval
        self._bar = TerminalBar(bar_length, out)
        self._status_template: str | None = None
        self._unlogged = None  # the trainer, while its last iteration has no plain line yet

    def __call__(self, trainer) -> None:
        """Redraw the display if the iteration is a multiple of ``update_interval`` (on a
        terminal), or write a plain line if it is a multiple of ``log_interval`` (elsewhere)."""
        iteration = trainer.updater.iteration
        if self._bar.interactive:
            if iteration % self._update_interval == 0:
                self._bar.update(self._lines(trainer))
        elif iteration % self._log_interval == 0:
            self._bar.update([self._plain_line(trainer)])
            self._unlogged = None
        else:
            self._unlogged = trainer

    def finalize(self) -> None:
        """Erase the display (on a terminal), or write the line of the last iteration if it has
        none yet (elsewhere)."""
        if self._unlogged is not None:
            self._bar.update([self._plain_line(self._unlogged)])
            self._unlogged = None
        self._bar.close()

    def _length(self, trainer) -> tuple:
        if self._training_length is None:
            get_length = getattr(trainer.stop_trigger, "get_training_length", None)
            if get_length is None:
                raise TypeError(
                    "ProgressBar: training_length is not given and the trainer's stop trigger "
                    f"({type(trainer.stop_trigger).__name__}) does not tell the training length\n"
                    "  hint: pass training_length=(20, 'epoch') or (10000, 'iteration')"
                )
            self._training_length = get_length()
        length, unit = self._training_length
        if unit not in ("epoch", "iteration"):
            raise ValueError(
                f"ProgressBar: the unit of training_length must be 'epoch' or 'iteration', got {unit!r}"
            )
        return length, unit

    def _progress(self, trainer) -> tuple:
        """``(length, unit, done, per_iteration, speed)``: the training length, the units done,
        and the iterations and units per second."""
        length, unit = self._length(trainer)
        updater = trainer.updater
        iteration, epoch = updater.iteration, updater.epoch_detail
        done = iteration if unit == "iteration" else epoch
        per_iteration, per_epoch = self._bar.speed(iteration, epoch)
        return length, unit, done, per_iteration, per_iteration if unit == "iteration" else per_epoch

    def _lines(self, trainer) -> list[str]:
        length, unit, done, per_iteration, speed = self._progress(trainer)
        updater, bar = trainer.updater, self._bar
        epoch = updater.epoch_detail
        lines = [bar.bar("     total", min(done / length, 1.0)), bar.bar("this epoch", epoch - int(epoch))]
        if self._status_template is None:
            self._status_template = f"{{0.iteration:10}} iter, {{0.epoch}} epoch / {length} {unit}s\n"
        lines.append(self._status_template.format(updater))
        lines.append(bar.speed_line(per_iteration, length - done, speed))
        return lines

    def _plain_line(self, trainer) -> str:
        length, unit, done, per_iteration, speed = self._progress(trainer)
        updater = trainer.updater
        return (
            f"iteration {updater.iteration}, epoch {updater.epoch}: {min(done / length, 1.0):.2%} of "
            f"{length} {unit}s, {per_iteration:.5g} iters/sec, "
            f"estimated time to finish: {self._bar.time_left(length - done, speed)}\n"
        )


def _check_interval(name: str, value, hint: str) -> None:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise ValueError(f"ProgressBar: {name} must be a positive int, got {value!r}\n  hint: {hint}")
