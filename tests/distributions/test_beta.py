"""Tests of the pure Beta: numbers against scipy.stats, gradients, sampling, KL."""

from __future__ import annotations

import numpy
import pytest
from scipy import integrate, stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError, ShapeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(14)
A = rng.uniform(0.5, 4.0, size=(3, 2))
B = rng.uniform(0.5, 4.0, size=(3, 2))
X = rng.uniform(0.05, 0.95, size=(4, 3, 2))

# float64 formulas of a few roundings each (betaln, digamma to near 1 ulp), against scipy's
RTOL = 1e-12


def test_log_prob_matches_scipy_and_is_minus_inf_outside_the_unit_interval():
    d = D.Beta(A, B)
    numpy.testing.assert_allclose(d.log_prob(X), stats.beta.logpdf(X, A, B), rtol=RTOL)
    assert (d.log_prob(X + 1) == -numpy.inf).all() and (d.log_prob(-X) == -numpy.inf).all()


def test_moments_and_entropy_match_scipy():
    d = D.Beta(A, B)
    numpy.testing.assert_allclose(d.mean, stats.beta.mean(A, B), rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, stats.beta.var(A, B), rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, stats.beta.entropy(A, B), rtol=1e-10)  # scipy's: near 0
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "[0, 1]"


@pytest.mark.parametrize("member", ["prob", "stddev", "mode", "cdf"])
def test_what_chainers_beta_lacks_is_not_defined(member):
    d = D.Beta(A, B)
    with pytest.raises(NotImplementedError, match=f"Beta.{member}"):
        value = getattr(d, member)
        value(X) if callable(value) else value


def test_gradients_to_second_order():
    check_grads(lambda a, b: D.Beta(a, b).log_prob(X), (A, B), order=2)
    check_grads(lambda a, b: D.Beta(a, b).entropy, (A, B), order=2)
    check_grads(lambda a, b: D.Beta(a, b).variance, (A, B), order=2)
    check_grads(
        lambda a1, b1, a2, b2: D.kl_divergence(D.Beta(a1, b1), D.Beta(a2, b2)),
        (A, B, A[::-1], B[::-1]),
        order=2,
    )


def test_samples_follow_the_mean():
    samples = D.Beta(A, B).sample_n(fnet.random.key(2), 20000)
    assert samples.shape == (20000, 3, 2) and samples.dtype == numpy.float64
    assert (samples >= 0).all() and (samples <= 1).all()
    numpy.testing.assert_allclose(samples.mean(axis=0), A / (A + B), atol=0.02)  # sd <= 0.5: 5 s.e.


def test_kl_matches_numerical_integration():
    p, q = D.Beta(numpy.array(2.5), numpy.array(1.5)), D.Beta(numpy.array(1.3), numpy.array(3.0))

    def integrand(x):
        x = numpy.array(x)
        return float(numpy.exp(p.log_prob(x)) * (p.log_prob(x) - q.log_prob(x)))

    expected, _ = integrate.quad(integrand, 0, 1)
    numpy.testing.assert_allclose(D.kl_divergence(p, q), expected, rtol=1e-8)


def test_bad_parameters_are_typed_errors():
    with pytest.raises(DTypeError, match="Beta: expected parameters of one dtype"):
        D.Beta(numpy.ones(2, numpy.float32), numpy.ones(2))
    with pytest.raises(ShapeError, match="Beta: expected parameter shapes that broadcast together"):
        D.Beta(numpy.ones(2), numpy.ones(3))
