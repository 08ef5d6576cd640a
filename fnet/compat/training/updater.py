"""``chainer.training.updater``: the ``Updater`` interface, and the old home of two updaters."""

from ...training.updaters import ParallelUpdater, StandardUpdater, Updater

__all__ = ["Updater", "StandardUpdater", "ParallelUpdater"]
