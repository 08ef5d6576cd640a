"""Tests of the pure Geometric: numbers against scipy.stats, gradients, sampling, KL, errors."""

from __future__ import annotations

import numpy
import pytest
from scipy import stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(9)
P = rng.uniform(0.05, 0.95, size=(3, 2))
X = rng.randint(1, 10, size=(4, 3, 2)).astype(numpy.float64)
RTOL = 1e-12  # float64 formulas of a few roundings each, against scipy's


def test_log_prob_and_moments_match_scipy():
    d = D.Geometric(P)
    numpy.testing.assert_allclose(d.log_prob(X), stats.geom.logpmf(X, P), rtol=RTOL)
    numpy.testing.assert_allclose(d.mean, stats.geom.mean(P), rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, stats.geom.var(P), rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "positive integer"


def test_integer_x_is_read_in_the_dtype_of_p():
    p = P.astype(numpy.float32)
    y = D.Geometric(p).log_prob(X.astype(numpy.int32))
    assert y.dtype == numpy.float32
    numpy.testing.assert_allclose(y, stats.geom.logpmf(X, p), rtol=1e-5)  # float32: a few eps


def test_gradients_to_order_2():
    check_grads(lambda p: D.Geometric(p).log_prob(X), (P,))
    check_grads(lambda p: D.Geometric(p).variance, (P,))
    check_grads(lambda a, b: D.kl_divergence(D.Geometric(a), D.Geometric(b)), (P, P[::-1]))


def test_kl_matches_the_sum_over_the_support():
    q = P[::-1]
    k = numpy.arange(1, 2000).reshape(-1, 1, 1)  # the tail past 2000 is below 0.95 ** 2000
    expected = (stats.geom.pmf(k, P) * (stats.geom.logpmf(k, P) - stats.geom.logpmf(k, q))).sum(0)
    numpy.testing.assert_allclose(D.kl_divergence(D.Geometric(P), D.Geometric(q)), expected, rtol=1e-10)


def test_samples_are_keyed_positive_integers_with_the_moments():
    p = numpy.float32([0.2, 0.5, 1.0])
    d = D.Geometric(p)
    key = fnet.random.key(5)
    s = d.sample(key, 200_000)
    assert s.dtype == numpy.float32 and s.shape == (200_000, 3)
    numpy.testing.assert_array_equal(s, d.sample(key, 200_000))
    assert (s >= 1).all() and (s == numpy.round(s)).all() and (s[:, 2] == 1).all()
    # The standard error of the mean is sqrt((1 - p) / p^2 / 200,000), at most 0.01 here; 5 of
    # them fail a right sampler with probability below 1e-6.
    numpy.testing.assert_allclose(s.mean(axis=0), 1 / p, atol=5 * 0.01)
    numpy.testing.assert_allclose(s.var(axis=0), (1 - p) / p**2, rtol=0.05, atol=1e-6)


def test_bad_parameters_raise_typed_errors():
    with pytest.raises(DTypeError, match="Geometric: expected p of a floating dtype"):
        D.Geometric(numpy.ones(3, numpy.int32))
