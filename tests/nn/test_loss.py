"""Loss layers against Chainer 7.8.1: BinaryHierarchicalSoftmax, BlackOut, CRF1d, NegativeSampling,
and the Walker alias sampler (golden data from tests/golden/make_nn_loss.py).

How close to Chainer: losses and gradients to the relative tolerance of their dtype
(``nn_loss_golden.RTOL``: they go through exp, log and BLAS, whose last bits depend on the CPU).
Walker alias tables built from the same probabilities, the labels they pick and CRF1d's
best paths (sums and comparisons only) are exact. Tables of ``counts ** power`` are compared
by the distribution they sample, within 16 ulp: pow's last bits depend on the CPU, and so may
the bucket a label lands in.
"""

from __future__ import annotations

import ast

import numpy
import pytest

import fnet
from fnet import errors, nn
from fnet.nn.loss import WalkerAlias
from fnet.testing import assert_ulp_close, check_grads

from .nn_loss_golden import assert_close, assert_params_like_chainer, case, params

DTYPES = ["float32", "float64"]
KEY = fnet.random.key(0)


def grads_of(loss_fn, *args):
    """The gradient of a scalar ``loss_fn`` with respect to each of ``args``."""
    return fnet.grad(loss_fn, argnums=tuple(range(len(args))))(*args)


# -- WalkerAlias ---------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, probs", [("black_out_sampler", [5, 2, 7, 1, 4]), ("walker_alias", [0.5, 0.1, 0.3, 0.1])]
)
def test_walker_alias_tables_are_chainers(name, probs):
    # Exact: from the same float32 probabilities, the tables take sums, products and comparisons
    # in one order, which round the same on every CPU.
    sampler = WalkerAlias(probs)
    golden = case(name)
    numpy.testing.assert_array_equal(sampler.threshold, golden["threshold"])
    numpy.testing.assert_array_equal(sampler.values, golden["values"])
    assert sampler.threshold.dtype == numpy.float32 and sampler.values.dtype == numpy.int32


def _label_mass(threshold, values) -> numpy.ndarray:
    """The probability of each label under a Walker alias table: bucket ``b`` (of ``n``) gives
    ``values[2b]`` with ``threshold[b]`` and ``values[2b + 1]`` with the rest."""
    kept = numpy.minimum(threshold.astype(numpy.float64), 1.0)
    mass = numpy.bincount(values[0::2], kept, minlength=len(threshold))
    return (mass + numpy.bincount(values[1::2], 1.0 - kept, minlength=len(threshold))) / len(threshold)


def test_walker_alias_picks_chainers_labels_from_the_same_uniform_numbers():
    golden = case("walker_alias")
    numpy.testing.assert_array_equal(
        WalkerAlias(golden["probs"])._choose(golden["uniforms"]), golden["samples"]
    )


def test_walker_alias_samples_follow_the_probabilities():
    probs = numpy.array([0.5, 0.1, 0.3, 0.0, 0.1])
    samples = WalkerAlias(probs).sample(KEY, (200, 500))
    assert samples.shape == (200, 500) and samples.dtype == numpy.int32
    frequencies = numpy.bincount(samples.ravel(), minlength=5) / samples.size
    numpy.testing.assert_allclose(frequencies, probs, atol=0.005)  # 5 sigma at n = 1e5


def test_walker_alias_is_a_pure_function_of_the_key():
    sampler = WalkerAlias([1, 2, 3])
    k1, k2 = fnet.random.split(KEY)
    numpy.testing.assert_array_equal(sampler.sample(k1, (50,)), sampler.sample(k1, (50,)))
    assert (sampler.sample(k1, (50,)) != sampler.sample(k2, (50,))).any()


def test_walker_alias_tables_are_read_only_and_compared_by_value():
    sampler = WalkerAlias([1, 2, 3])
    with pytest.raises(ValueError, match="read-only"):
        sampler.threshold[0] = 0.0
    assert sampler == WalkerAlias([1, 2, 3]) and sampler != WalkerAlias([3, 2, 1])
    assert hash(sampler) == hash(WalkerAlias([1, 2, 3]))
    assert nn.NegativeSampling(3, [1, 2], 2) == nn.NegativeSampling(3, [1, 2], 2)


# -- BinaryHierarchicalSoftmax --------------------------------------------------------------------
def test_create_huffman_tree_is_chainers():
    golden = case("huffman")
    counts = dict(enumerate(golden["counts"].tolist()))
    assert nn.BinaryHierarchicalSoftmax.create_huffman_tree(counts) == ast.literal_eval(str(golden["tree"]))
    example = {0: 8, 1: 5, 2: 6, 3: 4}
    assert nn.BinaryHierarchicalSoftmax.create_huffman_tree(example) == ast.literal_eval(
        str(golden["example"])
    )
    assert nn.BinaryHierarchicalSoftmax.create_huffman_tree({"a": 1.5}) == "a"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("tree_name", ["huffman", "gap"])
def test_binary_hierarchical_softmax_matches_chainer(tree_name, dtype):
    name = f"bhs_{tree_name}_{dtype}"
    golden, chainer_params = case(name), params(name)
    layer = nn.BinaryHierarchicalSoftmax(3, ast.literal_eval(str(golden["tree"])), dtype=dtype)
    assert_params_like_chainer(name, layer.init(KEY))
    assert_close(layer(chainer_params, golden["x"], golden["t"]), golden["loss"])
    g_params, g_x = grads_of(lambda p, x: layer(p, x, golden["t"]), chainer_params, golden["x"])
    assert_close(g_params["W"], golden["grad.W"])
    assert_close(g_x, golden["grad.x"])


def test_binary_hierarchical_softmax_default_init_is_uniform_on_minus_one_one():
    tree = nn.BinaryHierarchicalSoftmax.create_huffman_tree({i: i + 1 for i in range(101)})
    W = nn.BinaryHierarchicalSoftmax(200, tree).init(KEY)["W"]
    assert W.shape == (100, 200) and W.dtype == numpy.float32
    assert -1 <= W.min() < -0.99 and 0.99 < W.max() < 1
    assert abs(W.mean()) < 0.01 and abs(W.var() - 1 / 3) < 0.01
    assert (
        nn.BinaryHierarchicalSoftmax(2, ((0, 1), 2), dtype=numpy.float64).init(KEY)["W"].dtype
        == numpy.float64
    )


def test_binary_hierarchical_softmax_grads_of_order_two():
    layer = nn.BinaryHierarchicalSoftmax(3, ((0, (1, 3)), 2))
    rng = numpy.random.RandomState(0)
    W, x = rng.uniform(-1, 1, (3, 3)), rng.uniform(-1, 1, (4, 3))
    t = numpy.array([3, 0, 2, 1])
    check_grads(lambda W, x: layer({"W": W}, x, t), (W, x), order=2)


def test_binary_hierarchical_softmax_tree_of_one_word_costs_nothing():
    layer = nn.BinaryHierarchicalSoftmax(3, 0)
    p = layer.init(KEY)
    assert p["W"].shape == (0, 3)
    assert float(layer(p, numpy.ones((2, 3), numpy.float32), numpy.array([0, 0]))) == 0.0


@pytest.mark.parametrize(
    "tree, match",
    [
        (((0, 1, 2), 3), "a pair"),
        (((0, -1), 2), "word ids"),
        (((0, "a"), 2), "word ids"),
        (((0, 1), 0), "once"),
    ],
)
def test_binary_hierarchical_softmax_rejects_bad_trees(tree, match):
    with pytest.raises(errors.InvalidInputError, match=f"BinaryHierarchicalSoftmax: .*{match}"):
        nn.BinaryHierarchicalSoftmax(3, tree)


def test_binary_hierarchical_softmax_input_errors():
    layer = nn.BinaryHierarchicalSoftmax(3, ((0, 1), 2))
    p = layer.init(KEY)
    x, t = numpy.ones((2, 3), numpy.float32), numpy.array([0, 2])
    with pytest.raises(
        errors.InvalidInputError, match=r"(?s)expected word ids in \[0, 3\).*from 0 to 3.*hint"
    ):
        layer(p, x, numpy.array([0, 3]))
    with pytest.raises(errors.ShapeError, match=r"x.shape\[1\] == W.shape\[1\], got 4 != 3"):
        layer(p, numpy.ones((2, 4), numpy.float32), t)
    with pytest.raises(errors.ShapeError, match=r"t.shape == \(2,\)"):
        layer(p, x, numpy.array([0, 1, 2]))
    with pytest.raises(errors.DTypeError, match="x.dtype == W.dtype"):
        layer(p, x.astype(numpy.float64), t)
    with pytest.raises(errors.DTypeError, match="integer label"):
        layer(p, x, t.astype(numpy.float32))
    with pytest.raises(errors.ShapeError, match="x.ndim == 2"):
        layer(p, x[0], t)
    with pytest.raises(errors.InvalidInputError, match="create_huffman_tree: expected a non-empty dict"):
        nn.BinaryHierarchicalSoftmax.create_huffman_tree({})


# -- BlackOut --------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_black_out_matches_chainer(dtype):
    name = f"black_out_{dtype}"
    golden, chainer_params = case(name), params(name)
    layer = nn.BlackOut(3, [5, 2, 7, 1, 4], 2)
    assert_params_like_chainer(name, layer.init(KEY))
    assert_close(layer(chainer_params, golden["x"], golden["t"], samples=golden["samples"]), golden["loss"])
    g_params, g_x = grads_of(
        lambda p, x: layer(p, x, golden["t"], samples=golden["samples"]), chainer_params, golden["x"]
    )
    assert_close(g_params["W"], golden["grad.W"])
    assert_close(g_x, golden["grad.x"])


def test_black_out_starts_with_nan_weights_like_chainer():
    W = nn.BlackOut(3, [1, 2], 2).init(KEY)["W"]
    assert W.shape == (2, 3) and W.dtype == numpy.float32 and numpy.isnan(W).all()


def test_black_out_draws_its_negatives_with_the_key():
    layer = nn.BlackOut(3, [5, 2, 7, 1, 4], 2)
    p = {"W": numpy.random.RandomState(0).uniform(-1, 1, (5, 3)).astype(numpy.float32)}
    x, t = numpy.ones((4, 3), numpy.float32), numpy.array([0, 1, 2, 3])
    k1, k2 = fnet.random.split(KEY)
    expected = layer(p, x, t, samples=layer.sampler.sample(k1, (4, 2)))
    assert float(layer(p, x, t, key=k1)) == float(expected)
    assert float(layer(p, x, t, key=k2)) != float(expected)


# -- NegativeSampling -------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", ["sum", "no"])
def test_negative_sampling_matches_chainer(reduce, dtype):
    name = f"negative_sampling_{reduce}_{dtype}"
    golden, chainer_params = case(name), params(name)
    layer = nn.NegativeSampling(3, [5, 2, 7, 1, 4, 3], 2, dtype=dtype)
    assert_params_like_chainer(name, layer.init(KEY))
    negatives = golden["samples"][:, 1:]  # Chainer's draws; column 0 holds the true labels
    loss, samples = layer(
        chainer_params, golden["x"], golden["t"], reduce=reduce, samples=negatives, return_samples=True
    )
    assert_close(loss, golden["loss"])
    numpy.testing.assert_array_equal(samples, golden["samples"])
    g_params, g_x = grads_of(
        lambda p, x: fnet.ops.sum(layer(p, x, golden["t"], reduce, samples=negatives)),
        chainer_params,
        golden["x"],
    )
    assert_close(g_params["W"], golden["grad.W"])
    assert_close(g_x, golden["grad.x"])


@pytest.mark.parametrize("power", [0.75, 0.5])
def test_negative_sampling_sampler_is_chainers(power):
    counts = [5, 2, 7, 1, 4, 3]
    sampler = nn.NegativeSampling(3, counts, 2, power=power).sampler
    assert sampler == WalkerAlias(numpy.power(numpy.float32(counts), numpy.float32(power)))  # in float32
    # counts ** power rounds differently on different CPUs (NumPy's SIMD pow is up to 4 ulp off,
    # libm's under 1), and a table's labels may then take other buckets: what is defined is the
    # distribution the table samples. Its masses are the probabilities: pow 5 ulp apart, their
    # sum as much again, the division 1, the float32 thresholds of two buckets 1 each: 13 ulp,
    # counted at 1 (the masses sum to 1): 16.
    golden = case(f"negative_sampling_sampler_{power}")
    mass = _label_mass(sampler.threshold, sampler.values).astype(numpy.float32)
    golden_mass = _label_mass(golden["threshold"], golden["values"]).astype(numpy.float32)
    assert_ulp_close(mass, golden_mass, max_ulp=16, scale=1.0)


def test_negative_sampling_default_weights_are_zeros():
    W = nn.NegativeSampling(4, [1, 2, 3], 2).init(KEY)["W"]
    assert W.shape == (3, 4) and W.dtype == numpy.float32 and not W.any()
    assert nn.NegativeSampling(4, [1, 2, 3], 2, dtype=numpy.float64).init(KEY)["W"].dtype == numpy.float64


def test_negative_sampling_draws_with_the_key():
    layer = nn.NegativeSampling(3, [5, 2, 7, 1, 4, 3], 4)
    p = {"W": numpy.random.RandomState(0).uniform(-1, 1, (6, 3)).astype(numpy.float32)}
    x, t = numpy.ones((5, 3), numpy.float32), numpy.array([0, 1, 2, 3, 5])
    loss, samples = layer(p, x, t, key=KEY, return_samples=True)
    assert samples.shape == (5, 5) and samples.dtype == numpy.int32
    numpy.testing.assert_array_equal(samples[:, 0], t)
    numpy.testing.assert_array_equal(samples[:, 1:], layer.sampler.sample(KEY, (5, 4)))
    assert float(layer(p, x, t, key=KEY)) == float(loss)


def test_sampled_losses_need_exactly_one_source_of_negatives():
    layer = nn.NegativeSampling(3, [1, 2, 3], 2)
    p, x, t = layer.init(KEY), numpy.ones((2, 3), numpy.float32), numpy.array([0, 1])
    with pytest.raises(
        errors.InvalidInputError, match="NegativeSampling.apply: expected exactly one of .*neither"
    ):
        layer(p, x, t)
    with pytest.raises(errors.InvalidInputError, match="(?s)BlackOut.apply: .*both.*hint"):
        nn.BlackOut(3, [1, 2, 3], 2)(p, x, t, key=KEY, samples=numpy.zeros((2, 2), numpy.int32))
    with pytest.raises(errors.ShapeError, match=r"samples.shape == \(2, 2\).*got \(2, 3\)"):
        layer(p, x, t, samples=numpy.zeros((2, 3), numpy.int32))
    with pytest.raises(errors.InvalidInputError, match="out of range"):
        layer(p, x, t, samples=numpy.full((2, 2), 3))


def test_sizes_must_be_counts():
    with pytest.raises(
        errors.InvalidInputError, match="BlackOut: expected sample_size to be an int >= 0, got -1"
    ):
        nn.BlackOut(3, [1, 2], -1)
    with pytest.raises(
        errors.InvalidInputError, match="NegativeSampling: expected in_size to be an int >= 1"
    ):
        nn.NegativeSampling(2.5, [1, 2], 2)
    with pytest.raises(errors.InvalidInputError, match="BinaryHierarchicalSoftmax: expected in_size"):
        nn.BinaryHierarchicalSoftmax(0, (0, 1))
    with pytest.raises(errors.InvalidInputError, match="CRF1d: expected n_label to be an int >= 1, got True"):
        nn.CRF1d(True)


@pytest.mark.parametrize("counts", [[], [1, -1], [0, 0], [[1, 2]], ["a"], [[1], [2, 3]]])
def test_sampled_losses_reject_bad_counts(counts):
    with pytest.raises(errors.InvalidInputError, match="NegativeSampling: expected counts"):
        nn.NegativeSampling(3, counts, 2)
    with pytest.raises(errors.InvalidInputError, match="BlackOut: expected counts"):
        nn.BlackOut(3, counts, 2)


# -- CRF1d -----------------------------------------------------------------------------------------
def _sequence_inputs(golden):
    count = sum(key.startswith("xs") for key in golden)
    return [golden[f"xs{i}"] for i in range(count)], [golden[f"ys{i}"] for i in range(count)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_crf1d_matches_chainer(dtype):
    name = f"crf1d_{dtype}"
    golden, chainer_params = case(name), params(name)
    layer = nn.CRF1d(3)
    assert_params_like_chainer(name, layer.init(KEY))
    xs, ys = _sequence_inputs(golden)
    for reduce in ("mean", "no"):
        assert_close(layer(chainer_params, xs, ys, reduce=reduce), golden[f"loss_{reduce}"])
    g_params, g_xs = grads_of(lambda p, xs: layer(p, xs, ys), chainer_params, xs)
    assert_close(g_params["cost"], golden["grad.cost"])
    for i, g in enumerate(g_xs):
        assert_close(g, golden[f"grad.xs{i}"])
    score, path = layer.argmax(chainer_params, xs)
    assert_close(score, golden["argmax_score"])
    for i, p in enumerate(path):
        numpy.testing.assert_array_equal(p, golden[f"argmax_path{i}"])


@pytest.mark.parametrize("dtype", DTYPES)
def test_crf1d_transpose_matches_chainer(dtype):
    name = f"crf1d_transpose_{dtype}"
    golden, chainer_params = case(name), params(name)
    layer = nn.CRF1d(3)
    xs, ys = _sequence_inputs(golden)
    for reduce in ("mean", "no"):
        assert_close(layer(chainer_params, xs, ys, reduce=reduce, transpose=True), golden[f"loss_{reduce}"])
    score, path = layer.argmax(chainer_params, xs, transpose=True)
    assert_close(score, golden["argmax_score"])
    assert len(path) == len(xs)
    for i, p in enumerate(path):
        numpy.testing.assert_array_equal(p, golden[f"argmax_path{i}"])


def test_crf1d_initial_cost():
    assert not nn.CRF1d(4).init(KEY)["cost"].any()
    assert nn.CRF1d(4).init(KEY)["cost"].dtype == numpy.float32
    numpy.testing.assert_array_equal(nn.CRF1d(2, initial_cost=0.5).init(KEY)["cost"], numpy.full((2, 2), 0.5))
    cost = nn.CRF1d(3, initial_cost=fnet.initializers.Normal(1.0)).init(KEY)["cost"]
    assert cost.shape == (3, 3) and cost.std() > 0.1


def test_crf1d_grads_of_order_two():
    layer = nn.CRF1d(2)
    rng = numpy.random.RandomState(0)
    cost, xs = rng.uniform(-1, 1, (2, 2)), [rng.uniform(-1, 1, (2, 2)), rng.uniform(-1, 1, (1, 2))]
    ys = [numpy.array([0, 1]), numpy.array([1])]
    check_grads(lambda cost, x0, x1: layer({"cost": cost}, [x0, x1], ys), (cost, *xs), order=2)


def test_crf1d_errors_name_the_function():
    layer = nn.CRF1d(3)
    p = layer.init(KEY)
    with pytest.raises(errors.ShapeError, match=r"crf1d: expected xs\[0\].shape\[1\] == 3"):
        layer(p, [numpy.zeros((1, 2), numpy.float32)], [numpy.zeros(1, numpy.int32)])
    with pytest.raises(errors.ShapeError, match="crf1d: expected batch sizes that never grow"):
        layer(p, [numpy.zeros((1, 3), numpy.float32), numpy.zeros((2, 3), numpy.float32)], [0, 0])
