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

Randomness (dropout, noise) comes from keys. Given ``key=``, the updater passes the step the key
``fnet.random.fold_in(key, iteration)`` at each iteration, a fresh one every time and the same
one again after a resume (the base key is saved with the updater), and ``iteration=`` when the
step declares it. A step made by ``make_train_step`` declares what its loss function declares:

>>> def dropout_loss_fn(params, state, batch, *, key, iteration):
...     x, y = batch
...     x = fnet.functions.dropout(x, 0.5, key=key)
...     return fnet.ops.mean((x * params["w"] - y) ** 2), (state, {"iteration": iteration})
>>> updater = FunctionalUpdater(SerialIterator(data, 4), optim.make_train_step(dropout_loss_fn, tx),
...                             params, tx.init(params), key=fnet.random.key(0))
>>> updater.update(); updater.update()
>>> updater.iteration
2
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from ... import backend, random
from ... import tree as _tree
from ...data import convert
from ...errors import InvalidInputError, aval, message
from ...optim.train_step import _declared_keywords
from ...optim.transform import Transform
from ...serialization import Deserializer
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
        key: a random key (``fnet.random.key(seed)``): each update passes the step
            ``key=fnet.random.fold_in(key, iteration)``. The step must declare ``key``; one that
            requires it needs this argument.
        optimizer: the step's optimizer (a ``fnet.optim`` transformation), read by
            ``observe_lr``; a step made by ``make_train_step`` tells its own.

    The step gets ``iteration=`` (the number of updates done before this one) when it declares
    it. What the step declares is read from its signature once, here: a step written by hand
    declares them as keyword parameters, ``step(params, state, opt_state, batch, *, key)``.

    ``params``, ``opt_state`` and ``state`` come before the options because the step needs all
    of them, in the order ``make_train_step`` returns them; ``state`` is keyword-only since most
    models have none. The updater has no Chainer optimizer (``get_all_optimizers()`` is empty),
    so the trainer registers no observer: the metrics are reported under ``main/`` directly.

    Attributes:
        step: the step function.
        params, opt_state, state: the current trees (replaced at each update).
        iteration: the number of updates done.
        key: the base random key (None without one).
        optimizer: the step's optimizer transformation (None when unknown).
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
        key: Any = None,
        optimizer: Transform | None = None,
    ):
        super().__init__(type(self).__name__, iterator, converter, device, input_device)
        if not callable(step):
            raise TypeError(
                f"FunctionalUpdater: step must be a function, got {type(step).__name__}\n"
                "  hint: step = fnet.optim.make_train_step(loss_fn, optimizer)"
            )
        self.step = step
        self.key = _check_key(key)
        self._pass_key, self._pass_iteration = _keywords_to_pass(step, key is not None)
        self.optimizer = optimizer if optimizer is not None else getattr(step, "optimizer", None)
        if self.optimizer is not None and not isinstance(self.optimizer, Transform):
            raise InvalidInputError(
                message(
                    "FunctionalUpdater",
                    f"expected optimizer to be a fnet.optim transformation, got {type(optimizer).__name__}",
                    hint="pass the optimizer the step was made with, e.g. optimizer=fnet.optim.Adam()",
                )
            )
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
        if self._pass_key or self._pass_iteration:
            keywords = {}
            if self._pass_key:
                keywords["key"] = random.fold_in(self.key, self.iteration)
            if self._pass_iteration:
                keywords["iteration"] = self.iteration
            out = self.step(self.params, self.state, self.opt_state, batch, **keywords)
        else:
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
        ``fnet.io``: ``params/l1/W``), ``iteration``, and the base random ``key`` when the
        updater has one. Loading needs trees of the saved structure (the updater is built as it
        was): the loaded values replace the trees."""
        loading = isinstance(serializer, Deserializer)
        self._serialize_iterators(serializer)
        self.params = _serialize_tree(serializer["params"], self.params, loading)
        self.opt_state = _serialize_tree(serializer["opt_state"], self.opt_state, loading)
        self.state = _serialize_tree(serializer["state"], self.state, loading)
        self.iteration = serializer("iteration", self.iteration)
        if self.key is not None:
            self.key = serializer("key", self.key.copy() if loading else self.key)


def _check_key(key: Any) -> Any:
    """``key`` as a NumPy random key (None stays None); anything else is an error."""
    if key is None:
        return None
    example = random.key(0)
    array = numpy.asarray(backend.to_cpu(key))
    if array.shape != example.shape or array.dtype != example.dtype:
        raise InvalidInputError(
            message(
                "FunctionalUpdater",
                f"expected key to be a random key ({aval(example)}), got {aval(key)}",
                hint="pass key=fnet.random.key(seed)",
            )
        )
    return array.copy()


def _keywords_to_pass(step: Callable, have_key: bool) -> tuple[bool, bool]:
    """Whether to pass the step ``key=`` and ``iteration=``, from what it declares (read once)."""
    declared = _declared_keywords(step)
    if have_key and "key" not in declared:
        raise InvalidInputError(
            message(
                "FunctionalUpdater",
                "key was given but the step does not declare a key argument, so it would never get one",
                hint="declare it in the loss function, loss_fn(params, state, batch, *, key), and make "
                "the step with fnet.optim.make_train_step; or in a hand-written step(..., *, key)",
            )
        )
    if declared.get("key") and not have_key:
        raise InvalidInputError(
            message(
                "FunctionalUpdater",
                "the step requires a key argument but no key was given",
                hint="pass key=fnet.random.key(seed): each update gets fnet.random.fold_in(key, iteration)",
            )
        )
    return have_key, "iteration" in declared


def _serialize_tree(serializer, tree: Any, loading: bool) -> Any:
    """Pass every leaf of ``tree`` through ``serializer`` under its path; the result is the tree of
    what comes back. Loading fills copies of the array leaves, never the arrays of ``tree``."""

    def leaf(path: tuple, value):
        if loading and backend.is_array(value):
            value = value.copy()
        return serializer(_tree.path_str(path), value)

    return _tree.map_with_paths(leaf, tree)
