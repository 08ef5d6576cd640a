"""Chainer's loss links: ``L.BinaryHierarchicalSoftmax``, ``L.BlackOut``, ``L.CRF1d`` and
``L.NegativeSampling``, each a ``SpecLink`` around its ``fnet.nn`` spec.

The sampled losses draw their negative labels as Chainer does, with a Walker alias ``sampler``
(``chainer.utils.WalkerAlias``) fed from NumPy's global random state: after
``numpy.random.seed(n)`` they draw Chainer's samples.

>>> import numpy
>>> crf = CRF1d(2)
>>> xs = [numpy.zeros((1, 2), numpy.float32)] * 3
>>> ys = [numpy.zeros(1, numpy.int32)] * 3
>>> round(float(crf(xs, ys).array), 4)  # 2 ** 3 label sequences, all as likely: log 8
2.0794
"""

from __future__ import annotations

import importlib

import numpy

from ... import nn
from ..configuration import get_dtype
from ..utils import WalkerAlias
from ..variable import Variable
from ._adapter import SpecLink, parse_kwargs, spec_attribute, spec_constructor

__all__ = ["BinaryHierarchicalSoftmax", "BlackOut", "CRF1d", "NegativeSampling"]

_NEGATIVE_SAMPLING = "fnet.compat.functions.loss.negative_sampling"
_SAMPLE_SIZE = spec_attribute("sample_size", "The number of negative labels drawn per example.")


class BinaryHierarchicalSoftmax(SpecLink):
    """Hierarchical softmax over a binary tree of words, Chainer's
    ``L.BinaryHierarchicalSoftmax(in_size, tree, dtype=None)``: ``W`` ``(internal nodes,
    in_size)`` (uniform on ``[-1, 1)``, of ``dtype`` or ``config.dtype``); ``forward(x, t)`` is
    the summed negative log-likelihood of the words ``t``."""

    spec_type = nn.BinaryHierarchicalSoftmax
    _fixes_dtype = True
    create_huffman_tree = staticmethod(nn.BinaryHierarchicalSoftmax.create_huffman_tree)

    def __init__(self, in_size: int, tree, dtype=None):
        spec = nn.BinaryHierarchicalSoftmax(in_size, tree, get_dtype(dtype))
        super().__init__(spec)
        self._func = _TreeTables(spec)


class _TreeTables:
    """Chainer's flat view of a hierarchical softmax tree (the link's ``_func``): ``paths`` and
    ``codes``, every word's node ids and directions (+1 left, -1 right) one after another in
    word order, and ``begins``, where each word's run starts (``begins[w]:begins[w + 1]``).
    Made from the spec's tables; the link computes with the spec."""

    def __init__(self, spec: nn.BinaryHierarchicalSoftmax):
        lengths = numpy.count_nonzero(spec.codes, axis=1)
        used = numpy.arange(spec.codes.shape[1]) < lengths[:, None]
        self.paths = spec.paths[used]
        self.codes = spec.codes[used].astype(spec.dtype)
        self.begins = numpy.concatenate([[0], numpy.cumsum(lengths)]).astype(numpy.int32)
        self.parser_size = spec.n_nodes


class _Sampled(SpecLink):
    """The sampled losses: a ``sampler`` that lives on the link's device."""

    sample_size = _SAMPLE_SIZE

    def device_resident_accept(self, visitor) -> None:
        """Visit the parameters, then move the sampler's tables to the same device."""
        super().device_resident_accept(visitor)
        self.sampler.to_device(self.device)


class BlackOut(_Sampled):
    """BlackOut loss, Chainer's ``L.BlackOut(in_size, counts, sample_size)``: ``W``
    ``(len(counts), in_size)`` (NaN until set, as in Chainer); ``forward(x, t)`` draws
    ``sample_size`` negatives per example from ``counts`` with ``sampler``, unless
    ``sample_data`` (an int array ``(N, sample_size)``) is set."""

    spec_type = nn.BlackOut
    sample_data = None

    def __init__(self, in_size: int, counts, sample_size: int):
        super().__init__(nn.BlackOut(in_size, counts, sample_size))
        self.sampler = WalkerAlias(numpy.array(counts, numpy.float32))

    def forward(self, x, t) -> Variable:
        """The mean BlackOut loss of ``x`` ``(N, in_size)`` with the labels ``t``."""
        samples = self.sample_data
        if samples is None:
            samples = self.sampler.sample((x.shape[0], self.sample_size))
        return self._apply("apply", x, t, key=None, samples=samples)


class CRF1d(SpecLink):
    """Linear-chain CRF loss, Chainer's ``L.CRF1d(n_label, initial_cost=None)``: the transition
    scores ``cost`` ``(n_label, n_label)`` (zeros); ``forward(xs, ys, reduce='mean',
    transpose=False)`` is the negative log-likelihood of the label sequences ``ys``."""

    spec_type = nn.CRF1d
    __init__ = spec_constructor(nn.CRF1d, "initial_cost")

    def argmax(self, xs, transpose: bool = False) -> tuple:
        """``(score, path)``: the best label sequences (Viterbi), ``path`` a list of int arrays."""
        score, path = self._apply("argmax", xs, transpose)
        return score, [p.array for p in path]


class NegativeSampling(_Sampled):
    """Negative sampling loss, Chainer's ``L.NegativeSampling(in_size, counts, sample_size,
    power=0.75, dtype=None)``: ``W`` ``(len(counts), in_size)`` (zeros, of ``dtype`` or
    ``config.dtype``); negatives are drawn from ``counts ** power`` by ``sampler``.
    ``forward(x, t, reduce='sum', return_samples=False)``; with ``return_samples`` the labels
    used (``(N, sample_size + 1)``, the true label first) come back too."""

    spec_type = nn.NegativeSampling
    _fixes_dtype = True

    def __init__(self, in_size: int, counts, sample_size: int, power: float = 0.75, dtype=None):
        dtype = get_dtype(dtype)
        super().__init__(nn.NegativeSampling(in_size, counts, sample_size, power, dtype))
        # Chainer's sampling distribution, built as Chainer builds it (in dtype).
        self.sampler = WalkerAlias(numpy.power(numpy.array(counts, dtype), dtype.type(power)))

    def forward(self, x, t, reduce: str = "sum", **kwargs) -> Variable | tuple:
        """The loss (summed with ``reduce='sum'``, per example with ``'no'``).

        As in Chainer, the link calls ``chainer.functions.loss.negative_sampling
        .negative_sampling`` (looked up at each call, so a patch of it is seen) with its
        ``sampler.sample``.
        """
        (return_samples,) = parse_kwargs("NegativeSampling.forward", kwargs, {"return_samples": False})
        function = importlib.import_module(_NEGATIVE_SAMPLING).negative_sampling
        return function(
            x, t, self.W, self.sampler.sample, self.sample_size, reduce=reduce, return_samples=return_samples
        )
