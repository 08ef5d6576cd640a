"""Tests of fnet.random: explicit keys, determinism, independence, and each sampler's contract."""

from __future__ import annotations

import numpy
import pytest

from fnet import random
from fnet.errors import ShapeError


@pytest.fixture
def key():
    return random.key(0)


def same(a, b) -> bool:
    return numpy.array_equal(a, b)


# -- keys ---------------------------------------------------------------------------------------


def test_key_is_uint32_words_and_deterministic():
    k = random.key(42)
    assert k.dtype == numpy.uint32 and k.shape == (4,)
    assert same(k, random.key(42))
    assert not same(k, random.key(43))
    assert same(random.key(numpy.int64(42)), k)


def test_split_gives_distinct_deterministic_keys(key):
    keys = random.split(key, 5)
    assert len(keys) == 5
    assert all(k.dtype == numpy.uint32 and k.shape == (4,) for k in keys)
    assert len({tuple(k) for k in keys} | {tuple(key)}) == 6
    assert all(same(a, b) for a, b in zip(keys, random.split(key, 5)))
    # the first keys of a split do not depend on how many were asked for
    assert same(random.split(key, 2)[1], keys[1])
    assert len(random.split(key)) == 2


def test_split_does_not_mutate_its_key(key):
    before = key.copy()
    random.split(key)
    random.normal(key, (3,))
    assert same(key, before)


def test_fold_in(key):
    assert same(random.fold_in(key, 7), random.fold_in(key, 7))
    folded = {tuple(random.fold_in(key, i)) for i in range(10)}
    assert len(folded) == 10 and tuple(key) not in folded
    assert not same(random.fold_in(random.key(1), 7), random.fold_in(key, 7))


def test_fold_in_and_split_give_different_keys(key):
    split = {tuple(k) for k in random.split(key, 10)}
    folded = {tuple(random.fold_in(key, i)) for i in range(10)}
    assert not split & folded


def test_key_validation():
    with pytest.raises(TypeError, match="random.key: seed must be an int, got float"):
        random.key(1.5)
    with pytest.raises(TypeError, match="random.key: seed must be an int, got bool"):
        random.key(True)
    with pytest.raises(ValueError, match="random.key: seed must be non-negative, got -1"):
        random.key(-1)
    with pytest.raises(ValueError, match="random.fold_in: data must be a non-negative int, got -3"):
        random.fold_in(random.key(0), -3)


@pytest.mark.parametrize(
    "bad, described",
    [
        (numpy.zeros(3, numpy.uint32), r"uint32\[3\]"),
        (numpy.zeros(4, numpy.int64), r"int64\[4\]"),
        (numpy.zeros((2, 4), numpy.uint32), r"uint32\[2, 4\]"),
        (5, r"int64\[\]"),
    ],
)
@pytest.mark.parametrize("op", ["normal", "uniform", "split", "fold_in", "permutation"])
def test_samplers_reject_non_keys(op, bad, described):
    call = {
        "normal": lambda k: random.normal(k, (2,)),
        "uniform": lambda k: random.uniform(k, (2,)),
        "split": lambda k: random.split(k),
        "fold_in": lambda k: random.fold_in(k, 1),
        "permutation": lambda k: random.permutation(k, 3),
    }[op]
    with pytest.raises(
        TypeError,
        match=rf"random.{op}: expected a key \(uint32\[4\]\) from random.key or random.split, "
        rf"got {described}",
    ):
        call(bad)


# -- samplers -----------------------------------------------------------------------------------


def test_normal(key):
    x = random.normal(key, (4000,))
    assert x.shape == (4000,) and x.dtype == numpy.float32
    assert same(x, random.normal(key, (4000,)))
    assert abs(x.mean()) < 0.1 and abs(x.std() - 1) < 0.1
    y = random.normal(key, (2, 3), dtype=numpy.float64, mean=5.0, stddev=0.01)
    assert y.shape == (2, 3) and y.dtype == numpy.float64
    assert numpy.all(numpy.abs(y - 5.0) < 0.1)
    assert random.normal(key).shape == ()
    assert random.normal(key, 3).shape == (3,)
    k1, k2 = random.split(key)
    assert not same(random.normal(k1, (5,)), random.normal(k2, (5,)))


def test_uniform(key):
    x = random.uniform(key, (2000,), low=-2.0, high=3.0)
    assert x.dtype == numpy.float32 and x.shape == (2000,)
    assert x.min() >= -2.0 and x.max() < 3.0
    assert abs(x.mean() - 0.5) < 0.2
    assert same(x, random.uniform(key, (2000,), low=-2.0, high=3.0))
    assert random.uniform(key, (3,), dtype=numpy.float64).dtype == numpy.float64


def test_uniform_stays_below_high_after_rounding(key):
    # in float16, float64 draws above 1 - 2**-12 round up to 1.0: about 50 of 200000
    x = random.uniform(key, (200_000,), dtype=numpy.float16)
    assert x.dtype == numpy.float16
    assert x.max() < 1.0 and x.min() >= 0.0


def test_bernoulli(key):
    b = random.bernoulli(key, 0.3, (5000,))
    assert b.dtype == numpy.bool_ and b.shape == (5000,)
    assert abs(b.mean() - 0.3) < 0.03
    assert not random.bernoulli(key, 0.0, (100,)).any()
    assert random.bernoulli(key, 1.0, (100,)).all()
    per_element = random.bernoulli(key, numpy.array([0.0, 1.0, 0.0]))
    assert per_element.shape == (3,) and same(per_element, [False, True, False])
    assert random.bernoulli(key, numpy.array([0.0, 1.0]), (4, 2))[:, 1].all()


def test_randint(key):
    r = random.randint(key, (1000,), 3, 7)
    assert r.dtype == numpy.int64 and r.shape == (1000,)
    assert r.min() == 3 and r.max() == 6
    assert random.randint(key, (2, 2), 0, 5, dtype=numpy.int32).dtype == numpy.int32
    assert same(r, random.randint(key, (1000,), 3, 7))


def test_permutation_of_an_int(key):
    p = random.permutation(key, 10)
    assert sorted(p.tolist()) == list(range(10))
    assert same(p, random.permutation(key, 10))
    assert not same(p, numpy.arange(10))


def test_permutation_of_an_array_permutes_rows(key):
    x = numpy.arange(20).reshape(10, 2)
    p = random.permutation(key, x)
    assert p.shape == (10, 2)
    assert sorted(map(tuple, p.tolist())) == sorted(map(tuple, x.tolist()))
    assert same(p[:, 0] // 2, random.permutation(key, 10))  # the same order as for an int


def test_choice(key):
    c = random.choice(key, 5, (1000,))
    assert c.shape == (1000,) and set(c.tolist()) == set(range(5))
    no_repeat = random.choice(key, 10, (10,), replace=False)
    assert sorted(no_repeat.tolist()) == list(range(10))
    with pytest.raises(ValueError):
        random.choice(key, 3, (4,), replace=False)
    weighted = random.choice(key, numpy.array([10, 20, 30]), (50,), p=[0.0, 0.0, 1.0])
    assert (weighted == 30).all()
    mostly = random.choice(key, 2, (2000,), p=numpy.array([0.9, 0.1]))
    assert abs(mostly.mean() - 0.1) < 0.03
    picked = random.choice(key, numpy.array([1.5, 2.5, 3.5]), (2, 3))
    assert picked.shape == (2, 3) and set(picked.ravel().tolist()) <= {1.5, 2.5, 3.5}


def test_gamma(key):
    a = numpy.array([0.5, 2.0, 7.0])
    g = random.gamma(key, a, (20000, 3), dtype=numpy.float64)
    assert g.dtype == numpy.float64 and g.shape == (20000, 3) and (g > 0).all()
    # mean a and variance a: 5 standard errors of the mean are 5 * sqrt(a / 20000) <= 0.1
    numpy.testing.assert_allclose(g.mean(axis=0), a, atol=0.1)
    numpy.testing.assert_allclose(g.var(axis=0), a, rtol=0.1)
    assert same(g, random.gamma(key, a, (20000, 3), dtype=numpy.float64))
    assert random.gamma(key, a).shape == (3,) and random.gamma(key, 2.0).dtype == numpy.float32


def test_beta(key):
    a, b = numpy.array([0.5, 2.0]), numpy.array([[1.5], [4.0]])
    x = random.beta(key, a, b, (20000, 2, 2))
    assert x.dtype == numpy.float32 and x.shape == (20000, 2, 2)
    assert (x >= 0).all() and (x <= 1).all()
    numpy.testing.assert_allclose(x.mean(axis=0), a / (a + b), atol=0.01)  # 5 standard errors
    assert random.beta(key, a, b).shape == (2, 2)


def test_dirichlet(key):
    alpha = numpy.array([[0.5, 1.0, 3.0], [2.0, 2.0, 2.0]])
    x = random.dirichlet(key, alpha, (20000,), dtype=numpy.float64)
    assert x.shape == (20000, 2, 3) and x.dtype == numpy.float64
    numpy.testing.assert_allclose(x.sum(axis=-1), 1.0, rtol=1e-12)
    expected = alpha / alpha.sum(axis=-1, keepdims=True)
    numpy.testing.assert_allclose(x.mean(axis=0), expected, atol=0.01)  # 5 standard errors
    assert random.dirichlet(key, alpha[0]).shape == (3,)
    with pytest.raises(ShapeError, match="random.dirichlet: expected alpha with at least one axis"):
        random.dirichlet(key, numpy.array(1.0))


def test_poisson(key):
    lam = numpy.array([0.3, 4.0, 50.0])
    n = random.poisson(key, lam, (20000, 3))
    assert n.dtype == numpy.int64 and n.shape == (20000, 3) and (n >= 0).all()
    assert (abs(n.mean(axis=0) - lam) < 5 * numpy.sqrt(lam / 20000)).all()  # 5 standard errors
    assert random.poisson(key, lam, dtype=numpy.float32).dtype == numpy.float32


def test_samplers_on_the_cpu_device(key):
    assert isinstance(random.normal(key, (2,), device="@numpy"), numpy.ndarray)
    assert isinstance(random.uniform(key, (2,), device=-1), numpy.ndarray)


@pytest.mark.gpu
def test_samplers_on_a_gpu(key):
    import cupy

    x = random.normal(key, (3,), device="@cupy:0")
    assert isinstance(x, cupy.ndarray)
    numpy.testing.assert_array_equal(cupy.asnumpy(x), random.normal(key, (3,)))
    p = random.permutation(key, cupy.arange(4))
    assert isinstance(p, cupy.ndarray)
    alpha = cupy.array([[1.0, 2.0], [3.0, 4.0]])  # parameters on the GPU are read on the host
    for drawn in (random.gamma(key, alpha, device="@cupy:0"), random.dirichlet(key, alpha, device="@cupy:0")):
        assert isinstance(drawn, cupy.ndarray) and drawn.shape == (2, 2)


@pytest.mark.parametrize(
    "draw",
    [
        lambda k: random.normal(k, ()),
        lambda k: random.uniform(k, (), numpy.float16),
        lambda k: random.randint(k, (), 0, 5),
        lambda k: random.bernoulli(k, 0.5),
        lambda k: random.choice(k, 4),
        lambda k: random.gamma(k, 2.0),
        lambda k: random.beta(k, 2.0, 3.0),
        lambda k: random.poisson(k, 2.0),
    ],
)
def test_a_sample_of_shape_0d_is_an_array(draw, key):
    sample = draw(key)
    assert type(sample) is numpy.ndarray and sample.shape == ()


def test_a_state_key_draws_what_the_legacy_numpy_call_draws_and_advances_the_state():
    key = random.from_state(numpy.random.RandomState(7))
    expected = numpy.random.RandomState(7)
    a = numpy.array([0.5, 2.0, 3.0])
    numpy.testing.assert_array_equal(
        random.normal(key, (2, 3), dtype=numpy.float64), expected.standard_normal((2, 3))
    )
    numpy.testing.assert_array_equal(
        random.gamma(key, a, dtype=numpy.float64), expected.standard_gamma(a, (3,))
    )
    numpy.testing.assert_array_equal(
        random.beta(key, a, a[::-1], dtype=numpy.float64), expected.beta(a, a[::-1], (3,))
    )
    numpy.testing.assert_array_equal(random.poisson(key, a), expected.poisson(a, (3,)))
    numpy.testing.assert_array_equal(random.randint(key, (4,), 0, 10), expected.randint(0, 10, (4,)))
    numpy.testing.assert_array_equal(
        random.uniform(key, (3,), dtype=numpy.float64), expected.uniform(0.0, 1.0, (3,))
    )


def test_splitting_a_state_key_gives_it_back_and_the_state_moves_on():
    key = random.from_state(numpy.random.RandomState(1))
    k1, k2 = random.split(key)
    assert k1 is key and k2 is key and random.fold_in(key, 3) is key
    assert not (random.normal(k1, (3,)) == random.normal(k2, (3,))).all()


def test_the_global_state_key_follows_numpy_random_seed():
    numpy.random.seed(3)
    drawn = random.normal(random.from_state(), (4,), dtype=numpy.float64)
    numpy.random.seed(3)
    numpy.testing.assert_array_equal(drawn, numpy.random.standard_normal(4))
