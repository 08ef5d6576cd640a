"""Loss layers with parameters: Chainer's ``L.BinaryHierarchicalSoftmax``, ``L.BlackOut``,
``L.CRF1d`` and ``L.NegativeSampling``, and the Walker alias sampler the sampled losses draw with.

The sampled losses (BlackOut, NegativeSampling) need random labels. Chainer draws them from
NumPy's global generator; here ``apply`` takes an explicit ``key`` (the same key gives the same
samples), or the negative labels themselves as ``samples=`` (for reproducible runs and tests).
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence

import attrs
import numpy

from .. import backend, initializers, ops, random
from .. import functions as F
from ..autodiff.tracer import unbox_all
from ..errors import InvalidInputError, ShapeError, message
from ..functions._checks import check_float, check_labels, check_ndim, check_same_dtype
from .layer import Layer, frozen_initializer

__all__ = ["WalkerAlias", "BinaryHierarchicalSoftmax", "BlackOut", "CRF1d", "NegativeSampling"]


def _float_dtype(dtype) -> numpy.dtype:
    """``dtype``, or float32 (Chainer's default ``config.dtype``) when it is None."""
    return numpy.dtype(numpy.float32 if dtype is None else dtype)


def _read_only(array: numpy.ndarray) -> numpy.ndarray:
    """``array``, made read-only: the tables a frozen spec holds cannot change behind its back."""
    array.setflags(write=False)
    return array


def _check_size(fn: str, name: str, value, minimum: int = 1) -> None:
    """``value`` must be an int of at least ``minimum`` (a size or a number of samples)."""
    if isinstance(value, bool) or not isinstance(value, (int, numpy.integer)) or value < minimum:
        raise InvalidInputError(
            f"{fn}: expected {name} to be an int >= {minimum}, got {value!r}\n"
            f"  hint: {name} is a count, e.g. {name}=5"
        )


def _check_counts(fn: str, counts) -> tuple:
    """``counts`` as a tuple of non-negative numbers with a positive sum (a sampling distribution)."""
    try:
        values = numpy.asarray(counts, dtype=numpy.float64)
    except (TypeError, ValueError):  # ragged, or not numbers
        values = None
    if values is None or values.ndim != 1 or not len(values) or (values < 0).any() or not values.sum() > 0:
        raise InvalidInputError(
            f"{fn}: expected counts to be a non-empty list of non-negative numbers with a positive sum, "
            f"got {counts!r}\n  hint: counts[i] is how often label i occurs in the training data"
        )
    return tuple(counts)


# -- sampling --------------------------------------------------------------------------------------
@attrs.frozen(init=False)
class WalkerAlias:
    """Walker's alias method: draws labels with probabilities ``probs / sum(probs)`` in O(1) each.

    ``WalkerAlias(probs)`` builds Chainer's tables (``threshold`` float32, ``values`` int32 of
    two entries per label), so that the same uniform numbers give Chainer's samples;
    ``sample(key, shape)`` draws an int32 array of labels.

    >>> import fnet
    >>> sampler = WalkerAlias([0.0, 1.0, 0.0])
    >>> sampler.sample(fnet.random.key(0), (2, 3)).tolist()
    [[1, 1, 1], [1, 1, 1]]
    """

    threshold: numpy.ndarray = attrs.field(eq=attrs.cmp_using(eq=numpy.array_equal), hash=False, repr=False)
    values: numpy.ndarray = attrs.field(eq=attrs.cmp_using(eq=numpy.array_equal), hash=False, repr=False)

    def __init__(self, probs):
        prob = numpy.array(probs, numpy.float32)
        prob /= numpy.sum(prob)
        size = len(prob)
        threshold = numpy.zeros(size, numpy.float32)
        values = numpy.zeros(size * 2, numpy.int32)
        # Labels in increasing probability: each small one fills its bucket up to `threshold`,
        # the later (larger) ones give their excess to the open buckets on the right side.
        # The arithmetic is in float64 (Python floats), the tables in float32, as in Chainer.
        filled, open_bucket = 0, 0
        for p, label in sorted(zip(prob, range(size))):
            p = float(p) * size
            while p > 1 and open_bucket < filled:
                values[open_bucket * 2 + 1] = label
                p -= 1.0 - float(threshold[open_bucket])
                open_bucket += 1
            threshold[filled] = p
            values[filled * 2] = label
            filled += 1
        self.__attrs_init__(_read_only(threshold), _read_only(values))

    def _choose(self, uniforms):
        """The labels picked by uniform draws on ``[0, len(probs))``: bucket, then side of it."""
        index = uniforms.astype(numpy.int32)
        right = self.threshold[index] < uniforms.astype(numpy.float32) - index.astype(numpy.float32)
        return self.values[index * 2 + right.astype(numpy.int32)]

    def sample(self, key, shape) -> numpy.ndarray:
        """An int32 array of ``shape`` labels drawn with the key ``key``."""
        return self._choose(random.uniform(key, shape, numpy.float64, 0.0, len(self.threshold)))


def _sample_source(fn: str, sampler: WalkerAlias, key, samples, shape: tuple):
    """The negative labels of a sampled loss, ``shape`` = (N, S): drawn with ``key``, or given."""
    if (key is None) == (samples is None):
        raise InvalidInputError(
            f"{fn}.apply: expected exactly one of key= and samples=, got "
            f"{'neither' if key is None else 'both'}\n"
            "  hint: pass key=fnet.random.key(...) (a new key each step) to draw the negative labels, "
            "or samples=<int array (N, sample_size)> to give them"
        )
    if key is not None:
        return sampler.sample(key, shape)
    samples = unbox_all(samples)
    if numpy.shape(samples) != shape:
        raise ShapeError(
            message(
                f"{fn}.apply",
                f"expected samples.shape == {shape} (batch size, sample_size), got {numpy.shape(samples)}",
                {"samples": samples},
                "samples holds the negative labels of each example, one row per row of x",
            )
        )
    return samples


@attrs.frozen(init=False)
class BlackOut(Layer):
    """BlackOut loss (Chainer's ``L.BlackOut``): :func:`fnet.functions.black_out` with its weight.

    ``BlackOut(in_size, counts, sample_size)``: the params are ``{"W": (len(counts), in_size)}``;
    as in Chainer, ``W`` starts as NaN (float32), so set it before training, e.g. with
    ``fnet.initializers``. Negative labels are drawn from the unigram distribution ``counts``
    with a :class:`WalkerAlias` sampler.

    ``apply(params, x, t, *, key=None, samples=None)`` returns the mean loss over the batch;
    the ``sample_size`` negatives of each example are drawn with ``key``, or given as
    ``samples`` (int array ``(N, sample_size)``, Chainer's ``sample_data``).
    """

    in_size: int
    counts: tuple
    sample_size: int
    sampler: WalkerAlias = attrs.field(eq=False, repr=False)

    def __init__(self, in_size: int, counts: Sequence, sample_size: int):
        counts = _check_counts("BlackOut", counts)
        _check_size("BlackOut", "in_size", in_size)
        _check_size("BlackOut", "sample_size", sample_size, minimum=0)
        self.__attrs_init__(in_size, counts, sample_size, WalkerAlias(numpy.array(counts, numpy.float32)))

    def init(self, key) -> dict:
        """``{"W": NaN (len(counts), in_size)}``, float32, as Chainer leaves it (``key`` is unused)."""
        return {"W": initializers.NaN()(key, (len(self.counts), self.in_size), numpy.float32)}

    def apply(self, params, x, t, *, key=None, samples=None):
        """The mean BlackOut loss of ``x`` ``(N, in_size)`` with the labels ``t`` ``(N,)``."""
        shape = (numpy.shape(unbox_all(x))[0], self.sample_size)
        samples = _sample_source("BlackOut", self.sampler, key, samples, shape)
        return F.black_out(x, t, params["W"], samples)


@attrs.frozen(init=False)
class NegativeSampling(Layer):
    """Negative sampling loss (Chainer's ``L.NegativeSampling``) with its weight ``W``.

    ``NegativeSampling(in_size, counts, sample_size, power=0.75, dtype=None)``: the params are
    ``{"W": (len(counts), in_size)}``, zeros of ``dtype`` (float32 by default); negatives are
    drawn by a :class:`WalkerAlias` sampler of ``counts ** power`` (the ``sampler`` attribute).

    ``apply(params, x, t, reduce='sum', *, key=None, samples=None, return_samples=False)`` is
    :func:`fnet.functions.negative_sampling`: the ``sample_size`` negatives of each example are
    drawn with ``key`` (pass a new key each step), or given as ``samples`` (int array
    ``(N, sample_size)``); with ``return_samples`` the ``(N, sample_size + 1)`` labels used
    (true label first) come back too.
    """

    in_size: int
    counts: tuple
    sample_size: int
    power: float = 0.75
    dtype: numpy.dtype = attrs.field(default=None, converter=_float_dtype)
    sampler: WalkerAlias = attrs.field(default=None, eq=False, repr=False)

    def __init__(self, in_size: int, counts: Sequence, sample_size: int, power: float = 0.75, dtype=None):
        counts = _check_counts("NegativeSampling", counts)
        _check_size("NegativeSampling", "in_size", in_size)
        _check_size("NegativeSampling", "sample_size", sample_size, minimum=0)
        dtype = _float_dtype(dtype)
        probs = numpy.power(numpy.array(counts, dtype), dtype.type(power))  # in dtype, as Chainer
        self.__attrs_init__(in_size, counts, sample_size, power, dtype, WalkerAlias(probs))

    def init(self, key) -> dict:
        """``{"W": zeros (len(counts), in_size)}`` of ``dtype``, as in Chainer (``key`` is unused)."""
        return {"W": initializers.Zero()(key, (len(self.counts), self.in_size), self.dtype)}

    def apply(
        self, params, x, t, reduce: str = "sum", *, key=None, samples=None, return_samples: bool = False
    ):
        """The negative sampling loss of ``x`` ``(N, in_size)`` with the labels ``t`` ``(N,)``."""
        shape = (numpy.shape(unbox_all(x))[0], self.sample_size)
        negatives = _sample_source("NegativeSampling", self.sampler, key, samples, shape)

        def sampler(full_shape):  # F.negative_sampling puts the true labels in column 0
            xp = backend.xp(negatives)
            return xp.concatenate([xp.zeros((full_shape[0], 1), numpy.int32), negatives], axis=1)

        return F.negative_sampling(
            x, t, params["W"], sampler, self.sample_size, reduce=reduce, return_samples=return_samples
        )


# -- hierarchical softmax --------------------------------------------------------------------------
def _tree_paths(tree) -> tuple[dict, dict, int]:
    """Each leaf's path of internal nodes and directions (+1 left, -1 right), and the node count.

    Internal nodes are numbered in pre-order (the root is 0, then its left subtree), as Chainer
    numbers the rows of ``W``.
    """
    paths, codes, n_nodes = {}, {}, 0
    stack = [(tree, (), ())]
    while stack:
        node, path, code = stack.pop()
        if isinstance(node, tuple):
            if len(node) != 2:
                raise InvalidInputError(
                    f"BinaryHierarchicalSoftmax: expected every internal node of tree to be a pair, "
                    f"got a tuple of {len(node)}: {node!r}\n"
                    "  hint: a tree is nested 2-tuples of word ids, e.g. ((0, 1), 2)"
                )
            node_id, n_nodes = n_nodes, n_nodes + 1
            stack.append((node[1], path + (node_id,), code + (-1.0,)))
            stack.append((node[0], path + (node_id,), code + (1.0,)))  # popped first: pre-order
        elif isinstance(node, (int, numpy.integer)) and not isinstance(node, bool) and node >= 0:
            if int(node) in paths:
                raise InvalidInputError(
                    f"BinaryHierarchicalSoftmax: expected each word id once in tree, got {int(node)} twice\n"
                    "  hint: build the tree with BinaryHierarchicalSoftmax.create_huffman_tree(counts)"
                )
            paths[int(node)], codes[int(node)] = path, code
        else:
            raise InvalidInputError(
                f"BinaryHierarchicalSoftmax: expected the leaves of tree to be word ids (ints >= 0), "
                f"got {node!r}\n  hint: a tree is nested 2-tuples of word ids, e.g. ((0, 1), 2)"
            )
    return paths, codes, n_nodes


@attrs.frozen(init=False)
class BinaryHierarchicalSoftmax(Layer):
    """Hierarchical softmax over a binary tree of words (Chainer's ``L.BinaryHierarchicalSoftmax``).

    Each internal node ``e`` of ``tree`` (nested 2-tuples of word ids, e.g. ``((0, 1), 2)``) has a
    weight row ``W[e]``; the probability of word ``w`` is the product, along the path from the
    root to ``w``, of ``sigmoid(b * W[e] . x)`` with ``b = +1`` for a left turn and ``-1`` for a
    right one, so a step costs O(log V) instead of O(V) (Morin & Bengio, 2005).

    ``BinaryHierarchicalSoftmax(in_size, tree, dtype=None)``: the params are
    ``{"W": (n_nodes, in_size)}``, uniform on ``[-1, 1)`` in ``dtype`` (float32 by default).
    ``apply(params, x, t)`` returns the negative log-likelihood of the words ``t`` (int ``(N,)``)
    given ``x`` (``(N, in_size)``), summed over the batch. Word ids missing from the tree cost 0,
    as in Chainer. The parsed tree is kept as read-only tables: ``n_nodes`` (internal nodes),
    ``paths`` and ``codes`` (``(V, depth)``: each word's nodes and directions, padded with 0).
    """

    in_size: int
    tree: object
    dtype: numpy.dtype = attrs.field(converter=_float_dtype)
    n_nodes: int = attrs.field(eq=False, repr=False)
    paths: numpy.ndarray = attrs.field(eq=False, repr=False)  # (V, L) node ids, padded with 0
    codes: numpy.ndarray = attrs.field(eq=False, repr=False)  # (V, L) +1/-1, padded with 0

    def __init__(self, in_size: int, tree, dtype=None):
        _check_size("BinaryHierarchicalSoftmax", "in_size", in_size)
        paths, codes, n_nodes = _tree_paths(tree)
        n_vocab, depth = max(paths) + 1, max(len(p) for p in paths.values())
        padded_paths = numpy.zeros((n_vocab, depth), numpy.int32)
        padded_codes = numpy.zeros((n_vocab, depth), numpy.float64)
        for word, path in paths.items():
            padded_paths[word, : len(path)] = path
            padded_codes[word, : len(path)] = codes[word]
        self.__attrs_init__(in_size, tree, dtype, n_nodes, _read_only(padded_paths), _read_only(padded_codes))

    @staticmethod
    def create_huffman_tree(word_counts: dict):
        """A binary Huffman tree (nested 2-tuples of the keys) of ``word_counts`` {word: count}.

        The two least frequent entries are merged first; ties go to the entry that came first in
        the dict (a merged node takes the earlier position of its two children), as in Chainer:
        ``{0: 8, 1: 5, 2: 6, 3: 4}`` gives ``((3, 1), (2, 0))``.

        >>> BinaryHierarchicalSoftmax.create_huffman_tree({0: 8, 1: 5, 2: 6, 3: 4})
        ((3, 1), (2, 0))
        """
        if not word_counts:
            raise InvalidInputError(
                "BinaryHierarchicalSoftmax.create_huffman_tree: expected a non-empty dict "
                f"{{word: count}}, got {word_counts!r}\n  hint: count the words of the training data first"
            )
        queue = [(count, position, word) for position, (word, count) in enumerate(word_counts.items())]
        heapq.heapify(queue)
        while len(queue) > 1:
            count1, position1, node1 = heapq.heappop(queue)
            count2, position2, node2 = heapq.heappop(queue)
            heapq.heappush(queue, (count1 + count2, min(position1, position2), (node1, node2)))
        return queue[0][2]

    def init(self, key) -> dict:
        """``{"W": (n_nodes, in_size)}`` drawn uniform on ``[-1, 1)`` with ``key``, as in Chainer."""
        return {"W": initializers.Uniform(1.0)(key, (self.n_nodes, self.in_size), self.dtype)}

    def apply(self, params, x, t):
        """The summed negative log-likelihood of the words ``t`` given ``x``."""
        fn = "BinaryHierarchicalSoftmax"
        W = params["W"]
        check_ndim(fn, "x", x, 2, "x is a batch of input vectors, (N, in_size)")
        check_float(fn, "x", x)
        check_same_dtype(fn, ("x", "W"), x, W)
        if numpy.shape(unbox_all(x))[1] != numpy.shape(unbox_all(W))[1]:
            raise ShapeError(
                message(
                    fn,
                    f"expected x.shape[1] == W.shape[1], got {numpy.shape(unbox_all(x))[1]} != "
                    f"{numpy.shape(unbox_all(W))[1]}",
                    {"x": x, "W": W},
                    "W has shape (number of internal nodes, in_size)",
                )
            )
        check_ndim(fn, "t", t, 1, "t holds one word id per example")
        check_labels(fn, "t", t, None)
        t = unbox_all(t)
        if t.size and not 0 <= int(t.min()) <= int(t.max()) < len(self.paths):
            raise InvalidInputError(
                message(
                    fn,
                    f"expected word ids in [0, {len(self.paths)}), the ids of the tree, got ids from "
                    f"{int(t.min())} to {int(t.max())}",
                    {"t": t},
                    "every word of t must be a leaf of the tree the layer was built with",
                )
            )
        if t.shape[0] != numpy.shape(unbox_all(x))[0]:
            raise ShapeError(
                message(
                    fn,
                    f"expected t.shape == ({numpy.shape(unbox_all(x))[0]},), one word per row of x, "
                    f"got {t.shape}",
                    {"x": x, "t": t},
                    "x and t must describe the same examples",
                )
            )
        xp = backend.xp(x, W)
        t = xp.asarray(t)
        paths = xp.asarray(self.paths)[t]
        codes = xp.asarray(self.codes.astype(unbox_all(x).dtype))[t]
        scores = ops.einsum("nld,nd->nl", ops.getitem(W, paths), x)
        # -log sigmoid(code * score) = softplus(-code * score); padding (code 0) is masked out
        return ops.sum(ops.multiply(F.softplus(ops.multiply(scores, -codes)), codes != 0))


# -- CRF -------------------------------------------------------------------------------------------
def _sorted_transposed(xs: Sequence):
    """Sequences sorted by decreasing length (Chainer's order), transposed; and the sort order."""
    order = numpy.argsort([-len(x) for x in xs]).astype(numpy.int32)
    return F.transpose_sequence([xs[i] for i in order]), order


@attrs.frozen
class CRF1d(Layer):
    """Linear-chain CRF loss (Chainer's ``L.CRF1d``): :func:`fnet.functions.crf1d` with its costs.

    ``CRF1d(n_label, initial_cost=None)``: the params are ``{"cost": (n_label, n_label)}``, the
    transition scores, zeros unless ``initial_cost`` says otherwise (float32 by default).

    ``apply(params, xs, ys, reduce='mean', transpose=False)`` is the negative log-likelihood of
    the label sequences ``ys``. ``xs``/``ys`` are transposed and sorted batches (``xs[i]`` is
    ``(B_i, n_label)``, position ``i`` of each sequence), or, with ``transpose=True``, one
    ``(T_b, n_label)`` array per sequence in any order: they are then sorted longest first and
    transposed, and with ``reduce='no'`` the losses come in that sorted order, as in Chainer.
    """

    n_label: int
    initial_cost: object = attrs.field(default=None, converter=frozen_initializer)

    def __attrs_post_init__(self):
        _check_size("CRF1d", "n_label", self.n_label)

    def init(self, key) -> dict:
        """``{"cost": (n_label, n_label)}`` from ``initial_cost`` (zeros by default)."""
        init = initializers.as_initializer(self.initial_cost, initializers.Zero())
        return {"cost": init(key, (self.n_label, self.n_label))}

    def apply(self, params, xs: Sequence, ys: Sequence, reduce: str = "mean", transpose: bool = False):
        """The negative log-likelihood of the label sequences ``ys`` given the scores ``xs``."""
        if transpose:
            xs, order = _sorted_transposed(xs)
            ys = F.transpose_sequence([ys[i] for i in order])
        return F.crf1d(params["cost"], xs, ys, reduce=reduce)

    def argmax(self, params, xs: Sequence, transpose: bool = False):
        """The best label sequences and their scores (Viterbi): ``(score, path)``.

        Without ``transpose``, ``path`` is transposed like ``xs`` (``path[i]`` is ``(B_i,)``).
        With ``transpose=True``, ``xs`` is one array per sequence and ``path`` one int array per
        sequence, in the order of ``xs``; ``score`` stays in sorted order, as in Chainer.
        """
        if not transpose:
            return F.argmax_crf1d(params["cost"], xs)
        trans_x, order = _sorted_transposed(xs)
        score, path = F.argmax_crf1d(params["cost"], trans_x)
        per_sequence = F.transpose_sequence(path)
        result = [None] * len(order)
        for sorted_position, original in enumerate(order):
            result[original] = per_sequence[sorted_position]
        return score, result
