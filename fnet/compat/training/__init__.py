"""``chainer.training``: the Trainer, updaters, triggers and extensions of ``fnet.training``."""

from . import extension, extensions, trainer, trigger, triggers, updater, updaters, util
from .extension import PRIORITY_EDITOR, PRIORITY_READER, PRIORITY_WRITER, Extension, make_extension
from .trainer import Trainer
from .trigger import IntervalTrigger, get_trigger
from .updater import ParallelUpdater, StandardUpdater, Updater

__all__ = [
    "extension",
    "extensions",
    "trainer",
    "trigger",
    "triggers",
    "updater",
    "updaters",
    "util",
    "Extension",
    "make_extension",
    "PRIORITY_WRITER",
    "PRIORITY_EDITOR",
    "PRIORITY_READER",
    "Trainer",
    "IntervalTrigger",
    "get_trigger",
    "Updater",
    "StandardUpdater",
    "ParallelUpdater",
]
