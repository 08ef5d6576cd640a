"""``ProgressBar``: a progress display of the training, redrawn in place on the terminal.

It shows four lines, in Chainer's layout: the progress of the whole training and of the
current epoch as bars with percentages, the iteration and epoch counts, and the speed
(iterations per second, over the last 100 redraws) with the estimated time left::

         total [#########.........................................] 18.75%
    this epoch [#####################################.............] 75.00%
           300 iter, 3 epoch / 16 epochs
        112.48 iters/sec. Estimated time to finish: 0:00:11.566355.

It is written with ANSI escape codes, not with tqdm: tqdm draws one bar per instance, while
this layout (two bars and two status lines) is what Chainer users and their log scrapers expect.
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

    >>> import io
    >>> class Updater:
    ...     iteration, epoch, epoch_detail = 50, 0, 0.5
    >>> class Trainer:
    ...     updater = Updater()
    >>> out = io.StringIO()
    >>> bar = ProgressBar((2, "epoch"), update_interval=50, bar_length=10, out=out)
    >>> bar(Trainer())
    >>> print(out.getvalue().replace("\\033[J", "").replace("\\033[4A", ""), end="")
         total [##........] 25.00%
    this epoch [#####.....] 50.00%
            50 iter, 0 epoch / 2 epochs
           inf iters/sec. Estimated time to finish: 0:00:00.
    """

    def __init__(
        self,
        training_length: tuple | None = None,
        update_interval: int = 100,
        bar_length: int = 50,
        out: TextIO = sys.stdout,
    ):
        if isinstance(update_interval, bool) or not isinstance(update_interval, int) or update_interval <= 0:
            raise ValueError(
                f"ProgressBar: update_interval must be a positive int, got {update_interval!r}\n"
                "  hint: the bar is redrawn every update_interval iterations"
            )
        self._training_length = training_length
        self._update_interval = update_interval
        self._bar = TerminalBar(bar_length, out)
        self._status_template: str | None = None

    def __call__(self, trainer) -> None:
        """Redraw the display if the iteration is a multiple of ``update_interval``."""
        if trainer.updater.iteration % self._update_interval == 0:
            self._bar.update(self._lines(trainer))

    def finalize(self) -> None:
        """Erase the display."""
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

    def _lines(self, trainer) -> list[str]:
        length, unit = self._length(trainer)
        updater = trainer.updater
        iteration, epoch = updater.iteration, updater.epoch_detail
        done = iteration if unit == "iteration" else epoch
        bar = self._bar
        lines = [bar.bar("     total", min(done / length, 1.0)), bar.bar("this epoch", epoch - int(epoch))]
        if self._status_template is None:
            self._status_template = f"{{0.iteration:10}} iter, {{0.epoch}} epoch / {length} {unit}s\n"
        lines.append(self._status_template.format(updater))
        per_iteration, per_epoch = bar.speed(iteration, epoch)
        speed = per_iteration if unit == "iteration" else per_epoch
        lines.append(bar.speed_line(per_iteration, length - done, speed))
        return lines
