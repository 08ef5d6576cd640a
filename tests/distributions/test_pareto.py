"""Tests of the pure Pareto: numbers against scipy.stats, gradients, sampling, KL."""

from __future__ import annotations

import numpy
import pytest
from scipy import integrate, stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(16)
SCALE = rng.uniform(0.5, 2.0, size=(3, 2))
ALPHA = rng.uniform(2.5, 5.0, size=(3, 2))
X = SCALE * (1 + rng.pareto(3.0, size=(4, 3, 2)))

# float64 formulas of a few roundings each, against scipy's: agreement to 1e-12 relative
RTOL = 1e-12


def test_log_prob_matches_scipy():
    expected = stats.pareto.logpdf(X, ALPHA, scale=SCALE)
    numpy.testing.assert_allclose(D.Pareto(SCALE, ALPHA).log_prob(X), expected, rtol=RTOL)


def test_below_the_scale_has_no_probability_and_no_nan_gradient():
    x = numpy.array([-1.0, 0.5, 2.0])
    logp = D.Pareto(numpy.ones(3), numpy.full(3, 2.0)).log_prob(x)
    assert (logp[:2] == -numpy.inf).all() and numpy.isfinite(logp[2])
    g = fnet.grad(lambda s, a: D.Pareto(s, a).log_prob(x)[2], argnums=(0, 1))(
        numpy.ones(3), numpy.full(3, 2.0)
    )
    assert all(numpy.isfinite(gi).all() for gi in g)


def test_moments_and_entropy_match_scipy():
    d = D.Pareto(SCALE, ALPHA)
    numpy.testing.assert_allclose(d.mean, stats.pareto.mean(ALPHA, scale=SCALE), rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, stats.pareto.var(ALPHA, scale=SCALE), rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, stats.pareto.entropy(ALPHA, scale=SCALE), rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "[scale, inf]"


def test_moments_that_diverge_are_inf_with_a_zero_gradient_there():
    alpha = numpy.array([0.5, 1.5, 3.0])
    d = D.Pareto(numpy.ones(3), alpha)
    assert d.mean.tolist()[:1] == [numpy.inf] and numpy.isfinite(d.mean[1:]).all()
    assert d.variance.tolist()[:2] == [numpy.inf, numpy.inf] and numpy.isfinite(d.variance[2])
    g = fnet.grad(lambda a: D.Pareto(numpy.ones(3), a).variance[2])(alpha)
    assert g[:2].tolist() == [0.0, 0.0] and numpy.isfinite(g[2])


@pytest.mark.parametrize("member", ["prob", "cdf", "icdf", "stddev", "mode"])
def test_what_chainers_pareto_lacks_is_not_defined(member):
    d = D.Pareto(SCALE, ALPHA)
    with pytest.raises(NotImplementedError, match=f"Pareto.{member}"):
        value = getattr(d, member)
        value(X) if callable(value) else value


def test_gradients_to_second_order():
    check_grads(lambda scale, alpha: D.Pareto(scale, alpha).log_prob(X), (SCALE, ALPHA), order=2)
    check_grads(lambda scale, alpha: D.Pareto(scale, alpha).mean, (SCALE, ALPHA), order=2)
    check_grads(lambda scale, alpha: D.Pareto(scale, alpha).variance, (SCALE, ALPHA), order=2)
    check_grads(lambda scale, alpha: D.Pareto(scale, alpha).entropy, (SCALE, ALPHA), order=2)
    # p's scales above q's: the KL is finite
    check_grads(
        lambda scale, alpha: D.kl_divergence(D.Pareto(scale + 2, alpha), D.Pareto(scale[::-1], alpha[::-1])),
        (SCALE, ALPHA),
        order=2,
    )


def test_samples_are_reparameterized_in_both_parameters_and_distributed_as_they_say():
    key = fnet.random.key(0)
    d = D.Pareto(SCALE, ALPHA)
    samples = d.sample_n(key, 20000)
    assert samples.shape == (20000, 3, 2) and samples.dtype == numpy.float64 and (samples >= SCALE).all()
    # the median is scale 2^(1/alpha); its standard error over 20000 draws is 1/(141 alpha) of
    # it, below 0.3% for alpha > 2.5: 1.5% is 5 of them
    numpy.testing.assert_allclose(numpy.median(samples, axis=0), SCALE * 2 ** (1 / ALPHA), rtol=0.015)
    assert stats.kstest(samples[:, 2, 0], stats.pareto(ALPHA[2, 0], scale=SCALE[2, 0]).cdf).pvalue > 1e-3
    # sample = scale * exp(-log(u) / alpha): d/d scale = sample / scale and
    # d/d alpha = -sample * log(sample / scale) / alpha, the same noise
    draw = lambda scale, alpha: D.Pareto(scale, alpha).sample_n(key, 3).sum()  # noqa: E731
    g_scale, g_alpha = fnet.grad(draw, argnums=(0, 1))(SCALE, ALPHA)
    three = d.sample_n(key, 3)
    numpy.testing.assert_allclose(g_scale, (three / SCALE).sum(axis=0), rtol=1e-12)
    numpy.testing.assert_allclose(
        g_alpha, (-three * numpy.log(three / SCALE) / ALPHA).sum(axis=0), rtol=1e-10
    )


def test_float32_parameters_sample_float32_and_finite():
    d = D.Pareto(SCALE.astype(numpy.float32), ALPHA.astype(numpy.float32))
    samples = d.sample(fnet.random.key(1), (5, 7))
    assert samples.shape == (5, 7, 3, 2) and samples.dtype == numpy.float32 and numpy.isfinite(samples).all()


def test_kl_matches_numerical_integration_and_is_inf_where_q_has_no_mass():
    p, q = D.Pareto(numpy.array(1.5), numpy.array(2.5)), D.Pareto(numpy.array(0.7), numpy.array(1.2))

    def integrand(x):
        x = numpy.array(x)
        return float(numpy.exp(p.log_prob(x)) * (p.log_prob(x) - q.log_prob(x)))

    expected, _ = integrate.quad(integrand, 1.5, numpy.inf)
    numpy.testing.assert_allclose(D.kl_divergence(p, q), expected, rtol=1e-8)
    assert D.kl_divergence(q, p) == numpy.inf


def test_an_integer_alpha_is_a_dtype_error():
    with pytest.raises(DTypeError, match="Pareto: expected alpha of a floating dtype"):
        D.Pareto(SCALE[0], numpy.array([1, 2]))
