"""``chainer.training.updaters``: the updaters of ``fnet.training.updaters``."""

from ...training.updaters import MultiprocessParallelUpdater, ParallelUpdater, StandardUpdater

__all__ = ["StandardUpdater", "ParallelUpdater", "MultiprocessParallelUpdater"]
