"""Tests of the pure Cauchy: numbers against scipy.stats, gradients, sampling, errors."""

from __future__ import annotations

import numpy
import pytest
from scipy import stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(13)
LOC = rng.uniform(-1, 1, size=(3, 2))
SCALE = rng.uniform(0.5, 2.0, size=(3, 2))
X = rng.normal(size=(4, 3, 2)) * 3

# float64 formulas of a few roundings each, against scipy's: agreement to 1e-12 relative
RTOL = 1e-12


@pytest.mark.parametrize("member, scipy_member", [("log_prob", "logpdf"), ("cdf", "cdf")])
def test_functions_of_x_match_scipy(member, scipy_member):
    expected = getattr(stats.cauchy, scipy_member)(X, LOC, SCALE)
    numpy.testing.assert_allclose(getattr(D.Cauchy(LOC, SCALE), member)(X), expected, rtol=RTOL)


def test_icdf_inverts_the_cdf_and_matches_scipy():
    q = stats.cauchy.cdf(X, LOC, SCALE)
    numpy.testing.assert_allclose(D.Cauchy(LOC, SCALE).icdf(q), stats.cauchy.ppf(q, LOC, SCALE), rtol=1e-10)


def test_entropy_matches_scipy():
    d = D.Cauchy(LOC, SCALE)
    numpy.testing.assert_allclose(d.entropy, stats.cauchy.entropy(LOC, SCALE), rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "real"


@pytest.mark.parametrize("member", ["mean", "variance"])
def test_the_undefined_moments_are_nan_with_a_warning_as_in_chainer(member):
    with pytest.warns(RuntimeWarning, match=f"Cauchy.{member}: the {member} of a Cauchy"):
        value = getattr(D.Cauchy(LOC, SCALE[0]), member)
    assert value.shape == (3, 2) and numpy.isnan(value).all()


@pytest.mark.parametrize("member", ["prob", "stddev", "mode", "log_cdf", "survival_function"])
def test_what_chainers_cauchy_lacks_is_not_defined(member):
    d = D.Cauchy(LOC, SCALE)
    with pytest.raises(NotImplementedError, match=f"Cauchy.{member}"):
        value = getattr(d, member)
        value(X) if callable(value) else value


def test_gradients_to_second_order():
    check_grads(lambda loc, scale: D.Cauchy(loc, scale).log_prob(X), (LOC, SCALE), order=2)
    check_grads(lambda loc, scale: D.Cauchy(loc, scale).cdf(X), (LOC, SCALE), order=2)
    q = numpy.array([0.1, 0.7])[:, None, None]
    check_grads(lambda loc, scale: D.Cauchy(loc, scale).icdf(q), (LOC, SCALE), order=2)
    check_grads(lambda scale: D.Cauchy(LOC, scale).entropy, (SCALE,), order=2)


def test_samples_are_reparameterized_and_distributed_as_the_parameters_say():
    key = fnet.random.key(0)
    d = D.Cauchy(LOC, SCALE)
    samples = d.sample_n(key, 20000)
    assert samples.shape == (20000, 3, 2) and samples.dtype == numpy.float64
    # the standard error of the median of 20000 draws is (pi/2) scale/141: 5 of them is 0.056 scale
    numpy.testing.assert_allclose(numpy.median(samples, axis=0), LOC, atol=0.056 * SCALE.max())
    assert stats.kstest(samples[:, 2, 1], stats.cauchy(LOC[2, 1], SCALE[2, 1]).cdf).pvalue > 1e-3
    # d sample / d loc = 1 and d sample / d scale = (sample - loc) / scale, the same noise
    draw = lambda loc, scale: D.Cauchy(loc, scale).sample_n(key, 3).sum()  # noqa: E731
    g_loc, g_scale = fnet.grad(draw, argnums=(0, 1))(LOC, SCALE)
    numpy.testing.assert_allclose(g_loc, numpy.full_like(LOC, 3.0), rtol=RTOL)
    numpy.testing.assert_allclose(g_scale, ((d.sample_n(key, 3) - LOC) / SCALE).sum(axis=0), rtol=1e-12)


def test_float32_parameters_sample_float32_and_finite():
    d = D.Cauchy(LOC.astype(numpy.float32), SCALE.astype(numpy.float32))
    samples = d.sample(fnet.random.key(1), (5, 7))
    assert samples.shape == (5, 7, 3, 2) and samples.dtype == numpy.float32 and numpy.isfinite(samples).all()


def test_an_integer_scale_is_a_dtype_error():
    with pytest.raises(DTypeError, match="Cauchy: expected scale of a floating dtype"):
        D.Cauchy(LOC[0], numpy.array([1, 2]))
