"""Tests of the pure Chisquare: numbers against scipy.stats, gradients, sampling."""

from __future__ import annotations

import numpy
import pytest
from scipy import stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(13)
K = rng.uniform(0.5, 8.0, size=(3, 2))
X = rng.chisquare(3.0, size=(4, 3, 2))

# float64 formulas of a few roundings each (lgamma, digamma to near 1 ulp), against scipy's
RTOL = 1e-12


def test_log_prob_matches_scipy_and_is_minus_inf_below_zero():
    d = D.Chisquare(K)
    numpy.testing.assert_allclose(d.log_prob(X), stats.chi2.logpdf(X, K), rtol=RTOL)
    assert (d.log_prob(-X) == -numpy.inf).all()


def test_moments_and_entropy_match_scipy():
    d = D.Chisquare(K)
    numpy.testing.assert_allclose(d.mean, stats.chi2.mean(K), rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, stats.chi2.var(K), rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, stats.chi2.entropy(K), rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "positive"
    assert d.params == {"k": K} and D.Chisquare(K.astype(numpy.float32)).mean.dtype == numpy.float32


@pytest.mark.parametrize("member", ["prob", "stddev", "mode", "cdf"])
def test_what_chainers_chisquare_lacks_is_not_defined(member):
    d = D.Chisquare(K)
    with pytest.raises(NotImplementedError, match=f"Chisquare.{member}"):
        value = getattr(d, member)
        value(X) if callable(value) else value


def test_gradients_to_second_order():
    check_grads(lambda k: D.Chisquare(k).log_prob(X), (K,), order=2)
    check_grads(lambda k: D.Chisquare(k).entropy, (K,), order=2)


def test_samples_follow_the_moments():
    samples = D.Chisquare(K).sample_n(fnet.random.key(1), 20000)
    assert samples.shape == (20000, 3, 2) and samples.dtype == numpy.float64 and (samples > 0).all()
    # 5 standard errors of the mean: 5 * sqrt(2 k) / 141 < 10% of k for k >= 0.5
    numpy.testing.assert_allclose(samples.mean(axis=0), K, rtol=0.1)


def test_an_integer_k_is_a_dtype_error():
    with pytest.raises(DTypeError, match="Chisquare: expected k of a floating dtype"):
        D.Chisquare(numpy.array([1, 2]))
