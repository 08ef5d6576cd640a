"""Tests of fnet.optim's hooks beyond the Chainer trajectories (test_golden.py): formulas on small
arrays, pass-through below the clipping threshold, the explicit randomness of GradientNoise,
purity, and the error messages."""

from __future__ import annotations

import math

import numpy
import pytest

from fnet import optim, random, tree
from fnet.errors import InvalidInputError, TreeStructureError


def problem(seed=0, dtype=numpy.float64):
    rng = numpy.random.RandomState(seed)
    params = {"W": rng.randn(3, 4).astype(dtype), "b": rng.randn(3).astype(dtype)}
    grads = {"W": rng.randn(3, 4).astype(dtype), "b": rng.randn(3).astype(dtype)}
    return params, grads


HOOKS = {
    "WeightDecay": lambda: optim.WeightDecay(0.1),
    "Lasso": lambda: optim.Lasso(0.1),
    "GradientClipping": lambda: optim.GradientClipping(0.5),
    "GradientHardClipping": lambda: optim.GradientHardClipping(-0.2, 0.3),
    "GradientNoise": lambda: optim.GradientNoise(0.3, key=random.key(1)),
    "GradientLARS": lambda: optim.GradientLARS(weight_decay=0.1),
}


@pytest.mark.parametrize("name", list(HOOKS))
def test_hooks_are_pure_and_keep_dtypes(name):
    params, grads = problem(dtype=numpy.float32)
    before = tree.map(numpy.copy, (params, grads))
    tx = HOOKS[name]()
    out, _ = tx.update(grads, tx.init(params), params)
    for old, now in zip(tree.leaves(before), tree.leaves((params, grads))):
        numpy.testing.assert_array_equal(now, old)
    assert all(o is not g and o.dtype == numpy.float32 for o, g in zip(tree.leaves(out), tree.leaves(grads)))


def test_formulas():
    params, grads = problem()
    out = optim.WeightDecay(0.1).update(grads, None, params)[0]
    numpy.testing.assert_allclose(out["W"], grads["W"] + 0.1 * params["W"])
    out = optim.Lasso(0.1).update(grads, None, params)[0]
    numpy.testing.assert_allclose(out["b"], grads["b"] + 0.1 * numpy.sign(params["b"]))
    out = optim.GradientHardClipping(-0.2, None).update(grads, None, None)[0]
    numpy.testing.assert_array_equal(out["W"], numpy.maximum(grads["W"], -0.2))
    norm = math.sqrt(sum(float((g**2).sum()) for g in grads.values()))
    out = optim.GradientClipping(0.5).update(grads, None, None)[0]
    numpy.testing.assert_allclose(out["W"], grads["W"] * 0.5 / norm)
    assert math.isclose(math.sqrt(sum(float((g**2).sum()) for g in out.values())), 0.5)


def test_lars_rates():
    params, grads = problem()
    params["b"] = params["b"] * 1e-3  # below the threshold: rate 1
    out = optim.GradientLARS(threshold=0.01, weight_decay=0.1, eps=1e-9).update(grads, None, params)[0]
    p, g = params["W"], grads["W"]
    rate = numpy.linalg.norm(p) / (1e-9 + numpy.linalg.norm(g) + 0.1 * numpy.linalg.norm(p))
    numpy.testing.assert_allclose(out["W"], (g + 0.1 * p) * rate)
    numpy.testing.assert_allclose(out["b"], grads["b"] + 0.1 * params["b"])


def test_clipping_below_the_threshold_passes_the_gradients_through():
    params, grads = problem()
    out, state = optim.GradientClipping(100.0).update(grads, None, None)
    assert out is grads and state is None
    zeros = {"W": numpy.zeros(2)}
    assert optim.GradientClipping(1.0).update(zeros, None, None)[0] is zeros


def test_noise_is_a_pure_function_of_the_key():
    params, grads = problem()
    tx = optim.GradientNoise(0.3, key=random.key(7))
    state = tx.init(params)
    a, state_a = tx.update(grads, state, params)
    b, state_b = tx.update(grads, state, params)
    assert tree.all_equal_structure(a, b) and all(
        numpy.array_equal(x, y) for x, y in zip(tree.leaves(a), tree.leaves(b))
    )
    assert state_a.t == 1 and numpy.array_equal(state_a.key, state_b.key)
    c, _ = tx.update(grads, state_a, params)  # the next step draws new noise
    assert not numpy.array_equal(c["W"] - grads["W"], a["W"] - grads["W"])
    other = optim.GradientNoise(0.3, key=random.key(8))
    d, _ = other.update(grads, other.init(params), params)
    assert not numpy.array_equal(d["W"], a["W"])
    assert not numpy.array_equal(a["W"] - grads["W"], (a["b"] - grads["b"])[0])  # a key per leaf


def test_default_noise_has_the_annealed_variance():
    grads = {"w": numpy.zeros(200_000, numpy.float32)}
    tx = optim.GradientNoise(0.5, key=random.key(3))
    state = tx.init(grads)
    for t in range(3):
        noise, state = tx.update(grads, state, None)
        assert noise["w"].dtype == numpy.float32
        assert math.isclose(float(noise["w"].std()), math.sqrt(0.5 / (1 + t) ** 0.55), rel_tol=0.01)
        assert abs(float(noise["w"].mean())) < 0.01


def test_noise_func_gets_key_shape_dtype_eta_and_t():
    calls = []

    def noise_func(key, shape, dtype, eta, t):
        calls.append((key.shape, shape, numpy.dtype(dtype), eta, t))
        return numpy.zeros(shape, dtype)

    tx = optim.GradientNoise(0.25, noise_func, key=random.key(0))
    grads = {"w": numpy.ones((2, 3))}
    state = tx.init(grads)
    for _ in range(2):
        _, state = tx.update(grads, state, None)
    assert calls == [
        ((4,), (2, 3), numpy.dtype("float64"), 0.25, 0),
        ((4,), (2, 3), numpy.dtype("float64"), 0.25, 1),
    ]


def test_errors():
    params, grads = problem()
    with pytest.raises(InvalidInputError, match=r"WeightDecay: expected rate to be a number, got '0.1'"):
        optim.WeightDecay("0.1")
    with pytest.raises(InvalidInputError, match=r"GradientLARS: expected eps to be a number"):
        optim.GradientLARS(eps=None)
    with pytest.raises(InvalidInputError, match=r"GradientNoise: expected key to be a random key, got None"):
        optim.GradientNoise(0.1)
    with pytest.raises(InvalidInputError, match=r"GradientNoise: expected noise_func to be a function"):
        optim.GradientNoise(0.1, noise_func=0.5, key=random.key(0))
    with pytest.raises(InvalidInputError, match=r"GradientNoise.update: expected a GradientNoiseState"):
        optim.GradientNoise(0.1, key=random.key(0)).update(grads, None, params)
    with pytest.raises(InvalidInputError, match=r"Lasso.update: expected params, got None"):
        optim.Lasso(0.1).update(grads, None, None)
    with pytest.raises(TreeStructureError, match=r"WeightDecay.update: tree structures differ"):
        optim.WeightDecay(0.1).update(grads, None, {"W": params["W"]})
