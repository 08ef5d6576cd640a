"""Tests of the pure Bernoulli: numbers against scipy.stats, extremes, binary_check, gradients,
sampling, KL, errors."""

from __future__ import annotations

import numpy
import pytest
from scipy import special, stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError, InvalidInputError
from fnet.testing import check_grads

rng = numpy.random.RandomState(3)
P = rng.uniform(0.05, 0.95, size=(3, 2))
X = rng.randint(0, 2, size=(4, 3, 2)).astype(numpy.float64)
RTOL = 1e-12  # float64 formulas of a few roundings each, against scipy's


@pytest.mark.parametrize("by", ["p", "logit"])
def test_log_prob_prob_and_moments_match_scipy(by):
    d = D.Bernoulli(p=P) if by == "p" else D.Bernoulli(logit=special.logit(P))
    numpy.testing.assert_allclose(d.log_prob(X), stats.bernoulli.logpmf(X, P), rtol=RTOL)
    numpy.testing.assert_allclose(d.prob(X), stats.bernoulli.pmf(X, P), rtol=RTOL)
    numpy.testing.assert_allclose(d.mean, stats.bernoulli.mean(P), rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, stats.bernoulli.var(P), rtol=RTOL)
    numpy.testing.assert_allclose(d.stddev, stats.bernoulli.std(P), rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, stats.bernoulli.entropy(P), rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "{0, 1}"
    assert set(d.params) == {"logit"}


def test_p_of_0_and_1_give_scipys_log_prob_and_entropy():
    p = numpy.float32([[0, 1], [1, 0]])
    x = numpy.float32([[0, 1], [0, 1]])
    d = D.Bernoulli(p=p)
    numpy.testing.assert_array_equal(d.log_prob(x), stats.bernoulli.logpmf(x, p))  # 0 and -inf, exactly
    numpy.testing.assert_array_equal(d.entropy, numpy.zeros((2, 2), numpy.float32))
    assert d.log_prob(x).dtype == numpy.float32


def test_the_gradient_of_entropy_at_p_of_0_takes_0_log_0_as_constant():
    # As Chainer's: d(p log p)/dp counts as 0 at p = 0, so only -(1-p) log(1-p) gives 1 there.
    with pytest.warns(RuntimeWarning, match="xlogx: x \\* log\\(x\\) has no finite derivative at x = 0"):
        g = fnet.grad(lambda p: D.Bernoulli(p=p).entropy.sum())(numpy.float64([0.0, 0.25]))
    assert g[0] == 1.0
    numpy.testing.assert_allclose(g[1], numpy.log(0.75 / 0.25), rtol=RTOL)


@pytest.mark.parametrize("binary_check", [True, False])
def test_binary_check_gives_values_other_than_0_and_1_no_probability(binary_check):
    d = D.Bernoulli(p=P, binary_check=binary_check)
    x = numpy.full((3, 2), 0.5)
    if binary_check:
        numpy.testing.assert_array_equal(d.log_prob(x), numpy.full((3, 2), -numpy.inf))
        numpy.testing.assert_array_equal(d.prob(x), numpy.zeros((3, 2)))
        numpy.testing.assert_allclose(d.log_prob(X), stats.bernoulli.logpmf(X, P), rtol=RTOL)  # 0/1 unchanged
    else:
        assert numpy.isfinite(d.log_prob(x)).all() and (d.prob(x) > 0).all()


def test_gradients_to_order_2():
    logit = special.logit(P)
    check_grads(lambda t: D.Bernoulli(logit=t).log_prob(X[0]), (logit,))
    check_grads(lambda p: D.Bernoulli(p=p).log_prob(X[0]), (P,))
    check_grads(lambda p, x: D.Bernoulli(p=p).prob(x), (P, X[0]))
    check_grads(lambda p: D.Bernoulli(p=p).entropy, (P,))
    check_grads(lambda p: D.Bernoulli(p=p).stddev, (P,))


def test_kl_matches_the_sum_over_0_and_1_and_has_gradients_to_order_2():
    q = P[::-1]
    expected = P * numpy.log(P / q) + (1 - P) * numpy.log((1 - P) / (1 - q))
    numpy.testing.assert_allclose(D.kl_divergence(D.Bernoulli(p=P), D.Bernoulli(p=q)), expected, rtol=1e-11)
    check_grads(lambda a, b: D.kl_divergence(D.Bernoulli(logit=a), D.Bernoulli(p=b)), (special.logit(P), q))


def test_samples_are_keyed_zeros_and_ones_with_mean_p():
    d = D.Bernoulli(p=numpy.float32([0.1, 0.5, 0.9]))
    key = fnet.random.key(2)
    s = d.sample(key, 100_000)
    assert s.dtype == numpy.float32 and s.shape == (100_000, 3)
    assert set(numpy.unique(s)) <= {0.0, 1.0}
    numpy.testing.assert_array_equal(s, d.sample(key, 100_000))
    # The standard error of the mean is at most 0.5 / 316; 5 of them fail a right sampler < 1e-6.
    numpy.testing.assert_allclose(s.mean(axis=0), [0.1, 0.5, 0.9], atol=5 * 0.5 / 316)


def test_bad_parameters_raise_typed_errors():
    with pytest.raises(InvalidInputError, match=r"Bernoulli: expected either p or logit \(not both\)"):
        D.Bernoulli(p=P, logit=P)
    with pytest.raises(InvalidInputError, match="give exactly one of p= and logit="):
        D.Bernoulli()
    with pytest.raises(DTypeError, match=r"Bernoulli: expected p of a floating dtype"):
        D.Bernoulli(p=numpy.ones(3, numpy.int64))


def test_log_prob_reads_x_in_the_dtype_of_logit_as_chainer_does():
    logit = special.logit(P)  # float64
    x = X[0].astype(numpy.float32)
    y = D.Bernoulli(logit=logit).log_prob(x)
    assert y.dtype == numpy.float64
    numpy.testing.assert_allclose(y, stats.bernoulli.logpmf(x, P), rtol=RTOL)
    check_grads(lambda t: D.Bernoulli(logit=t).log_prob(x), (logit,))
