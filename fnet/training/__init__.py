"""Training machinery for pure step functions and the Chainer layer (so far: the reporter)."""

from . import reporter
from .reporter import DictSummary, Reporter, Summary, get_current_reporter, report, report_scope

__all__ = ["reporter", "Reporter", "report", "report_scope", "get_current_reporter", "Summary", "DictSummary"]
