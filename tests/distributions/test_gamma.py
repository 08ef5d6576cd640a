"""Tests of the pure Gamma: numbers against scipy.stats, gradients, sampling, KL."""

from __future__ import annotations

import numpy
import pytest
from scipy import integrate, stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError, ShapeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(12)
K = rng.uniform(0.5, 4.0, size=(3, 2))
THETA = rng.uniform(0.5, 2.0, size=(3, 2))
X = rng.gamma(2.0, size=(4, 3, 2))

# float64 formulas of a few roundings each (lgamma, digamma to near 1 ulp), against scipy's
RTOL = 1e-12


def test_log_prob_matches_scipy_and_is_minus_inf_below_zero():
    d = D.Gamma(K, THETA)
    numpy.testing.assert_allclose(d.log_prob(X), stats.gamma.logpdf(X, K, scale=THETA), rtol=RTOL)
    assert (d.log_prob(-X) == -numpy.inf).all()


def test_moments_and_entropy_match_scipy():
    d = D.Gamma(K, THETA)
    numpy.testing.assert_allclose(d.mean, stats.gamma.mean(K, scale=THETA), rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, stats.gamma.var(K, scale=THETA), rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, stats.gamma.entropy(K, scale=THETA), rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "positive"
    assert D.Gamma(K, THETA[0]).batch_shape == (3, 2)


@pytest.mark.parametrize("member", ["prob", "stddev", "mode", "cdf", "icdf"])
def test_what_chainers_gamma_lacks_is_not_defined(member):
    d = D.Gamma(K, THETA)
    with pytest.raises(NotImplementedError, match=f"Gamma.{member}"):
        value = getattr(d, member)
        value(X) if callable(value) else value


def test_gradients_to_second_order():
    check_grads(lambda k, theta: D.Gamma(k, theta).log_prob(X), (K, THETA), order=2)
    check_grads(lambda k, theta: D.Gamma(k, theta).entropy, (K, THETA), order=2)
    check_grads(
        lambda k1, t1, k2, t2: D.kl_divergence(D.Gamma(k1, t1), D.Gamma(k2, t2)),
        (K, THETA, K[::-1], THETA[::-1]),
        order=2,
    )


def test_samples_follow_the_moments_and_scale_with_theta():
    key = fnet.random.key(0)
    samples = D.Gamma(K, THETA).sample_n(key, 20000)
    assert samples.shape == (20000, 3, 2) and samples.dtype == numpy.float64 and (samples > 0).all()
    # 5 standard errors of the mean: 5 * sqrt(k) * theta / 141 < 12% of k * theta for k >= 0.5
    numpy.testing.assert_allclose(samples.mean(axis=0), K * THETA, rtol=0.12)
    # differentiable in theta (d sample / d theta = sample / theta), the same draws
    g = fnet.grad(lambda theta: D.Gamma(K, theta).sample_n(key, 3).sum())(THETA)
    numpy.testing.assert_allclose(g, D.Gamma(K, THETA).sample_n(key, 3).sum(axis=0) / THETA, rtol=1e-12)
    d32 = D.Gamma(K.astype(numpy.float32), THETA.astype(numpy.float32))
    assert d32.sample(key, (2, 5)).shape == (2, 5, 3, 2) and d32.sample(key).dtype == numpy.float32


def test_kl_matches_numerical_integration():
    p, q = D.Gamma(numpy.array(2.5), numpy.array(0.8)), D.Gamma(numpy.array(1.3), numpy.array(1.7))

    def integrand(x):
        x = numpy.array(x)
        return float(numpy.exp(p.log_prob(x)) * (p.log_prob(x) - q.log_prob(x)))

    expected, _ = integrate.quad(integrand, 0, numpy.inf)
    numpy.testing.assert_allclose(D.kl_divergence(p, q), expected, rtol=1e-8)


def test_bad_parameters_are_typed_errors():
    with pytest.raises(DTypeError, match="Gamma: expected k of a floating dtype"):
        D.Gamma(numpy.array([1, 2]), numpy.array([1.0, 2.0]))
    with pytest.raises(ShapeError, match="Gamma: expected parameter shapes that broadcast together"):
        D.Gamma(numpy.ones(2), numpy.ones(3))
