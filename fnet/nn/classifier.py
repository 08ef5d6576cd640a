"""A predictor wrapped with a loss and an accuracy, Chainer's ``L.Classifier``."""

from __future__ import annotations

from collections.abc import Callable

import attrs

from .. import functions as F
from ..errors import DTypeError, InvalidInputError
from .layer import Layer

__all__ = ["Classifier"]


@attrs.frozen(init=False)
class Classifier(Layer):
    """Computes a predictor's loss (and accuracy) on a batch of inputs and labels.

    ``Classifier(predictor, lossfun=F.softmax_cross_entropy, accfun=F.accuracy, label_key=-1)``;
    the params nest the predictor's under ``"predictor"`` (Chainer's ``predictor/...`` names).
    ``apply(params, *args, **kwargs)`` takes the labels ``t`` out of the arguments (the
    positional one at index ``label_key`` if it is an int, the keyword one if it is a str), runs
    ``y = predictor(params["predictor"], *rest)``, and returns ``(loss, metrics)`` with
    ``loss = lossfun(y, t)`` and ``metrics = {"loss": loss, "accuracy": accfun(y, t)}``
    (no accuracy when ``compute_accuracy`` is False).

    Chainer's Classifier reports ``loss`` and ``accuracy`` to the reporter and keeps ``y``,
    ``loss`` and ``accuracy`` as attributes; this pure one returns them instead, so that
    ``fnet.value_and_grad(lambda p: model(p, x, t), has_aux=True)`` gives the metrics along with
    the gradient. ``compute_accuracy`` (an attribute in Chainer) is a keyword argument here.

    With a stateful predictor (batch normalization), ``apply(params, *args, state=..., train=True)``
    returns ``((loss, metrics), new_state)``, the state nesting the predictor's under
    ``"predictor"``, as ``init_state()`` makes it.

    >>> import numpy, fnet
    >>> from fnet import nn
    >>> model = nn.Classifier(nn.Linear(3, 2))
    >>> params = model.init(fnet.random.key(0))
    >>> loss, metrics = model(params, numpy.ones((4, 3), numpy.float32), numpy.array([0, 1, 1, 0]))
    >>> sorted(metrics), float(metrics["accuracy"])
    (['accuracy', 'loss'], 0.5)
    """

    predictor: Layer
    lossfun: Callable = F.softmax_cross_entropy
    accfun: Callable = F.accuracy
    label_key: int | str = -1
    compute_accuracy: bool = True

    def __init__(
        self,
        predictor: Layer,
        lossfun: Callable = F.softmax_cross_entropy,
        accfun: Callable = F.accuracy,
        label_key: int | str = -1,
        *,
        compute_accuracy: bool = True,
    ):
        if not isinstance(predictor, Layer):
            raise DTypeError(
                f"Classifier: expected predictor to be an fnet.nn layer, got {type(predictor).__name__}\n"
                "  hint: wrap a plain function in nn.Sequential(function)"
            )
        if not isinstance(label_key, (int, str)):
            raise DTypeError(
                f"Classifier: expected label_key to be an int or a str, got {type(label_key).__name__}\n"
                "  hint: an int picks the labels from the positional arguments, a str from the keyword ones"
            )
        self.__attrs_init__(predictor, lossfun, accfun, label_key, compute_accuracy)

    @property
    def stateful(self) -> bool:  # type: ignore[override]
        """Whether the predictor has state (then ``apply`` takes and returns it)."""
        return self.predictor.stateful

    def init(self, key, *example) -> dict:
        """The params ``{"predictor": predictor.init(key, *example)}``; ``example`` (inputs without
        the labels) is only needed for a predictor with sizes left to infer, such as ``Linear(out)``."""
        return {"predictor": self.predictor.init(key, *example)}

    def init_state(self) -> dict:
        """``{"predictor": predictor.init_state()}`` for a stateful predictor, else ``{}``."""
        return {"predictor": self.predictor.init_state()} if self.stateful else {}

    def _split_label(self, args: tuple, kwargs: dict):
        """``(t, args, kwargs)``: the labels, and the remaining arguments for the predictor."""
        if isinstance(self.label_key, str):
            if self.label_key not in kwargs:
                raise InvalidInputError(
                    f"Classifier.apply: expected the labels as keyword argument {self.label_key!r} "
                    f"(label_key), got keywords {sorted(kwargs)}\n"
                    f"  hint: call model(params, ..., {self.label_key}=t)"
                )
            rest = {name: value for name, value in kwargs.items() if name != self.label_key}
            return kwargs[self.label_key], args, rest
        if not -len(args) <= self.label_key < len(args):
            raise InvalidInputError(
                f"Classifier.apply: label_key {self.label_key} is out of bounds for {len(args)} "
                "positional arguments\n"
                "  hint: pass the inputs and the labels, e.g. model(params, x, t) with label_key=-1"
            )
        index = self.label_key % len(args)
        return args[index], args[:index] + args[index + 1 :], kwargs

    def apply(self, params, *args, state=None, train: bool = True, **kwargs):
        """``(loss, metrics)`` of the predictor on the inputs, against the labels taken from the arguments."""
        t, args, kwargs = self._split_label(args, kwargs)
        if self.stateful:
            if state is None:
                raise InvalidInputError(
                    "Classifier.apply: the predictor has state; pass state=... "
                    "(from Classifier.init_state(), then the state returned by the previous call)"
                )
            y, predictor_state = self.predictor.apply(
                params["predictor"], *args, state["predictor"], train=train, **kwargs
            )
        else:
            y = self.predictor.apply(params["predictor"], *args, **kwargs)
        loss = self.lossfun(y, t)
        metrics = {"loss": loss}
        if self.compute_accuracy:
            metrics["accuracy"] = self.accfun(y, t)
        return ((loss, metrics), {"predictor": predictor_state}) if self.stateful else (loss, metrics)
