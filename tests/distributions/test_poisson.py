"""Tests of the pure Poisson: numbers against scipy.stats, gradients, sampling, KL."""

from __future__ import annotations

import numpy
import pytest
from scipy import stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(16)
LAM = rng.uniform(0.3, 8.0, size=(3, 2))
X = rng.randint(0, 10, size=(4, 3, 2))

# float64 formulas of a few roundings each (lgamma to near 1 ulp), against scipy's
RTOL = 1e-12


def test_log_prob_of_integer_or_float_counts_matches_scipy():
    d = D.Poisson(LAM)
    expected = stats.poisson.logpmf(X, LAM)
    numpy.testing.assert_allclose(d.log_prob(X.astype(numpy.int32)), expected, rtol=RTOL)
    numpy.testing.assert_allclose(d.log_prob(X.astype(numpy.float64)), expected, rtol=RTOL)
    d32 = D.Poisson(LAM.astype(numpy.float32))
    assert d32.log_prob(X.astype(numpy.int32)).dtype == numpy.float32  # read in lam's dtype


def test_moments_match_scipy():
    d = D.Poisson(LAM)
    numpy.testing.assert_allclose(d.mean, stats.poisson.mean(LAM), rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, stats.poisson.var(LAM), rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "non negative integer"


@pytest.mark.parametrize("member", ["prob", "stddev", "mode", "cdf", "entropy"])
def test_what_chainers_poisson_lacks_is_not_defined(member):
    d = D.Poisson(LAM)
    with pytest.raises(NotImplementedError, match=f"Poisson.{member}"):
        value = getattr(d, member)
        value(X) if callable(value) else value


def test_gradients_to_second_order():
    check_grads(lambda lam: D.Poisson(lam).log_prob(X), (LAM,), order=2)
    check_grads(lambda p, q: D.kl_divergence(D.Poisson(p), D.Poisson(q)), (LAM, LAM[::-1]), order=2)


def test_samples_are_counts_that_follow_the_mean():
    samples = D.Poisson(LAM).sample_n(fnet.random.key(4), 20000)
    assert samples.shape == (20000, 3, 2) and samples.dtype == numpy.float64
    assert (samples >= 0).all() and (samples == numpy.round(samples)).all()
    assert (abs(samples.mean(axis=0) - LAM) < 5 * numpy.sqrt(LAM / 20000)).all()  # 5 standard errors


def test_kl_matches_the_sum_over_counts():
    p, q = D.Poisson(numpy.array(2.5)), D.Poisson(numpy.array(4.0))
    counts = numpy.arange(200.0)
    expected = float((numpy.exp(p.log_prob(counts)) * (p.log_prob(counts) - q.log_prob(counts))).sum())
    numpy.testing.assert_allclose(D.kl_divergence(p, q), expected, rtol=1e-12)


def test_an_integer_mean_is_a_dtype_error():
    with pytest.raises(DTypeError, match="Poisson: expected lam of a floating dtype"):
        D.Poisson(numpy.array([1, 2]))
