"""Tests of the pure LogNormal: numbers against scipy.stats, gradients, sampling, KL."""

from __future__ import annotations

import numpy
import pytest
from scipy import integrate, stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(15)
MU = rng.uniform(-1, 1, size=(3, 2))
SIGMA = rng.uniform(0.3, 1.0, size=(3, 2))
X = rng.lognormal(size=(4, 3, 2))

# float64 formulas of a few roundings each, against scipy's: agreement to 1e-12 relative
RTOL = 1e-12


def scipy_dist(mu=MU, sigma=SIGMA):
    return stats.lognorm(s=sigma, scale=numpy.exp(mu))


def test_log_prob_matches_scipy():
    numpy.testing.assert_allclose(D.LogNormal(MU, SIGMA).log_prob(X), scipy_dist().logpdf(X), rtol=RTOL)


def test_outside_the_support_has_no_probability_and_no_nan_gradient():
    x = numpy.array([-1.0, 0.0, 2.0])
    d = D.LogNormal(numpy.zeros(3), numpy.ones(3))
    logp = d.log_prob(x)
    assert (logp[:2] == -numpy.inf).all() and numpy.isfinite(logp[2])
    g = fnet.grad(lambda mu: D.LogNormal(mu, numpy.ones(3)).log_prob(x)[2])(numpy.zeros(3))
    assert numpy.isfinite(g).all()


def test_moments_and_entropy_match_scipy():
    d = D.LogNormal(MU, SIGMA)
    numpy.testing.assert_allclose(d.mean, scipy_dist().mean(), rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, scipy_dist().var(), rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, scipy_dist().entropy(), rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "positive"


@pytest.mark.parametrize("member", ["prob", "cdf", "icdf", "stddev", "mode"])
def test_what_chainers_log_normal_lacks_is_not_defined(member):
    d = D.LogNormal(MU, SIGMA)
    with pytest.raises(NotImplementedError, match=f"LogNormal.{member}"):
        value = getattr(d, member)
        value(X) if callable(value) else value


def test_gradients_to_second_order():
    check_grads(lambda mu, sigma: D.LogNormal(mu, sigma).log_prob(X), (MU, SIGMA), order=2)
    check_grads(lambda mu, sigma: D.LogNormal(mu, sigma).mean, (MU, SIGMA), order=2)
    check_grads(lambda mu, sigma: D.LogNormal(mu, sigma).variance, (MU, SIGMA), order=2)
    check_grads(lambda mu, sigma: D.LogNormal(mu, sigma).entropy, (MU, SIGMA), order=2)
    check_grads(
        lambda mu, sigma: D.kl_divergence(D.LogNormal(mu, sigma), D.LogNormal(mu[::-1], sigma[::-1])),
        (MU, SIGMA),
        order=2,
    )


def test_samples_are_reparameterized_and_distributed_as_the_parameters_say():
    key = fnet.random.key(0)
    d = D.LogNormal(MU, SIGMA)
    samples = d.sample_n(key, 20000)
    assert samples.shape == (20000, 3, 2) and samples.dtype == numpy.float64 and (samples > 0).all()
    # the log is normal: its mean's standard error over 20000 draws is sigma/141, 5 of them 0.036
    numpy.testing.assert_allclose(numpy.log(samples).mean(axis=0), MU, atol=0.036 * SIGMA.max())
    assert stats.kstest(samples[:, 1, 1], scipy_dist(MU[1, 1], SIGMA[1, 1]).cdf).pvalue > 1e-3
    # d sample / d mu = sample and d sample / d sigma = sample * eps, the same noise
    draw = lambda mu, sigma: D.LogNormal(mu, sigma).sample_n(key, 3).sum()  # noqa: E731
    g_mu, g_sigma = fnet.grad(draw, argnums=(0, 1))(MU, SIGMA)
    three = d.sample_n(key, 3)
    numpy.testing.assert_allclose(g_mu, three.sum(axis=0), rtol=1e-12)
    numpy.testing.assert_allclose(g_sigma, (three * (numpy.log(three) - MU) / SIGMA).sum(axis=0), rtol=1e-10)


def test_float32_parameters_sample_float32():
    d = D.LogNormal(MU.astype(numpy.float32), SIGMA.astype(numpy.float32))
    samples = d.sample(fnet.random.key(1), (5, 7))
    assert samples.shape == (5, 7, 3, 2) and samples.dtype == numpy.float32


def test_kl_matches_numerical_integration():
    p, q = D.LogNormal(numpy.array(0.3), numpy.array(0.8)), D.LogNormal(numpy.array(-0.5), numpy.array(1.7))

    def integrand(x):
        x = numpy.array(x)
        return float(numpy.exp(p.log_prob(x)) * (p.log_prob(x) - q.log_prob(x)))

    expected, _ = integrate.quad(integrand, 0, numpy.inf)
    numpy.testing.assert_allclose(D.kl_divergence(p, q), expected, rtol=1e-8)


def test_mixed_dtypes_are_a_dtype_error():
    with pytest.raises(DTypeError, match="LogNormal: expected parameters of one dtype"):
        D.LogNormal(MU, SIGMA.astype(numpy.float32))
