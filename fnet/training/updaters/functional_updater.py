"""``FunctionalUpdater``: drive a pure training step (``fnet.optim.make_train_step``) with a Trainer.

The updater holds the only mutable state of the functional path: the current ``params``,
``opt_state`` and ``state`` trees. Each iteration it takes the main iterator's next batch,
converts it (``concat_examples``: a tuple of arrays), calls
``step(params, state, opt_state, batch) -> (params, state, opt_state, metrics)`` and keeps the
new trees; every entry of ``metrics`` (the loss and what the loss function reported) is
reported as ``main/<name>``, so ``LogReport`` and ``PrintReport`` show ``main/loss``. Nothing
in the step is mutated: the trees are replaced.

>>> import numpy
>>> import fnet
>>> from fnet import optim
>>> from fnet.data.iterators import SerialIterator
>>> from fnet.training import Trainer
>>> def loss_fn(params, state, batch):
...     x, y = batch
...     return fnet.ops.mean((x * params["w"] - y) ** 2), (state, {})
>>> data = [(numpy.float32(x), numpy.float32(2 * x)) for x in range(1, 5)]
>>> tx = optim.SGD(lr=0.05)
>>> params = {"w": numpy.zeros((), numpy.float32)}
>>> updater = FunctionalUpdater(SerialIterator(data, 4, shuffle=False),
...                             optim.make_train_step(loss_fn, tx), params, tx.init(params))
>>> import tempfile
>>> trainer = Trainer(updater, (20, "epoch"), out=tempfile.mkdtemp())
>>> trainer.run()
>>> round(float(updater.params["w"]), 3), sorted(trainer.observation)
(2.0, ['main/loss'])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import backend
from ... import tree as _tree
from ...data import convert
from ..reporter import report
from .updater import _IteratingUpdater, _UnknownNameError

__all__ = ["FunctionalUpdater"]


class FunctionalUpdater(_IteratingUpdater):
    """An updater for pure training steps on params trees.

    Args:
        iterator: the training iterator, or a dict of them with one named ``'main'``.
        step: ``step(params, state, opt_state, batch) -> (params, state, opt_state, metrics)``,
            as made by ``fnet.optim.make_train_step(loss_fn, optimizer)``; ``metrics`` is a
            dict of scalars to report.
        params: the initial parameters (a pytree, e.g. ``layer.init(key)``).
        opt_state: the initial optimizer state (``optimizer.init(params)``).
        converter: ``converter(batch, device)`` makes the step's ``batch`` from the iterator's
            list of examples; ``concat_examples`` by default.
        device: where to send ``params``, ``opt_state`` and ``state`` (None leaves them).
        state: the initial non-trainable state (batch-norm statistics...; None when there is none).
        input_device: where to send the batches; ``device`` when None.

    ``params``, ``opt_state`` and ``state`` come before the options because the step needs all
    of them, in the order ``make_train_step`` returns them; ``state`` is keyword-only since most
    models have none. The updater has no Chainer optimizer (``get_all_optimizers()`` is empty),
    so the trainer registers no observer: the metrics are reported under ``main/`` directly.

    Attributes:
        step: the step function.
        params, opt_state, state: the current trees (replaced at each update).
        iteration: the number of updates done.
    """

    def __init__(
        self,
        iterator,
        step: Callable[[Any, Any, Any, Any], tuple[Any, Any, Any, dict]],
        params: Any,
        opt_state: Any,
        converter: Callable = convert.concat_examples,
        device=None,
        *,
        state: Any = None,
        input_device=None,
    ):
        super().__init__(type(self).__name__, iterator, converter, device, input_device)
        if not callable(step):
            raise TypeError(
                f"FunctionalUpdater: step must be a function, got {type(step).__name__}\n"
                "  hint: step = fnet.optim.make_train_step(loss_fn, optimizer)"
            )
        self.step = step
        if self._device is not None:
            params, opt_state, state = backend.to_device((params, opt_state, state), self._device)
        self.params = params
        self.opt_state = opt_state
        self.state = state

    def get_all_optimizers(self) -> dict:
        """An empty dict: the optimizer is a pure transformation, its state is ``opt_state``."""
        return {}

    def get_optimizer(self, name: str):
        """Always raises: a FunctionalUpdater has no Chainer optimizer."""
        raise _UnknownNameError(
            f"FunctionalUpdater.get_optimizer: no optimizer named {name!r}: the optimizer of a pure step "
            "is a transformation, not an object\n  hint: its state is updater.opt_state"
        )

    def update_core(self) -> None:
        """Run the step on the next batch, keep the new trees and report the metrics."""
        batch = self._next_batch()
        out = self.step(self.params, self.state, self.opt_state, batch)
        if not (isinstance(out, tuple) and len(out) == 4 and isinstance(out[3], dict)):
            got = f"a tuple of {len(out)}" if isinstance(out, tuple) else type(out).__name__
            raise TypeError(
                f"FunctionalUpdater: step must return (params, state, opt_state, metrics) with metrics a "
                f"dict, got {got}\n  hint: build the step with fnet.optim.make_train_step(loss_fn, optimizer)"
            )
        self.params, self.state, self.opt_state, metrics = out
        report({"main/" + name: value for name, value in metrics.items()})

    def serialize(self, serializer) -> None:
        """Save or load the iterators (``iterator:<name>/``), the trees under ``params/``,
        ``opt_state/`` and ``state/`` with their leaves' tree paths as keys (the keys of
        ``fnet.io``: ``params/l1/W``), and ``iteration``. Loading needs trees of the saved
        structure (the updater is built as it was): the loaded values replace the trees."""
        from ...compat.serializer import Deserializer

        loading = isinstance(serializer, Deserializer)
        self._serialize_iterators(serializer)
        self.params = _serialize_tree(serializer["params"], self.params, loading)
        self.opt_state = _serialize_tree(serializer["opt_state"], self.opt_state, loading)
        self.state = _serialize_tree(serializer["state"], self.state, loading)
        self.iteration = serializer("iteration", self.iteration)


def _serialize_tree(serializer, tree: Any, loading: bool) -> Any:
    """Pass every leaf of ``tree`` through ``serializer`` under its path; the result is the tree of
    what comes back. Loading fills copies of the array leaves, never the arrays of ``tree``."""

    def leaf(path: tuple, value):
        if loading and backend.is_array(value):
            value = value.copy()
        return serializer(_tree.path_str(path), value)

    return _tree.map_with_paths(leaf, tree)
