"""Tests of the pure Gumbel: numbers against scipy.stats, gradients, sampling, KL."""

from __future__ import annotations

import numpy
import pytest
from scipy import integrate, stats

import fnet
from fnet import distributions as D
from fnet.errors import ShapeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(14)
LOC = rng.uniform(-1, 1, size=(3, 2))
SCALE = rng.uniform(0.5, 2.0, size=(3, 2))
X = rng.normal(size=(4, 3, 2)) * 2

# float64 formulas of a few roundings each, against scipy's: agreement to 1e-12 relative
RTOL = 1e-12


def test_log_prob_matches_scipy():
    expected = stats.gumbel_r.logpdf(X, LOC, SCALE)
    numpy.testing.assert_allclose(D.Gumbel(LOC, SCALE).log_prob(X), expected, rtol=RTOL)


def test_moments_and_entropy_match_scipy():
    d = D.Gumbel(LOC, SCALE)
    numpy.testing.assert_allclose(d.mean, stats.gumbel_r.mean(LOC, SCALE), rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, stats.gumbel_r.var(LOC, SCALE), rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, stats.gumbel_r.entropy(LOC, SCALE), rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "real"


@pytest.mark.parametrize("member", ["prob", "cdf", "icdf", "stddev", "mode"])
def test_what_chainers_gumbel_lacks_is_not_defined(member):
    d = D.Gumbel(LOC, SCALE)
    with pytest.raises(NotImplementedError, match=f"Gumbel.{member}"):
        value = getattr(d, member)
        value(X) if callable(value) else value


def test_gradients_to_second_order():
    check_grads(lambda loc, scale: D.Gumbel(loc, scale).log_prob(X), (LOC, SCALE), order=2)
    check_grads(lambda loc, scale: D.Gumbel(loc, scale).mean, (LOC, SCALE), order=2)
    check_grads(lambda scale: D.Gumbel(LOC, scale).entropy, (SCALE,), order=2)
    check_grads(
        lambda loc, scale: D.kl_divergence(D.Gumbel(loc, scale), D.Gumbel(loc[::-1], scale[::-1])),
        (LOC, SCALE),
        order=2,
    )


def test_samples_are_reparameterized_and_distributed_as_the_parameters_say():
    key = fnet.random.key(0)
    d = D.Gumbel(LOC, SCALE)
    samples = d.sample_n(key, 20000)
    assert samples.shape == (20000, 3, 2) and samples.dtype == numpy.float64
    # the standard error of the mean of 20000 draws is 1.28 scale/141: 5 of them is 0.046 scale
    numpy.testing.assert_allclose(samples.mean(axis=0), d.mean, atol=0.046 * SCALE.max())
    assert stats.kstest(samples[:, 0, 1], stats.gumbel_r(LOC[0, 1], SCALE[0, 1]).cdf).pvalue > 1e-3
    # d sample / d loc = 1 and d sample / d scale = (sample - loc) / scale, the same noise
    draw = lambda loc, scale: D.Gumbel(loc, scale).sample_n(key, 3).sum()  # noqa: E731
    g_loc, g_scale = fnet.grad(draw, argnums=(0, 1))(LOC, SCALE)
    numpy.testing.assert_allclose(g_loc, numpy.full_like(LOC, 3.0), rtol=RTOL)
    numpy.testing.assert_allclose(g_scale, ((d.sample_n(key, 3) - LOC) / SCALE).sum(axis=0), rtol=1e-12)


def test_float32_parameters_sample_float32_and_finite():
    d = D.Gumbel(LOC.astype(numpy.float32), SCALE.astype(numpy.float32))
    samples = d.sample(fnet.random.key(1), (5, 7))
    assert samples.shape == (5, 7, 3, 2) and samples.dtype == numpy.float32 and numpy.isfinite(samples).all()


def test_kl_matches_numerical_integration():
    p, q = D.Gumbel(numpy.array(0.3), numpy.array(0.8)), D.Gumbel(numpy.array(-0.5), numpy.array(1.7))

    def integrand(x):
        x = numpy.array(x)
        return float(numpy.exp(p.log_prob(x)) * (p.log_prob(x) - q.log_prob(x)))

    # p has no mass to speak of outside [-8, 40] (below 1e-20), where exp(-y) would overflow
    expected, _ = integrate.quad(integrand, -8, 40)
    numpy.testing.assert_allclose(D.kl_divergence(p, q), expected, rtol=1e-8)


def test_shapes_that_do_not_broadcast_are_a_shape_error():
    with pytest.raises(ShapeError, match="Gumbel: expected parameter shapes that broadcast together"):
        D.Gumbel(LOC, SCALE[:2])
