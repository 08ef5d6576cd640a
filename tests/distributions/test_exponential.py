"""Tests of the pure Exponential: numbers against scipy.stats, gradients, sampling, KL."""

from __future__ import annotations

import numpy
import pytest
from scipy import integrate, stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(11)
LAM = rng.uniform(0.5, 2.0, size=(3, 2))
X = rng.exponential(size=(4, 3, 2))

# float64 formulas of a few roundings each, against scipy's: agreement to 1e-12 relative
RTOL = 1e-12


@pytest.mark.parametrize("member, scipy_member", [("log_prob", "logpdf"), ("cdf", "cdf")])
def test_functions_of_x_match_scipy(member, scipy_member):
    expected = getattr(stats.expon, scipy_member)(X, scale=1 / LAM)
    numpy.testing.assert_allclose(getattr(D.Exponential(LAM), member)(X), expected, rtol=RTOL)


def test_icdf_inverts_the_cdf_and_matches_scipy():
    q = stats.expon.cdf(X, scale=1 / LAM)
    numpy.testing.assert_allclose(D.Exponential(LAM).icdf(q), stats.expon.ppf(q, scale=1 / LAM), rtol=RTOL)


def test_below_zero_has_no_probability():
    d = D.Exponential(numpy.array([1.0, 2.0]))
    assert (d.log_prob(numpy.array([-0.5, -1e-9])) == -numpy.inf).all()


@pytest.mark.parametrize("member", ["prob", "stddev", "mode", "log_cdf"])
def test_what_chainers_exponential_lacks_is_not_defined(member):
    d = D.Exponential(LAM)
    with pytest.raises(NotImplementedError, match=f"Exponential.{member}"):
        value = getattr(d, member)
        value(X) if callable(value) else value


def test_moments_and_entropy_match_scipy():
    d = D.Exponential(LAM)
    numpy.testing.assert_allclose(d.mean, stats.expon.mean(scale=1 / LAM), rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, stats.expon.var(scale=1 / LAM), rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, stats.expon.entropy(scale=1 / LAM), rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "positive"


def test_gradients_to_second_order():
    check_grads(lambda lam: D.Exponential(lam).log_prob(X), (LAM,), order=2)
    check_grads(lambda lam: D.Exponential(lam).cdf(X), (LAM,), order=2)
    check_grads(lambda lam: D.Exponential(lam).entropy, (LAM,), order=2)
    check_grads(
        lambda lam, mu: D.kl_divergence(D.Exponential(lam), D.Exponential(mu)), (LAM, LAM[::-1]), order=2
    )


def test_samples_are_reparameterized_and_distributed_as_the_rate_says():
    key = fnet.random.key(0)
    samples = D.Exponential(LAM).sample_n(key, 20000)
    assert samples.shape == (20000, 3, 2) and samples.dtype == numpy.float64 and (samples >= 0).all()
    # mean 1/lam: the standard error of 20000 draws is (1/lam)/141, so 5 of them is 3.5%
    numpy.testing.assert_allclose(samples.mean(axis=0), 1 / LAM, rtol=0.05)
    # d sample / d lam = -sample / lam, the same noise
    g = fnet.grad(lambda lam: D.Exponential(lam).sample_n(key, 3).sum())(LAM)
    numpy.testing.assert_allclose(g, -D.Exponential(LAM).sample_n(key, 3).sum(axis=0) / LAM, rtol=1e-12)


def test_kl_matches_numerical_integration():
    p, q = D.Exponential(numpy.array(0.7)), D.Exponential(numpy.array(1.9))

    def integrand(x):
        x = numpy.array(x)
        return float(numpy.exp(p.log_prob(x)) * (p.log_prob(x) - q.log_prob(x)))

    expected, _ = integrate.quad(integrand, 0, numpy.inf)
    numpy.testing.assert_allclose(D.kl_divergence(p, q), expected, rtol=1e-8)


def test_an_integer_rate_is_a_dtype_error():
    with pytest.raises(DTypeError, match="Exponential: expected lam of a floating dtype"):
        D.Exponential(numpy.array([1, 2]))
