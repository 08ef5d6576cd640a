"""Chainer's ``L.Classifier``: a predictor link wrapped with a loss and an accuracy, reported to
the current reporter.

>>> import numpy
>>> from fnet.compat.links import Linear
>>> model = Classifier(Linear(3, 2))
>>> loss = model(numpy.ones((4, 3), numpy.float32), numpy.array([0, 1, 1, 0], numpy.int32))
>>> loss.shape, float(model.accuracy.array)
((), 0.5)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import reporter
from ..functions import accuracy, softmax_cross_entropy
from ..link import Chain, Link
from ..variable import Variable

__all__ = ["Classifier"]


class Classifier(Chain):
    """``Classifier(predictor, lossfun=softmax_cross_entropy, accfun=accuracy, label_key=-1)``:
    calling it with inputs and labels runs ``y = predictor(*inputs)``, ``loss = lossfun(y, t)``
    and, while ``compute_accuracy`` is True, ``accuracy = accfun(y, t)``; it keeps ``y``, ``loss``
    and ``accuracy`` as attributes, reports ``loss`` and ``accuracy`` (``reporter.report(...,
    self)``) and returns the loss.

    The labels are the positional argument at ``label_key`` (an int), or the keyword argument
    of that name (a str).
    """

    compute_accuracy = True

    def __init__(
        self,
        predictor: Link,
        lossfun: Callable = softmax_cross_entropy,
        accfun: Callable = accuracy,
        label_key: int | str = -1,
    ):
        if not isinstance(label_key, (int, str)):
            raise TypeError(
                f"Classifier: label_key must be int or str, but is {type(label_key)}\n"
                "  hint: an int picks the labels from the positional arguments, a str from the keyword ones"
            )
        super().__init__()
        self.lossfun = lossfun
        self.accfun = accfun
        self.y: Variable | None = None
        self.loss: Variable | None = None
        self.accuracy: Variable | None = None
        self.label_key = label_key
        with self.init_scope():
            self.predictor = predictor

    def forward(self, *args: Any, **kwargs: Any) -> Variable:
        """The loss of the predictor's output on the inputs, against the labels in the arguments."""
        if isinstance(self.label_key, int):
            if not -len(args) <= self.label_key < len(args):
                raise ValueError(
                    f"Label key {self.label_key} is out of bounds\n"
                    f"  hint: the model was called with {len(args)} positional arguments; pass the inputs "
                    "and the labels, e.g. model(x, t) with label_key=-1"
                )
            index = self.label_key % len(args)
            t = args[index]
            args = args[:index] + args[index + 1 :]
        else:
            if self.label_key not in kwargs:
                raise ValueError(
                    f'Label key "{self.label_key}" is not found\n'
                    f"  hint: the keywords given were {sorted(kwargs)}; call model(..., {self.label_key}=t)"
                )
            kwargs = dict(kwargs)
            t = kwargs.pop(self.label_key)
        self.y = None
        self.loss = None
        self.accuracy = None
        self.y = self.predictor(*args, **kwargs)
        self.loss = self.lossfun(self.y, t)
        reporter.report({"loss": self.loss}, self)
        if self.compute_accuracy:
            self.accuracy = self.accfun(self.y, t)
            reporter.report({"accuracy": self.accuracy}, self)
        return self.loss
