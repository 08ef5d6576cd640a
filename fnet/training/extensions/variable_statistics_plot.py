"""``VariableStatisticsPlot``: plot how the statistics of variables (weights, grads) evolve.

At each call, the mean, the standard deviation and some percentiles of the values (and of the
gradients) of the target variables, all flattened together, are recorded. A fixed-size
reservoir sample keeps the memory bounded: once it is full, each new record replaces a random
one with the probability that keeps every record equally likely to be kept. When ``trigger``
fires, the records are plotted as a PNG (mean and std as error bars, the percentiles as bands
around the median). It needs matplotlib, and plots nothing without it (with a warning).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import numpy

from ... import backend
from ..extension import Extension
from ..triggers.interval import get_trigger
from . import _util

__all__ = ["VariableStatisticsPlot", "Reservoir", "Statistician"]

_COLOR = "#1f77b4"  # matplotlib's first color, C0


def _unpack_variables(targets: Any) -> tuple:
    """The variables of ``targets``: a Variable, a link (all its params) or a list of them."""
    if hasattr(targets, "params") and callable(targets.params):
        return tuple(targets.params(include_uninit=True))
    if isinstance(targets, (list, tuple)):
        return tuple(var for target in targets for var in _unpack_variables(target))
    if hasattr(targets, "array"):
        return (targets,)
    raise TypeError(
        f"VariableStatisticsPlot: targets must be Variables, links or lists of them, got "
        f"{type(targets).__name__}\n  hint: e.g. VariableStatisticsPlot(model) or (model.l1.W, model.l2.W)"
    )


class Reservoir:
    """A uniform sample of at most ``size`` records of shape ``data_shape`` (reservoir sampling).

    ``add(x, idx)`` offers one record with its index (the iteration); ``get_data()`` gives the
    kept indices in increasing order and their records. The choice of what is replaced uses
    NumPy's global random state (``numpy.random.seed`` makes it repeatable).
    """

    def __init__(self, size: int, data_shape: tuple, dtype=numpy.float32):
        self.size = size
        self.data = numpy.zeros((size, *data_shape), dtype=dtype)
        self.idxs = numpy.zeros((size,), dtype=numpy.int32)
        self.counter = 0

    def add(self, x, idx: int | None = None) -> None:
        """Offer the record ``x`` with index ``idx`` (the count of records offered when None)."""
        idx = self.counter if idx is None else idx
        if self.counter < self.size:
            self.data[self.counter] = x
            self.idxs[self.counter] = idx
        elif numpy.random.random() < self.size / float(self.counter + 1):
            slot = numpy.random.randint(self.size)
            self.data[slot] = x
            self.idxs[slot] = idx
        self.counter += 1

    def get_data(self) -> tuple[numpy.ndarray, numpy.ndarray]:
        """The kept indices, sorted, and their records."""
        idxs = self.idxs[: min(self.counter, self.size)]
        order = numpy.argsort(idxs)
        return idxs[order], self.data[order]


class Statistician:
    """Computes the chosen statistics of an array along axes: a dict with ``'mean'``, ``'std'``
    and ``'percentile'`` (at ``percentile_sigmas``), for those that are on."""

    def __init__(self, collect_mean: bool, collect_std: bool, percentile_sigmas):
        self.collect_mean = collect_mean
        self.collect_std = collect_std
        self.percentile_sigmas = percentile_sigmas

    def __call__(self, x, axis=0, dtype=None, xp=None) -> dict:
        """The statistics of ``x`` over ``axis`` (an int, a tuple, or None for all axes)."""
        if axis is None:
            axis = tuple(range(x.ndim))
        elif not isinstance(axis, (tuple, list)):
            axis = (axis,)
        return self.collect(x, tuple(axis))

    def collect(self, x, axis: tuple) -> dict:
        """The statistics of ``x`` over the axes ``axis``."""
        out = {}
        if self.collect_mean:
            out["mean"] = x.mean(axis=axis)
        if self.collect_std:
            out["std"] = x.std(axis=axis)
        if self.percentile_sigmas:
            out["percentile"] = backend.xp(x).percentile(x, self.percentile_sigmas, axis=axis)
        return out


class VariableStatisticsPlot(Extension):
    """Record statistics of ``targets`` at each call and plot them when ``trigger`` fires.

    Args:
        targets: a Variable, a link (all its parameters), or a list of them.
        max_sample_size: the size of the reservoir sample of records.
        report_data: record the statistics of the values (the ``data`` column of the plot).
        report_grad: record the statistics of the gradients (the ``grad`` column).
        plot_mean: record and plot the means.
        plot_std: record and plot the standard deviations.
        percentile_sigmas: the percentiles to record and plot (a number or a sequence, in
            ``[0, 100]``; by default the minimum, the -3 to +3 sigma points and the maximum).
        trigger: when to save the figure: a trigger or a ``(period, unit)`` pair.
        filename: the image file under ``trainer.out`` (``'statistics.png'`` when None;
            ``file_name`` is its old name).
        figsize: matplotlib's figure size ``(width, height)`` in inches.
        marker: matplotlib's marker of the points.
        grid: draw grids.
    """

    def __init__(
        self,
        targets: Any,
        max_sample_size: int = 1000,
        report_data: bool = True,
        report_grad: bool = True,
        plot_mean: bool = True,
        plot_std: bool = True,
        percentile_sigmas: float | Sequence[float] = (0, 0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87, 100),
        trigger: Any = (1, "epoch"),
        filename: str | None = None,
        figsize: tuple | None = None,
        marker: str | None = None,
        grid: bool = True,
        **kwargs: Any,
    ):
        self._filename = _util.figure_file_name(
            "VariableStatisticsPlot",
            filename,
            kwargs,
            "statistics.png",
            "see the documented arguments (filename's old name, file_name, is accepted)",
        )
        _util.matplotlib_available("VariableStatisticsPlot")
        self._vars = _unpack_variables(targets)
        if not self._vars:
            raise ValueError(
                "Need at least one variables for which to collect statistics.\nActual: 0 <= 0\n"
                "  hint: pass a Variable, a link with parameters, or a list of them"
            )
        if not (plot_mean or plot_std or bool(percentile_sigmas)):
            raise ValueError("Nothing to plot\n  hint: set plot_mean, plot_std or percentile_sigmas")
        self._keys = [key for key, on in (("data", report_data), ("grad", report_grad)) if on]
        self._statistician = Statistician(plot_mean, plot_std, percentile_sigmas)
        self._plot_mean = plot_mean
        self._plot_std = plot_std
        self._plot_percentile = bool(percentile_sigmas)
        self._trigger = get_trigger(trigger)
        self._figsize = figsize
        self._marker = marker
        self._grid = grid
        if not self._plot_percentile:
            n_percentile = 0
        elif isinstance(percentile_sigmas, (list, tuple)):
            n_percentile = len(percentile_sigmas)
        else:
            n_percentile = 1
        self._data_shape = (len(self._keys), int(plot_mean) + int(plot_std) + n_percentile)
        self._samples = Reservoir(max_sample_size, data_shape=self._data_shape)

    @staticmethod
    def available() -> bool:
        """Whether matplotlib is installed (a warning says so when it is not)."""
        return _util.matplotlib_available("VariableStatisticsPlot")

    def __call__(self, trainer) -> None:
        """Record the statistics of this iteration; save the figure when the trigger fires."""
        if not _util.matplotlib_found():
            return
        stats = numpy.zeros(self._data_shape, dtype=numpy.float32)
        for i, key in enumerate(self._keys):
            xs = [x.ravel() for x in (getattr(var, key, None) for var in self._vars) if x is not None]
            if not xs:
                continue
            xp = backend.xp(*xs)
            found = self._statistician(xp.concatenate(xs, axis=0), axis=0, xp=xp)
            row = []
            if self._plot_mean:
                row.append(xp.atleast_1d(found["mean"]))
            if self._plot_std:
                row.append(xp.atleast_1d(found["std"]))
            if self._plot_percentile:
                row.append(xp.atleast_1d(found["percentile"]))
            stats[i] = backend.to_cpu(xp.concatenate(row, axis=0))
        self._samples.add(stats, idx=trainer.updater.iteration)
        if self._trigger(trainer):
            self._save_plot(os.path.join(trainer.out, self._filename))

    def _save_plot(self, path: str) -> None:
        from matplotlib.colors import to_rgba

        nrows = int(self._plot_mean or self._plot_std) + int(self._plot_percentile)
        ncols = len(self._keys)
        figure = _util.new_figure(figsize=self._figsize)
        axes = numpy.asarray(figure.subplots(nrows, ncols, sharex=True, squeeze=False))
        idxs, data = self._samples.get_data()
        offset = int(self._plot_mean) + int(self._plot_std)  # where the percentiles start
        n_percentile = data.shape[-1] - offset
        half, odd = divmod(n_percentile, 2)
        band = {"alpha": 0.2, "linewidth": 0, "color": _COLOR}
        for col, key in enumerate(self._keys):
            row = 0
            ax = axes[row, col]
            ax.set_title(key)
            if self._plot_mean or self._plot_std:
                if self._plot_mean and self._plot_std:
                    ax.errorbar(
                        idxs,
                        data[:, col, 0],
                        data[:, col, 1],
                        color=_COLOR,
                        ecolor=to_rgba(_COLOR, 0.2),
                        label="mean, std",
                        marker=self._marker,
                    )
                else:
                    label = "mean" if self._plot_mean else "std"
                    ax.plot(idxs, data[:, col, 0], color=_COLOR, label=label, marker=self._marker)
                row += 1
            if self._plot_percentile:
                ax = axes[row, col]
                for i in range(half + 1):
                    if odd and i == half:  # the middle percentile: a line
                        ax.plot(
                            idxs,
                            data[:, col, offset + i],
                            color=_COLOR,
                            label="percentile",
                            marker=self._marker,
                        )
                    else:  # a band between the i-th percentiles from each end (as Chainer draws them)
                        label = "percentile" if i == half else "_nolegend_"
                        ax.fill_between(
                            idxs, data[:, col, offset + i], data[:, col, -i - 1], label=label, **band
                        )
                ax.set_xlabel("iteration")
        for ax in axes.ravel():
            ax.legend()
            if self._grid:
                ax.grid()
                ax.set_axisbelow(True)
        _util.save_figure(figure, path)
