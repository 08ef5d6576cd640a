"""``StandardUpdater``: one batch, one forward and backward, one optimizer update per iteration."""

from __future__ import annotations

from collections.abc import Callable

from ...data import convert
from .updater import _arguments, _as_named, _IteratingUpdater

__all__ = ["StandardUpdater"]


def _check_optimizer(where: str, name: str, optimizer) -> None:
    if not callable(getattr(optimizer, "update", None)) or getattr(optimizer, "target", None) is None:
        raise TypeError(
            f"{where}: the optimizer {name!r} must be an optimizer set up with its model, got "
            f"{type(optimizer).__name__}\n  hint: optimizer = optimizers.SGD(); optimizer.setup(model)"
        )


class StandardUpdater(_IteratingUpdater):
    """The standard updater: each iteration takes the main iterator's next batch, converts it
    with ``converter`` onto ``input_device`` and calls ``optimizer.update(loss_func, *arrays)``
    (``**arrays`` for a dict, ``arrays`` for anything else).

    Args:
        iterator: the training iterator, or a dict of them with one named ``'main'``.
        optimizer: the optimizer (set up with the model), or a dict with one named ``'main'``.
        converter: ``converter(batch, device) -> arrays``; ``concat_examples`` by default.
        device: where to send the models (None leaves them where they are).
        loss_func: the loss function; the main optimizer's target link by default.
        loss_scale: a static loss scale set on every optimizer (for float16 training).
        auto_new_epoch: call the main optimizer's ``new_epoch(auto=True)`` when the main
            iterator completes a sweep (and mark every optimizer ``use_auto_new_epoch``).
        input_device: where to send the batches; ``device`` when None.

    Subclasses override ``update_core`` for other training steps (GANs, truncated BPTT);
    ``get_iterator``, ``get_optimizer`` and ``converter`` are there to help.

    Attributes:
        converter, loss_func, loss_scale, auto_new_epoch: as given.
        iteration: the number of updates done.
    """

    def __init__(
        self,
        iterator,
        optimizer,
        converter: Callable = convert.concat_examples,
        device=None,
        loss_func: Callable | None = None,
        loss_scale: float | None = None,
        auto_new_epoch: bool = True,
        *,
        input_device=None,
    ):
        where = type(self).__name__
        super().__init__(where, iterator, converter, device, input_device)
        self._optimizers = _as_named(where, "optimizer", optimizer, _check_optimizer, need_main=False)
        if self._device is not None:
            for opt in self._optimizers.values():
                opt.target.to_device(self._device)
        self.loss_func = loss_func
        self.loss_scale = loss_scale
        if loss_scale is not None:
            for opt in self._optimizers.values():
                opt.set_loss_scale(loss_scale)
        self.auto_new_epoch = auto_new_epoch
        if auto_new_epoch:
            for opt in self._optimizers.values():
                opt.use_auto_new_epoch = True

    def get_all_optimizers(self) -> dict:
        """All optimizers, by name (a new dict)."""
        return dict(self._optimizers)

    def update_core(self) -> None:
        """Update the main optimizer's parameters with the loss of the main iterator's next batch."""
        in_arrays = self._next_batch()
        optimizer = self._optimizers["main"]
        loss_func = self.loss_func or optimizer.target
        args, kwargs = _arguments(in_arrays)
        optimizer.update(loss_func, *args, **kwargs)
        if self.auto_new_epoch and self._iterators["main"].is_new_epoch:
            optimizer.new_epoch(auto=True)

    def serialize(self, serializer) -> None:
        """Save or load the iterators (``iterator:<name>/``), the optimizers
        (``optimizer:<name>/``), their models (``model:<name>/``) and ``iteration``."""
        self._serialize_iterators(serializer)
        for name, optimizer in self._optimizers.items():
            optimizer.serialize(serializer["optimizer:" + name])
            optimizer.target.serialize(serializer["model:" + name])
        self.iteration = serializer("iteration", self.iteration)
