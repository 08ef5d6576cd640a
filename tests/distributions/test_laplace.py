"""Tests of the pure Laplace: numbers against scipy.stats, gradients, sampling, KL."""

from __future__ import annotations

import numpy
import pytest
from scipy import integrate, stats

import fnet
from fnet import distributions as D
from fnet.distributions.laplace import standard_cdf, standard_icdf
from fnet.errors import DTypeError, ShapeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(12)
LOC = rng.uniform(-1, 1, size=(3, 2))
SCALE = rng.uniform(0.5, 2.0, size=(3, 2))
X = rng.normal(size=(4, 3, 2)) * 2

# float64 formulas of a few roundings each, against scipy's: agreement to 1e-12 relative
RTOL = 1e-12


@pytest.mark.parametrize("member, scipy_member", [("log_prob", "logpdf"), ("prob", "pdf"), ("cdf", "cdf")])
def test_functions_of_x_match_scipy(member, scipy_member):
    expected = getattr(stats.laplace, scipy_member)(X, LOC, SCALE)
    numpy.testing.assert_allclose(getattr(D.Laplace(LOC, SCALE), member)(X), expected, rtol=RTOL)


def test_icdf_inverts_the_cdf_and_matches_scipy():
    q = stats.laplace.cdf(X, LOC, SCALE)
    numpy.testing.assert_allclose(D.Laplace(LOC, SCALE).icdf(q), stats.laplace.ppf(q, LOC, SCALE), rtol=RTOL)
    numpy.testing.assert_allclose(D.Laplace(LOC, SCALE).icdf(q), X, rtol=1e-12)


def test_the_standard_cdf_keeps_the_lower_tail_and_its_inverse_the_smallest_quantile():
    # 1/2 + expm1(z)/2 rounds to 0 in float32 from z = -17 on; exp(z)/2 does not
    tail = standard_cdf(numpy.array([-30.0], numpy.float32))
    numpy.testing.assert_allclose(tail, [0.5 * numpy.exp(-30.0)], rtol=1e-6)
    # 1 - 2q rounds a q of 1e-38 to 1 (and log1p(-1) is -inf); log(2q) does not
    assert numpy.isfinite(standard_icdf(numpy.array([1e-38], numpy.float32))).all()


def test_the_standard_cdf_has_the_density_as_its_derivative_at_zero_too():
    z = numpy.array([-2.0, 0.0, 1.5])
    g = fnet.grad(lambda z: standard_cdf(z).sum())(z)
    numpy.testing.assert_allclose(g, stats.laplace.pdf(z), rtol=RTOL)


@pytest.mark.parametrize("member", ["log_cdf", "survival_function", "log_survival_function", "perplexity"])
def test_what_chainers_laplace_lacks_is_not_defined(member):
    d = D.Laplace(LOC, SCALE)
    with pytest.raises(NotImplementedError, match=f"Laplace.{member}"):
        getattr(d, member)(X)


def test_moments_and_entropy_match_scipy():
    d = D.Laplace(LOC, SCALE)
    numpy.testing.assert_allclose(d.mean, stats.laplace.mean(LOC, SCALE), rtol=RTOL)
    numpy.testing.assert_allclose(d.mode, LOC, rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, stats.laplace.var(LOC, SCALE), rtol=RTOL)
    numpy.testing.assert_allclose(d.stddev, stats.laplace.std(LOC, SCALE), rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, stats.laplace.entropy(LOC, SCALE), rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "real"


def test_gradients_to_second_order():
    # |x - loc| has no second derivative at x = loc: X is nowhere near LOC (checked)
    assert numpy.abs(X - LOC).min() > 1e-3
    check_grads(lambda loc, scale: D.Laplace(loc, scale).log_prob(X), (LOC, SCALE), order=2)
    check_grads(lambda loc, scale: D.Laplace(loc, scale).prob(X), (LOC, SCALE), order=2)
    check_grads(lambda loc, scale: D.Laplace(loc, scale).cdf(X), (LOC, SCALE), order=2)
    check_grads(
        lambda loc, scale: D.Laplace(loc, scale).icdf(numpy.array([0.1, 0.7])[:, None, None]), (LOC, SCALE)
    )
    check_grads(lambda scale: D.Laplace(LOC, scale).entropy, (SCALE,), order=2)
    check_grads(
        lambda loc, scale: D.kl_divergence(D.Laplace(loc, scale), D.Laplace(loc[::-1], scale[::-1])),
        (LOC, SCALE),
        order=2,
    )


def test_samples_are_reparameterized_and_distributed_as_the_parameters_say():
    key = fnet.random.key(0)
    d = D.Laplace(LOC, SCALE)
    samples = d.sample_n(key, 20000)
    assert samples.shape == (20000, 3, 2) and samples.dtype == numpy.float64
    # the standard error of the median of 20000 draws is scale/141: 5 of them is 0.036 scale
    numpy.testing.assert_allclose(numpy.median(samples, axis=0), LOC, atol=0.036 * SCALE.max())
    # Kolmogorov-Smirnov against scipy's cdf, one batch element
    assert stats.kstest(samples[:, 1, 0], stats.laplace(LOC[1, 0], SCALE[1, 0]).cdf).pvalue > 1e-3
    # d sample / d loc = 1 and d sample / d scale = (sample - loc) / scale, the same noise
    g_loc, g_scale = fnet.grad(
        lambda loc, scale: D.Laplace(loc, scale).sample_n(key, 3).sum(), argnums=(0, 1)
    )(LOC, SCALE)
    numpy.testing.assert_allclose(g_loc, numpy.full_like(LOC, 3.0), rtol=RTOL)
    numpy.testing.assert_allclose(g_scale, ((d.sample_n(key, 3) - LOC) / SCALE).sum(axis=0), rtol=1e-12)


def test_float32_parameters_sample_float32_and_finite():
    d = D.Laplace(LOC.astype(numpy.float32), SCALE.astype(numpy.float32))
    samples = d.sample(fnet.random.key(1), (5, 7))
    assert samples.shape == (5, 7, 3, 2) and samples.dtype == numpy.float32 and numpy.isfinite(samples).all()


def test_kl_matches_numerical_integration():
    p, q = D.Laplace(numpy.array(0.3), numpy.array(0.8)), D.Laplace(numpy.array(-0.5), numpy.array(1.7))

    def integrand(x):
        x = numpy.array(x)
        return float(numpy.exp(p.log_prob(x)) * (p.log_prob(x) - q.log_prob(x)))

    expected = sum(
        integrate.quad(integrand, a, b)[0] for a, b in [(-numpy.inf, -0.5), (-0.5, 0.3), (0.3, numpy.inf)]
    )
    numpy.testing.assert_allclose(D.kl_divergence(p, q), expected, rtol=1e-8)


def test_bad_parameters_are_typed_errors():
    with pytest.raises(DTypeError, match="Laplace: expected loc of a floating dtype"):
        D.Laplace(numpy.array([1, 2]), SCALE[0])
    with pytest.raises(ShapeError, match="Laplace: expected parameter shapes that broadcast together"):
        D.Laplace(LOC, SCALE[:2])
