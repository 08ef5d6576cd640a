"""``PlotReport``: plot the means of reported values against the iteration (or epoch), as a PNG.

It needs matplotlib (``pip install 'fnet-chainer[plot]'``). Without it, a warning is given when the
extension is made and it plots nothing, as in Chainer. Figures are drawn with matplotlib's
Agg canvas directly, so neither pyplot nor the user's matplotlib backend is touched.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from typing import Any

import numpy

from ...serialization import Serializer
from .. import reporter as _reporter
from ..extension import Extension
from ..triggers.interval import get_trigger
from . import _util

__all__ = ["PlotReport"]


class PlotReport(Extension):
    """Each time ``trigger`` fires, add the means of ``y_keys`` since the last point and redraw.

    Args:
        y_keys: the name of a reported value, or a list of them (one line each).
        x_key: the horizontal axis: ``'iteration'``, ``'epoch'`` (or a logged value).
        trigger: when to add a point and save the figure: a trigger or ``(period, unit)``.
        postprocess: ``postprocess(figure, axes, summary)`` may edit the figure before it is saved.
        filename: the image file under ``trainer.out`` (``'plot.png'`` when None;
            ``file_name`` is its old name).
        marker: the matplotlib marker of the points (None: lines only).
        grid: draw a grid.
    """

    def __init__(
        self,
        y_keys: str | Iterable[str],
        x_key: str = "iteration",
        trigger: Any = (1, "epoch"),
        postprocess: Callable | None = None,
        filename: str | None = None,
        marker: str | None = "x",
        grid: bool = True,
        **kwargs: Any,
    ):
        self._file_name = _util.figure_file_name(
            "PlotReport",
            filename,
            kwargs,
            "plot.png",
            "the arguments are y_keys, x_key, trigger, postprocess, filename, marker, grid",
        )
        _util.matplotlib_available("PlotReport")
        self._x_key = x_key
        self._y_keys = (y_keys,) if isinstance(y_keys, str) else tuple(y_keys)
        self._trigger = get_trigger(trigger)
        self._marker = marker
        self._grid = grid
        self._postprocess = postprocess
        self._summary = _reporter.DictSummary()
        self._data: dict[str, list] = {key: [] for key in self._y_keys}

    @staticmethod
    def available() -> bool:
        """Whether matplotlib is installed (a warning says so when it is not)."""
        return _util.matplotlib_available("PlotReport")

    def __call__(self, trainer) -> None:
        """Add the observation; when the trigger fires, add a point and save the figure."""
        if not _util.matplotlib_found():
            return
        summary = self._summary
        _util.accumulate(summary, trainer.observation, self._y_keys)
        if not (trainer.is_before_training or self._trigger(trainer)):
            return
        stats = _util.host_means(summary, trainer.updater)
        x = stats[self._x_key]
        for key in self._y_keys:
            if key in stats:
                self._data[key].append((x, stats[key]))
        figure = _util.new_figure()
        axes = figure.add_subplot(111)
        axes.set_xlabel(self._x_key)
        if self._grid:
            axes.grid()
        for key in self._y_keys:
            points = self._data[key]
            if points:
                xy = numpy.array(points)
                axes.plot(xy[:, 0], xy[:, 1], marker=self._marker, label=key)
        if axes.has_data():
            if self._postprocess is not None:
                self._postprocess(figure, axes, summary)
            legend = axes.legend(bbox_to_anchor=(1.05, 1), loc=2, borderaxespad=0.0)
            path = os.path.join(trainer.out, self._file_name)
            _util.save_figure(figure, path, bbox_extra_artists=(legend,), bbox_inches="tight")
        self._summary = _reporter.DictSummary()

    def serialize(self, serializer) -> None:
        """Save or load the plotted points, as JSON text under ``_plot_<filename>``."""
        key = f"_plot_{self._file_name}"
        if isinstance(serializer, Serializer):
            serializer(key, json.dumps(self._data))
        else:
            self._data = json.loads(str(serializer(key, "")))
