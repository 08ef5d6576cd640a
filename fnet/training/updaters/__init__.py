"""Updaters: the objects that make one training step per iteration of a ``Trainer``.

``StandardUpdater`` drives Chainer-style links and optimizers, ``ParallelUpdater`` and
``MultiprocessParallelUpdater`` split the work over several devices or processes, and
``FunctionalUpdater`` runs a pure step function (``fnet.optim.make_train_step``) on params trees.
"""

from .functional_updater import FunctionalUpdater
from .multiprocess_parallel_updater import MultiprocessParallelUpdater
from .parallel_updater import ParallelUpdater
from .standard_updater import StandardUpdater
from .updater import Updater

__all__ = [
    "Updater",
    "StandardUpdater",
    "ParallelUpdater",
    "MultiprocessParallelUpdater",
    "FunctionalUpdater",
]
