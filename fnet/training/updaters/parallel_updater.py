"""``ParallelUpdater``: synchronous data parallelism over several devices of one process.

Each iteration splits the batch into one strided part per model (``batch[i::n]``), computes
each part's loss and gradients with that model on its device, adds all gradients into the
main model, updates it, and copies its parameters back into the other models. On the CPU,
several ``'@numpy'`` devices give the same update as one model fed every part in turn.
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from ... import backend
from ...autodiff import grad_mode
from ...data import convert
from .standard_updater import StandardUpdater
from .updater import _arguments, _UnknownNameError

__all__ = ["ParallelUpdater"]


class ParallelUpdater(StandardUpdater):
    """A ``StandardUpdater`` that computes the gradients of parts of each batch on several devices.

    Args:
        iterator, optimizer, converter, loss_func, loss_scale, auto_new_epoch: as for
            ``StandardUpdater``.
        models: the models by name; ``'main'`` must be the main optimizer's target. When None,
            the others are deep copies of the main optimizer's target, one per other device.
        devices: the device of each model, by the same names (``'main'`` included), e.g.
            ``{'main': '@cupy:0', 'second': '@cupy:1'}`` or, on the CPU,
            ``{'main': '@numpy', 'second': '@numpy'}``.

    The gradients of the parts are summed (not averaged), as in Chainer: with ``n`` devices and
    a loss averaged over each part, the gradient is ``n`` times the full batch's mean gradient.
    """

    def __init__(
        self,
        iterator,
        optimizer,
        converter: Callable = convert.concat_examples,
        models: dict | None = None,
        devices: dict | None = None,
        loss_func: Callable | None = None,
        loss_scale: float | None = None,
        auto_new_epoch: bool = True,
    ):
        super().__init__(
            iterator,
            optimizer,
            converter=converter,
            loss_func=loss_func,
            loss_scale=loss_scale,
            auto_new_epoch=auto_new_epoch,
        )
        if devices is None:
            if models is None:
                raise ValueError(
                    "ParallelUpdater: either models or devices must be specified\n"
                    "  hint: e.g. devices={'main': '@numpy', 'second': '@numpy'}"
                )
            raise ValueError(
                "ParallelUpdater: devices must be given with models (the device of each model, by name)"
            )
        if not isinstance(devices, dict) or "main" not in devices:
            raise _UnknownNameError(
                f"ParallelUpdater: 'devices' must be a dict that contains a 'main' key, got {devices!r}\n"
                "  hint: e.g. devices={'main': '@numpy', 'second': '@numpy'}"
            )
        target = self.get_optimizer("main").target
        if models is None:
            models = {"main": target}
            for name, device in devices.items():
                if name != "main":
                    models[name] = copy.deepcopy(target).to_device(device)
            target.to_device(devices["main"])
        elif set(models) != set(devices) or models.get("main") is not target:
            raise ValueError(
                f"ParallelUpdater: models must have the names of devices ({sorted(devices)}), got "
                f"{sorted(models)}, and models['main'] must be the main optimizer's target\n"
                "  hint: leave models=None to make copies of the target for the other devices"
            )
        self._devices = {name: convert._get_device(device) for name, device in devices.items()}
        self._models = dict(models)

    def connect_trainer(self, trainer) -> None:
        """Register the models other than the main one to the trainer's reporter, by name."""
        main = self.get_optimizer("main").target
        for name, model in self._models.items():
            if model is not main:
                trainer.reporter.add_observer(name, model)

    def update_core(self) -> None:
        """Split the batch over the models, sum their gradients into the main model, update it and
        copy its parameters to the others."""
        optimizer = self.get_optimizer("main")
        main = optimizer.target
        others = [model for model in self._models.values() if model is not main]
        iterator = self._iterators["main"]
        batch = next(iterator)
        n = len(self._models)
        parts = {
            name: convert._call_converter(self.converter, batch[i::n], self._devices[name])
            for i, name in enumerate(self._models)
        }
        for model in self._models.values():
            model.cleargrads()
        losses = []
        for name, model in self._models.items():
            args, kwargs = _arguments(parts[name])
            loss_func = self.loss_func or model
            # recorded even inside no_grad() (Chainer's force_backprop_mode): the losses are differentiated
            with grad_mode(True), backend.using_device(self._devices[name]):
                losses.append(loss_func(*args, **kwargs))
        for model in self._models.values():
            model.cleargrads()
        for loss in losses:
            loss.backward(loss_scale=self.loss_scale)
        for model in others:
            main.addgrads(model)
        optimizer.update()
        for model in others:
            model.copyparams(main)
        if self.auto_new_epoch and iterator.is_new_epoch:
            optimizer.new_epoch(auto=True)
