"""Chainer's normalization links: ``L.BatchNormalization``, ``L.BatchRenormalization``,
``L.DecorrelatedBatchNormalization``, ``L.GroupNormalization``, ``L.LayerNormalization``.

The batch normalizations keep their running statistics as persistent values (``avg_mean``,
``avg_var`` or ``avg_projection``, and the count ``N``). In training (``chainer.config.train``)
a call normalizes with the batch's statistics and folds them into the running ones, in place,
with ``decay`` (with ``finetune=True``: ``N`` grows and the running statistics become the
average of every finetuning batch); otherwise it normalizes with the running statistics.

>>> import numpy
>>> bn = BatchNormalization(2)
>>> y = bn(numpy.array([[0.0, 1.0], [2.0, 5.0]], numpy.float32))
>>> bn.avg_mean, bn.N
(array([0.1, 0.3], dtype=float32), 0)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy

from ... import nn, tree
from ...errors import InvalidInputError
from .. import configuration
from ..backend import copyto
from ..serializer import Deserializer
from ..variable import Variable
from ._adapter import SpecLink, parse_kwargs, spec_attribute, spec_constructor

__all__ = [
    "BatchNormalization",
    "BatchRenormalization",
    "DecorrelatedBatchNormalization",
    "GroupNormalization",
    "LayerNormalization",
]

_RETIRED_TEST = {"test": "test argument is not supported anymore. Use chainer.using_config"}


class _RunningStatistics(SpecLink):
    """The batch normalizations: ``decay``, ``eps`` (both may be changed), ``finetune`` and
    ``start_finetuning``; parameters and statistics in ``dtype`` (None: ``config.dtype``)."""

    _fixes_dtype = True

    decay = spec_attribute("decay", "The decay of the running averages.", settable=True)
    eps = spec_attribute("eps", "The epsilon added to the variance.", settable=True)

    def forward(self, x, **kwargs: Any) -> Variable:
        """``x`` normalized; in training, the running statistics are updated (``finetune=False``:
        moving averages with ``decay``; ``finetune=True``: the average of the finetuning batches)."""
        (finetune,) = parse_kwargs(
            f"{type(self).__name__}.forward", kwargs, {"finetune": False}, _RETIRED_TEST
        )
        return super().forward(x, finetune=finetune)

    def start_finetuning(self) -> None:
        """Reset the count ``N`` of finetuning batches: the next ``finetune=True`` calls start a
        new average."""
        self.N = 0


class BatchNormalization(_RunningStatistics):
    """Batch normalization, Chainer's ``L.BatchNormalization(size=None, decay=0.9, eps=2e-5,
    dtype=None, use_gamma=True, use_beta=True, initial_gamma=None, initial_beta=None, axis=None,
    initial_avg_mean=None, initial_avg_var=None)``.

    Parameters ``gamma`` (1) and ``beta`` (0) of shape ``size`` (None when not used);
    persistents ``avg_mean`` (0), ``avg_var`` (1) and ``N``. Given ``axis`` (the axes normalized
    over) instead of ``size``, the shapes are taken from the first input. ``forward(x,
    finetune=False)``.
    """

    spec_type = nn.BatchNormalization
    gamma = None
    beta = None
    axis = spec_attribute("axis", "The axes normalized over (None: the batch and spatial axes).")

    _build = spec_constructor(
        nn.BatchNormalization,
        "initial_gamma",
        "initial_beta",
        "initial_avg_mean",
        "initial_avg_var",
        dtypes=("dtype",),  # as Chainer's, float32 statistics with mixed16
    )

    def __init__(self, *args: Any, **kwargs: Any):
        try:
            self._build(*args, **kwargs)
        except InvalidInputError as error:
            if "size or axis is required" not in str(error):  # a size of the wrong type: TypeError
                raise
            raise RuntimeError(str(error)) from error  # neither size nor axis, as Chainer raises

    __init__.__signature__ = _build.__signature__
    __init__.__doc__ = _build.__doc__

    @property
    def printable_specs(self):
        """``size``, ``decay``, ``eps``, ``dtype``, ``use_gamma``, ``use_beta`` for ``str(link)``."""
        yield from (
            ("size", None if self.avg_mean is None else self.avg_mean.shape[0]),
            ("decay", self.decay),
            ("eps", self.eps),
            ("dtype", None if self.avg_mean is None else self.avg_mean.dtype),
            ("use_gamma", self.gamma is not None),
            ("use_beta", self.beta is not None),
        )


class BatchRenormalization(BatchNormalization):
    """Batch renormalization, Chainer's ``L.BatchRenormalization(size, rmax=1, dmax=0,
    decay=0.9, eps=2e-5, dtype=None, use_gamma=True, use_beta=True, initial_gamma=None,
    initial_beta=None, initial_avg_mean=None, initial_avg_var=None)``: batch normalization
    corrected towards the running statistics (``r`` clipped to ``[1/rmax, rmax]``, ``d`` to
    ``[-dmax, dmax]``). Unlike Chainer 7.8.1 (which passes them on shifted by one place), the
    initial statistics are used as named."""

    spec_type = nn.BatchRenormalization
    __init__ = spec_constructor(
        nn.BatchRenormalization,
        "initial_gamma",
        "initial_beta",
        "initial_avg_mean",
        "initial_avg_var",
        dtypes=("dtype",),
    )
    rmax = spec_attribute("rmax", "The bound of the scale correction ``r``.", settable=True)
    dmax = spec_attribute("dmax", "The bound of the shift correction ``d``.", settable=True)
    _seen_before_recompute = None  # the running statistics F.forget's first run used

    def forward(self, x, **kwargs: Any) -> Variable:
        """As the batch normalization's; under ``F.forget`` the recomputation uses the running
        statistics the first computation used (``r`` and ``d`` depend on them), as in Chainer."""
        config = configuration.config
        if config.train and config.in_recomputing and self._seen_before_recompute is not None:
            current = _copied(self.state_tree())
            self.set_state_tree(self._seen_before_recompute)
            try:
                return super().forward(x, **kwargs)
            finally:
                self.set_state_tree(current)
        if config.train and config._will_recompute:
            self._seen_before_recompute = _copied(self.state_tree())
        return super().forward(x, **kwargs)


def _copied(state: dict) -> dict:
    """The state tree with its arrays copied."""
    return tree.map(lambda v: v.copy() if hasattr(v, "copy") else v, state)


class DecorrelatedBatchNormalization(_RunningStatistics):
    """Decorrelated batch normalization, Chainer's ``L.DecorrelatedBatchNormalization(size,
    groups=16, decay=0.9, eps=2e-5, dtype=numpy.float32)``: ZCA whitening of ``groups`` groups of
    channels; no parameters, persistents ``avg_mean`` ``(groups, size // groups)``,
    ``avg_projection`` ``(groups, C, C)`` and ``N``."""

    spec_type = nn.DecorrelatedBatchNormalization
    __init__ = spec_constructor(nn.DecorrelatedBatchNormalization, dtypes=("dtype",))
    groups = spec_attribute("groups", "The number of groups of channels whitened separately.")

    def serialize(self, serializer) -> None:
        """As ``Link.serialize``; a deserializer also reads the statistics of models saved before
        Chainer v7 (one ``avg_mean`` ``(C,)`` and ``avg_projection`` ``(C, C)`` for all groups),
        warning when there are several groups, as Chainer does."""
        if isinstance(serializer, Deserializer):
            serializer = _SharedStatistics(serializer, self.groups)
        super().serialize(serializer)


class _SharedStatistics:
    """A deserializer that repeats statistics saved without the group axis over ``groups``."""

    _NDIM = {"avg_mean": 2, "avg_projection": 3}

    def __init__(self, base, groups: int):
        self.base = base
        self.groups = groups

    def __call__(self, key: str, value):
        ndim = self._NDIM.get(key)
        if ndim is None:
            return self.base(key, value)
        loaded = self.base(key, None)
        if loaded is None:  # not in the file (non-strict loading)
            return value
        if loaded.ndim == ndim - 1:
            loaded = _with_group_axis(key, loaded, self.groups, ndim)
        if value is None:
            return loaded
        if loaded.shape != value.shape:  # the base deserializer's error names the two shapes
            return self.base(key, value)
        copyto(value, loaded)
        return value


def _with_group_axis(name: str, array, groups: int, ndim: int):
    """The statistic ``name`` of ``ndim`` dimensions, from ``array`` as saved: as it is, or, saved
    before Chainer v7 without the group axis, repeated over the ``groups`` (with a warning when
    there are several)."""
    if array.ndim == ndim:
        return array
    if array.ndim != ndim - 1:
        raise ValueError(
            f"DecorrelatedBatchNormalization: expected {name} of {ndim - 1} or {ndim} dimensions, "
            f"got shape {array.shape}\n  hint: load statistics saved by DecorrelatedBatchNormalization"
        )
    if groups != 1:
        warnings.warn(
            f"DecorrelatedBatchNormalization: '{name}' was saved without its group axis (by a model "
            f"from before Chainer v7, whose statistics differ from the paper's); it is repeated over "
            f"the {groups} groups",
            UserWarning,
            stacklevel=4,
        )
    return numpy.broadcast_to(array, (groups,) + array.shape)


def fix_avg_mean(avg_mean, groups: int):
    """``avg_mean`` with its group axis ``(groups, C)``, as Chainer v7 keeps it (see above)."""
    return _with_group_axis("avg_mean", avg_mean, groups, 2)


def fix_avg_projection(avg_projection, groups: int):
    """``avg_projection`` with its group axis ``(groups, C, C)``, as Chainer v7 keeps it."""
    return _with_group_axis("avg_projection", avg_projection, groups, 3)


class GroupNormalization(SpecLink):
    """Group normalization, Chainer's ``L.GroupNormalization(groups, size=None, eps=1e-5,
    initial_gamma=None, initial_beta=None)``: ``gamma``, ``beta`` of shape ``(size,)``;
    ``size=None`` takes the channels of the first input."""

    spec_type = nn.GroupNormalization
    __init__ = spec_constructor(nn.GroupNormalization, "initial_gamma", "initial_beta")
    _mixed16_dtype = numpy.float32  # as Chainer's
    groups = spec_attribute("groups", "The number of groups of channels.")
    eps = spec_attribute("eps", "The epsilon added to the variance.", settable=True)


class LayerNormalization(SpecLink):
    """Layer normalization, Chainer's ``L.LayerNormalization(size=None, eps=1e-6,
    initial_gamma=None, initial_beta=None)``: ``gamma``, ``beta`` of shape ``(size,)``;
    ``size=None`` takes the size of one example of the first input."""

    spec_type = nn.LayerNormalization
    __init__ = spec_constructor(nn.LayerNormalization, "initial_gamma", "initial_beta")
    eps = spec_attribute("eps", "The epsilon added to the variance.", settable=True)
