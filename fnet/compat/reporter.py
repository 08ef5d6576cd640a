"""``chainer.reporter``: fnet.training's reporter, keeping reported Variables without their graph."""

from __future__ import annotations

from ..training import reporter as _pure
from ..training.reporter import DictSummary, Summary, get_current_reporter, report, report_scope
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
