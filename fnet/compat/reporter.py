"""``chainer.reporter``: fnet.training's reporter, keeping reported Variables without their graph."""

from __future__ import annotations

from .. import backend
from ..training import reporter as _pure
from ..training.reporter import DictSummary, get_current_reporter, report, report_scope
from . import configuration
from .variable import Variable

__all__ = ["Reporter", "report", "report_scope", "get_current_reporter", "Summary", "DictSummary"]


class Reporter(_pure.Reporter):
    """Chainer's Reporter: reported Variables are kept as new Variables cut from the graph
    (unless ``config.keep_graph_on_report``)."""

    def _detach(self, value):
        if isinstance(value, Variable):
            if configuration.config.keep_graph_on_report:
                return value
            return Variable(value.array, requires_grad=False)
        return value


class Summary(_pure.Summary):
    """Chainer's Summary: once a Variable is added (as a value or a weight), the mean and the
    statistics are Variables, as Chainer's arithmetic on the Variables makes them."""

    _of_variables = False

    def add(self, value, weight=1) -> None:
        if isinstance(value, Variable) or isinstance(weight, Variable):
            self._of_variables = True
        super().add(value, weight)

    def _as_added(self, x):
        return Variable(backend.xp(x).asarray(x)) if self._of_variables else x  # on the values' device

    def compute_mean(self):
        return self._as_added(super().compute_mean())

    def make_statistics(self) -> tuple:
        return tuple(self._as_added(x) for x in super().make_statistics())
