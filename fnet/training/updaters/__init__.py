"""Updaters: the objects that make one training step per iteration of a ``Trainer``.

``StandardUpdater`` drives stateful models and optimizers, ``ParallelUpdater`` and
``MultiprocessParallelUpdater`` split the work over several devices or processes, and
``FunctionalUpdater`` runs a pure step function (``fnet.optim.make_train_step``) on params trees.

The first three know their optimizers only through a protocol (``fnet.compat``'s ``Optimizer``
and ``Link`` follow it; nothing here imports them): an optimizer has ``target`` (the model),
``update(loss_func, *args, **kwargs)`` (``update()`` once the gradients are in place),
``new_epoch(auto=True)``, ``use_auto_new_epoch``, ``set_loss_scale(scale)`` and
``serialize(serializer)``; a model has ``serialize``, ``to_device`` and, for the parallel
updaters, ``namedparams``, ``cleargrads``, ``addgrads`` and ``copyparams``; its loss has
``backward(loss_scale=...)``.
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
