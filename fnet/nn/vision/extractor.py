"""The feature extractor that the pretrained convnets share: a model is a list of named stages,
and ``extract`` runs them in order, keeping the activations asked for.

A stage is ``Stage(name, steps, source=None)``: each step is the name of a child layer, a
``Dropout(ratio)``, or a function of the activation; ``source`` names an earlier stage whose
output the stage starts from (GoogLeNet's side classifiers), the previous stage's by default.
The stage names are Chainer's layer names ('conv1', 'pool5', 'fc7', 'prob'...).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import attrs
import numpy

from ... import backend, random, tree
from ... import functions as F
from ...errors import InvalidInputError, ShapeError, message
from ..layer import Module
from .image import oversample as ten_crops

__all__ = ["Stage", "Dropout", "FeatureExtractor"]


@attrs.frozen
class Dropout:
    """A step of a stage: dropout of ``ratio`` in training, the identity otherwise."""

    ratio: float = 0.5


@attrs.frozen
class Stage:
    """One named stage of a feature extractor: its ``steps`` in order, from ``source``'s output."""

    name: str
    steps: tuple
    source: str | None = None


class FeatureExtractor(Module):
    """A ``Module`` whose computation is ``stages()``: ``extract`` returns named activations,
    ``apply`` the class probabilities ('prob'), ``predict`` them averaged over crops.

    A model with batch normalization (ResNet) has state: ``extract`` and ``apply`` then take
    ``state`` and return ``(result, new_state)``, as stateful layers do.
    """

    default_layers: ClassVar[tuple[str, ...]] = ("prob",)  # what extract returns when not told
    mean_bgr: ClassVar[tuple[float, float, float]] = (0.0, 0.0, 0.0)  # the mean pixel prepare subtracts

    def stages(self) -> tuple[Stage, ...]:
        """The named stages, in the order they run."""
        raise TypeError(f"{type(self).__name__} defines no stages()")

    @property
    def available_layers(self) -> list[str]:
        """The names ``extract`` accepts, in the order the stages run."""
        return [stage.name for stage in self.stages()]

    def extract(
        self, params, x, layers: Sequence[str] | None = None, state=None, *, train: bool = True, key=None
    ):
        """The activations of the stages named in ``layers`` on the images ``x`` (NCHW), as a dict
        by name; ``(activations, new_state)`` for a model with state. Only the stages that lead
        to those are run (not those after them, nor the main line before a side branch).
        ``key`` draws the dropout masks in training."""
        layers = self.default_layers if layers is None else tuple(layers)
        stages = self.stages()
        unknown = sorted(set(layers) - {stage.name for stage in stages})
        if unknown:
            raise InvalidInputError(
                message(
                    f"{type(self).__name__}.extract",
                    f"expected layer names among the model's stages, got {unknown}",
                    hint=f"the layers are {[stage.name for stage in stages]}",
                )
            )
        if state is None and self.stateful:
            raise InvalidInputError(
                message(
                    f"{type(self).__name__}.extract",
                    "expected state=... (the model has batch normalization), got none",
                    hint="pass the state from init_state(), then the one returned by the previous call",
                )
            )
        needed = _needed(stages, layers)
        n_noisy = sum(isinstance(step, Dropout) for i in needed for step in stages[i].steps)
        keys = iter(random.split(key, n_noisy)) if train and key is not None and n_noisy else None
        new_state = dict(state or {})
        outputs: dict = {}
        h = x
        for i, stage in enumerate(stages):
            if i not in needed:
                continue
            if stage.source is not None:
                h = outputs[stage.source]
            for step in stage.steps:
                h = self._step(step, params, h, new_state, train, keys)
            outputs[stage.name] = h
        found = {name: outputs[name] for name in layers}
        return (found, new_state) if self.stateful else found

    def _step(self, step, params, h, state: dict, train: bool, keys):
        """``h`` through one step; a stateful child's new state is written into ``state``."""
        if isinstance(step, str):
            child = self.sublayers()[step]
            if child.stateful:
                h, state[step] = child.apply(params[step], h, state[step], train=train)
                return h
            return child.apply(params[step], h)
        if isinstance(step, Dropout):
            if not train:
                return h
            if keys is None:
                raise InvalidInputError(
                    message(
                        f"{type(self).__name__}.extract",
                        "expected a random key for dropout in training, got key=None",
                        hint="pass key=fnet.random.key(...), or train=False for inference",
                    )
                )
            return F.dropout(h, step.ratio, key=next(keys))
        return step(h)

    def apply(self, params, x, state=None, *, train: bool = True, key=None):
        """The class probabilities ('prob') of the images ``x``; ``(prob, new_state)`` with state."""
        out = self.extract(params, x, ("prob",), state, train=train, key=key)
        return (out[0]["prob"], out[1]) if self.stateful else out["prob"]

    def caffe_sources(self) -> dict[str, tuple[str, str]]:
        """Where each entry of the params and state comes from in the original Caffe model:
        ``{"res2/a/bn1/gamma": ("scale2a_branch2a", "W"), ...}`` (entries left out keep their
        value); the keys are paths of ``init``'s and ``init_state``'s trees."""
        raise TypeError(f"{type(self).__name__} defines no caffe_sources()")

    def from_caffe(self, params, state, read) -> tuple[dict, dict]:
        """``(params, state)`` with each entry of ``caffe_sources()`` replaced by
        ``read(layer, entry)``, the array of the Caffe model's layer (a copy in the entry's dtype,
        on the entry's device)."""
        trees = {"params": tree.map(lambda a: a, params), "state": tree.map(lambda a: a, state or {})}
        for path, (layer, entry) in self.caffe_sources().items():
            names = path.split("/")
            top = "state" if _has(trees["state"], names) else "params"
            node = trees[top]
            for name in names[:-1]:
                node = node[name]
            old = node[names[-1]]
            new = numpy.asarray(read(layer, entry), dtype=old.dtype)
            if new.shape != numpy.shape(old):
                raise ShapeError(
                    message(
                        f"{type(self).__name__}.from_caffe",
                        f"expected {layer}/{entry} of shape {numpy.shape(old)} for {path}, got {new.shape}",
                        hint="the Caffe model is not the one this model converts (check its depth)",
                    )
                )
            node[names[-1]] = backend.to_device(new, backend.get_device_from_array(old))  # old's device
        return trees["params"], trees["state"]

    def predict(self, params, x, state=None, *, oversample: bool = True):
        """The class probabilities of prepared images ``x`` (N, C, 256, 256), in inference mode:
        averaged over the ten crops of ``image.oversample`` (224 x 224), or of the center crop."""
        crops = ten_crops(x, (224, 224)) if oversample else x[:, :, 16:240, 16:240]
        out = self.extract(params, crops, ("prob",), state, train=False)
        y = (out[0] if self.stateful else out)["prob"]
        if oversample:
            y = F.average(F.reshape(y, (len(x), 10) + tuple(y.shape[1:])), axis=1)
        return y


def _needed(stages: tuple[Stage, ...], layers: tuple[str, ...]) -> set[int]:
    """The indices of the stages that the activations ``layers`` depend on."""
    index = {stage.name: i for i, stage in enumerate(stages)}
    needed: set[int] = set()
    todo = [index[name] for name in layers]
    while todo:
        i = todo.pop()
        if i in needed:
            continue
        needed.add(i)
        source = stages[i].source
        if source is not None:
            todo.append(index[source])
        elif i > 0:
            todo.append(i - 1)
    return needed


def _has(nested: dict, names: list[str]) -> bool:
    """Whether the nested dict has an entry at the path ``names``."""
    for name in names:
        if not isinstance(nested, dict) or name not in nested:
            return False
        nested = nested[name]
    return True
