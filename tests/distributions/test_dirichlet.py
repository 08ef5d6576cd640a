"""Tests of the pure Dirichlet: numbers against scipy.stats, gradients, sampling, KL."""

from __future__ import annotations

import numpy
import pytest
from scipy import integrate, stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError, ShapeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(15)
ALPHA = rng.uniform(0.5, 4.0, size=(2, 3))
X = rng.dirichlet([1.0, 2.0, 3.0], size=(4, 2))

# float64 formulas of a few roundings each (lgamma, digamma to near 1 ulp), against scipy's
RTOL = 1e-12


def each(fn):
    """``fn(alpha_row)`` for each distribution of the batch, as an array."""
    return numpy.array([fn(row) for row in ALPHA])


def test_log_prob_matches_scipy():
    expected = numpy.array([[stats.dirichlet.logpdf(x, row) for x, row in zip(xs, ALPHA)] for xs in X])
    numpy.testing.assert_allclose(D.Dirichlet(ALPHA).log_prob(X), expected, rtol=RTOL)


def test_moments_and_entropy_match_scipy():
    d = D.Dirichlet(ALPHA)
    numpy.testing.assert_allclose(d.mean, each(stats.dirichlet.mean), rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, each(stats.dirichlet.var), rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, each(stats.dirichlet.entropy), rtol=1e-10)  # scipy's: near 0
    assert d.batch_shape == (2,) and d.event_shape == (3,) and d.support == "[0, 1]"
    assert D.Dirichlet(ALPHA[0]).batch_shape == () and D.Dirichlet(ALPHA[0]).entropy.shape == ()


@pytest.mark.parametrize("member", ["prob", "stddev", "mode", "cdf"])
def test_what_chainers_dirichlet_lacks_is_not_defined(member):
    d = D.Dirichlet(ALPHA)
    with pytest.raises(NotImplementedError, match=f"Dirichlet.{member}"):
        value = getattr(d, member)
        value(X) if callable(value) else value


def test_gradients_to_second_order():
    check_grads(lambda alpha: D.Dirichlet(alpha).log_prob(X), (ALPHA,), order=2)
    check_grads(lambda alpha: D.Dirichlet(alpha).entropy, (ALPHA,), order=2)
    check_grads(lambda alpha: D.Dirichlet(alpha).variance, (ALPHA,), order=2)
    check_grads(lambda p, q: D.kl_divergence(D.Dirichlet(p), D.Dirichlet(q)), (ALPHA, ALPHA[::-1]), order=2)


def test_samples_lie_on_the_simplex_and_follow_the_mean():
    samples = D.Dirichlet(ALPHA).sample(fnet.random.key(3), (20000,))
    assert samples.shape == (20000, 2, 3) and samples.dtype == numpy.float64
    numpy.testing.assert_allclose(samples.sum(axis=-1), 1.0, rtol=1e-12)
    expected = ALPHA / ALPHA.sum(axis=-1, keepdims=True)
    numpy.testing.assert_allclose(samples.mean(axis=0), expected, atol=0.02)  # sd <= 0.5: 5 s.e.


def test_kl_matches_numerical_integration():
    # two components: a point (x, 1 - x) of the simplex, whose density on x is the Dirichlet's
    p, q = D.Dirichlet(numpy.array([2.5, 1.5])), D.Dirichlet(numpy.array([1.3, 3.0]))

    def integrand(x):
        point = numpy.array([x, 1 - x])
        return float(numpy.exp(p.log_prob(point)) * (p.log_prob(point) - q.log_prob(point)))

    expected, _ = integrate.quad(integrand, 0, 1)
    numpy.testing.assert_allclose(D.kl_divergence(p, q), expected, rtol=1e-8)


def test_bad_parameters_are_typed_errors():
    with pytest.raises(ShapeError, match="Dirichlet: expected alpha with at least one axis"):
        D.Dirichlet(numpy.array(1.0))
    with pytest.raises(DTypeError, match="Dirichlet: expected alpha of a floating dtype"):
        D.Dirichlet(numpy.array([1, 2]))
