"""``Updater``: the interface of the objects that perform one training step for a ``Trainer``."""

from __future__ import annotations

import abc

from ...data import convert

__all__ = ["Updater"]


class _UnknownNameError(KeyError):
    """A KeyError whose text reads as a message (KeyError alone shows its text as a quoted repr)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class Updater(abc.ABC):
    """What a ``Trainer`` drives: ``update()`` makes one training step (load a batch, compute
    the gradients, update the parameters).

    Subclasses define ``update``, ``get_all_optimizers``, ``finalize`` and ``serialize``, and
    the ``iteration`` attribute (updates done) that triggers read; most also have ``epoch``,
    ``epoch_detail``, ``previous_epoch_detail`` and ``is_new_epoch``.
    """

    def connect_trainer(self, trainer) -> None:  # noqa: B027 - a hook that subclasses may leave empty
        """Called at the end of ``Trainer.__init__``, e.g. to register more observers to
        ``trainer.reporter``. Nothing by default."""

    @abc.abstractmethod
    def finalize(self) -> None:
        """Release what the updater holds (its iterators' workers): called at the end of training."""

    def get_optimizer(self, name: str):
        """The optimizer registered as ``name`` (``'main'`` for a single one)."""
        optimizers = self.get_all_optimizers()
        if name not in optimizers:
            raise _UnknownNameError(
                f"{type(self).__name__}.get_optimizer: no optimizer named {name!r}; the updater has "
                f"{sorted(optimizers)}"
            )
        return optimizers[name]

    @abc.abstractmethod
    def get_all_optimizers(self) -> dict:
        """All optimizers of the updater, by name."""

    @abc.abstractmethod
    def update(self) -> None:
        """Make one training step (called once per iteration of the training loop)."""

    @abc.abstractmethod
    def serialize(self, serializer) -> None:
        """Save or load the updater's state with a Chainer serializer."""


def _as_named(where: str, what: str, value, check, need_main: bool) -> dict:
    """``value`` as a dict of named objects: a dict is kept, a single object becomes ``{'main': value}``."""
    named = dict(value) if isinstance(value, dict) else {"main": value}
    if need_main and "main" not in named:
        raise _UnknownNameError(
            f"{where}: the {what}s must include one named 'main', got {sorted(named)}\n"
            f"  hint: pass a single {what}, or a dict such as {{'main': ...}}"
        )
    for name, item in named.items():
        check(where, name, item)
    return named


def _check_iterator(where: str, name: str, iterator) -> None:
    if not callable(getattr(iterator, "__next__", None)):
        raise TypeError(
            f"{where}: the iterator {name!r} must be a dataset iterator, got {type(iterator).__name__}\n"
            "  hint: wrap the dataset, e.g. iterators.SerialIterator(dataset, batch_size)"
        )


class _IteratingUpdater(Updater):
    """An updater that reads batches from named iterators (``'main'`` drives the epoch counts)
    and converts them with ``converter`` onto ``input_device``."""

    def __init__(self, where: str, iterator, converter, device, input_device):
        self._iterators = _as_named(where, "iterator", iterator, _check_iterator, need_main=True)
        if not callable(converter):
            raise TypeError(
                f"{where}: converter must be callable as converter(batch, device), got "
                f"{type(converter).__name__}\n  hint: the default is dataset.concat_examples"
            )
        self.converter = converter
        self._device = convert._get_device(device)
        self._input_device = self._device if input_device is None else convert._get_device(input_device)
        self.iteration = 0

    @property
    def device(self):
        """The device the model (or params) was sent to (None: left where it was)."""
        return self._device

    @property
    def input_device(self):
        """The device the batches are sent to (``device`` unless given)."""
        return self._input_device

    @property
    def epoch(self) -> int:
        """The number of completed sweeps over the main iterator's dataset."""
        return self._iterators["main"].epoch

    @property
    def epoch_detail(self) -> float:
        """The epoch as a float, with the fraction of the current sweep."""
        return self._iterators["main"].epoch_detail

    @property
    def previous_epoch_detail(self):
        """``epoch_detail`` before the last update (None before the first)."""
        return self._iterators["main"].previous_epoch_detail

    @property
    def is_new_epoch(self) -> bool:
        """Whether the last update completed a sweep."""
        return self._iterators["main"].is_new_epoch

    def get_iterator(self, name: str):
        """The iterator registered as ``name``."""
        if name not in self._iterators:
            raise _UnknownNameError(
                f"{type(self).__name__}.get_iterator: no iterator named {name!r}; the updater has "
                f"{sorted(self._iterators)}"
            )
        return self._iterators[name]

    def finalize(self) -> None:
        """Finalize every iterator that can be (called at the end of training)."""
        for iterator in self._iterators.values():
            finalize = getattr(iterator, "finalize", None)
            if finalize is not None:
                finalize()

    def update(self) -> None:
        """One training step: ``update_core()``, then ``iteration += 1``."""
        self.update_core()
        self.iteration += 1

    @abc.abstractmethod
    def update_core(self) -> None:
        """The training step itself: override it to change how the models are updated."""

    def _next_batch(self):
        """The main iterator's next batch, converted onto ``input_device``."""
        batch = next(self._iterators["main"])
        return convert._call_converter(self.converter, batch, self._input_device)

    def _serialize_iterators(self, serializer) -> None:
        for name, iterator in self._iterators.items():
            iterator.serialize(serializer["iterator:" + name])


def _arguments(in_arrays) -> tuple[tuple, dict]:
    """How a converted batch is passed to a loss function: a tuple as positional arguments, a
    dict as keyword arguments, anything else as the one argument."""
    if isinstance(in_arrays, tuple):
        return in_arrays, {}
    if isinstance(in_arrays, dict):
        return (), in_arrays
    return (in_arrays,), {}
