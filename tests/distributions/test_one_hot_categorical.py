"""Tests of the pure OneHotCategorical: numbers against scipy.stats, gradients, sampling, KL,
what it lacks, errors."""

from __future__ import annotations

import numpy
import pytest
from scipy import special, stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError, NotDefinedError
from fnet.testing import check_grads

rng = numpy.random.RandomState(6)
P = special.softmax(rng.normal(size=(3, 2, 4)), axis=-1)
X = numpy.eye(4)[rng.randint(0, 4, size=(5, 3, 2))]
RTOL = 1e-12  # float64 formulas of a few roundings each, against scipy's


def test_log_prob_and_moments_match_scipy():
    d = D.OneHotCategorical(P)
    numpy.testing.assert_allclose(d.log_prob(X), stats.multinomial.logpmf(X, 1, P), rtol=RTOL)
    numpy.testing.assert_array_equal(d.mean, P)
    numpy.testing.assert_allclose(d.variance, P * (1 - P), rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == (4,) and set(d.params) == {"p"}


def test_gradients_to_order_2():
    check_grads(lambda p: D.OneHotCategorical(p).log_prob(X), (P,))
    check_grads(lambda p: D.OneHotCategorical(p).variance, (P,))
    check_grads(lambda a, b: D.kl_divergence(D.OneHotCategorical(a), D.OneHotCategorical(b)), (P, P[::-1]))


def test_kl_is_the_categorical_one():
    expected = D.kl_divergence(D.Categorical(p=P), D.Categorical(p=P[::-1]))
    kl = D.kl_divergence(D.OneHotCategorical(P), D.OneHotCategorical(P[::-1]))
    numpy.testing.assert_allclose(kl, (P * numpy.log(P / P[::-1])).sum(-1), rtol=1e-11)
    numpy.testing.assert_allclose(kl, expected, rtol=1e-14)


def test_samples_are_keyed_one_hot_vectors_with_mean_p():
    p = numpy.float32([[0.2, 0.0, 0.8], [0.5, 0.25, 0.25]])
    d = D.OneHotCategorical(p)
    key = fnet.random.key(8)
    s = d.sample(key, 100_000)
    assert s.dtype == numpy.float32 and s.shape == (100_000, 2, 3)
    numpy.testing.assert_array_equal(s.sum(-1), numpy.ones((100_000, 2)))
    numpy.testing.assert_array_equal(s, d.sample(key, 100_000))
    # The standard error of a frequency is at most 0.5 / 316; 5 of them fail a right sampler < 1e-6.
    numpy.testing.assert_allclose(s.mean(axis=0), p, atol=5 * 0.5 / 316)


def test_what_chainers_lacks_raises_not_implemented_error():
    with pytest.raises(NotImplementedError, match="OneHotCategorical does not define entropy"):
        _ = D.OneHotCategorical(P).entropy
    assert issubclass(NotDefinedError, NotImplementedError)


def test_bad_parameters_raise_typed_errors():
    with pytest.raises(DTypeError, match="OneHotCategorical: expected p of a floating dtype"):
        D.OneHotCategorical(numpy.ones((2, 3), numpy.int32))
