"""``chainer.training``: the Trainer, updaters, triggers and extensions of ``fnet.training``.

Importing it registers Chainer's modes with ``fnet.training.modes``: an ``Evaluator`` evaluates
with ``chainer.config.train`` False, and ``chainer.config.debug`` is the trainer's debug mode.
"""

import functools

from ...training import modes as _modes
from ..configuration import is_debug, using_config
from . import extension, extensions, trainer, trigger, triggers, updater, updaters, util
from .extension import PRIORITY_EDITOR, PRIORITY_READER, PRIORITY_WRITER, Extension, make_extension
from .trainer import Trainer
from .trigger import IntervalTrigger, get_trigger
from .updater import ParallelUpdater, StandardUpdater, Updater

_modes.register_evaluation_mode(functools.partial(using_config, "train", False))
_modes.register_debug_check(is_debug)

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
