"""Training machinery for pure step functions and the Chainer layer: the ``Trainer`` loop, updaters,
triggers, extensions and the reporter."""

from . import extension, extensions, reporter, trainer, triggers, updaters
from .extension import PRIORITY_EDITOR, PRIORITY_READER, PRIORITY_WRITER, Extension, make_extension
from .reporter import (
    DictSummary,
    ObserverError,
    Reporter,
    Summary,
    get_current_reporter,
    report,
    report_scope,
)
from .trainer import Trainer
from .triggers import IntervalTrigger, get_trigger
from .updaters import FunctionalUpdater, ParallelUpdater, StandardUpdater, Updater

__all__ = [
    "reporter",
    "Reporter",
    "report",
    "report_scope",
    "get_current_reporter",
    "Summary",
    "DictSummary",
    "ObserverError",
    "extension",
    "extensions",
    "trainer",
    "triggers",
    "updaters",
    "Extension",
    "make_extension",
    "PRIORITY_WRITER",
    "PRIORITY_EDITOR",
    "PRIORITY_READER",
    "Trainer",
    "get_trigger",
    "IntervalTrigger",
    "Updater",
    "StandardUpdater",
    "ParallelUpdater",
    "FunctionalUpdater",
]
