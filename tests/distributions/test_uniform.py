"""Tests of the pure Uniform: numbers against scipy.stats, both parameterizations, gradients,
sampling, KL, errors."""

from __future__ import annotations

import numpy
import pytest
from scipy import stats

import fnet
from fnet import distributions as D
from fnet.testing import check_grads

rng = numpy.random.RandomState(17)
LOW = rng.uniform(-2, 0, size=(3, 2))
WIDTH = rng.uniform(0.5, 3.0, size=(3, 2))
HIGH = LOW + WIDTH
X = rng.uniform(-3, 3, size=(4, 3, 2))

# float64 formulas of a few roundings each, against scipy's: agreement to 1e-12 relative
RTOL = 1e-12
BOTH = [{"low": LOW, "high": HIGH}, {"loc": LOW, "scale": WIDTH}]


@pytest.mark.parametrize("kwargs", BOTH, ids=["low_high", "loc_scale"])
@pytest.mark.parametrize("member, scipy_member", [("log_prob", "logpdf"), ("cdf", "cdf")])
def test_functions_of_x_match_scipy(kwargs, member, scipy_member):
    expected = getattr(stats.uniform, scipy_member)(X, LOW, WIDTH)
    numpy.testing.assert_allclose(getattr(D.Uniform(**kwargs), member)(X), expected, rtol=RTOL)


@pytest.mark.parametrize("kwargs", BOTH, ids=["low_high", "loc_scale"])
def test_moments_entropy_and_the_other_pair_match_scipy(kwargs):
    d = D.Uniform(**kwargs)
    numpy.testing.assert_allclose(
        d.icdf(stats.uniform.cdf(X, LOW, WIDTH)), numpy.clip(X, LOW, HIGH), rtol=RTOL
    )
    numpy.testing.assert_allclose(d.mean, stats.uniform.mean(LOW, WIDTH), rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, stats.uniform.var(LOW, WIDTH), rtol=RTOL)
    numpy.testing.assert_allclose(d.stddev, stats.uniform.std(LOW, WIDTH), rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, stats.uniform.entropy(LOW, WIDTH), rtol=RTOL)
    for name, value in {"low": LOW, "high": HIGH, "loc": LOW, "scale": WIDTH}.items():
        numpy.testing.assert_allclose(getattr(d, name), value, rtol=RTOL)
    assert set(d.params) == set(kwargs) and d.batch_shape == (3, 2) and d.support == "[low, high]"


def test_the_bounds_belong_to_the_support():
    d = D.Uniform(low=numpy.array(1.0), high=numpy.array(3.0))
    logp = d.log_prob(numpy.array([1.0, 3.0, 0.999, 3.001]))
    numpy.testing.assert_allclose(logp, [-numpy.log(2)] * 2 + [-numpy.inf] * 2, rtol=RTOL)


@pytest.mark.parametrize("member", ["prob", "mode", "log_cdf", "survival_function"])
def test_what_chainers_uniform_lacks_is_not_defined(member):
    d = D.Uniform(low=LOW, high=HIGH)
    with pytest.raises(NotImplementedError, match=f"Uniform.{member}"):
        value = getattr(d, member)
        value(X) if callable(value) else value


def test_gradients_to_second_order():
    inside = LOW + WIDTH * rng.uniform(0.05, 0.95, size=(4, 3, 2))
    check_grads(lambda low, high: D.Uniform(low=low, high=high).log_prob(inside), (LOW, HIGH), order=2)
    check_grads(lambda loc, scale: D.Uniform(loc=loc, scale=scale).cdf(inside), (LOW, WIDTH), order=2)
    check_grads(lambda low, high: D.Uniform(low=low, high=high).stddev, (LOW, HIGH), order=2)
    check_grads(lambda low, high: D.Uniform(low=low, high=high).entropy, (LOW, HIGH), order=2)
    # q's interval holds p's: the KL is finite
    check_grads(
        lambda low, high: D.kl_divergence(
            D.Uniform(low=low, high=high), D.Uniform(low=low - 1, high=high + 2)
        ),
        (LOW, HIGH),
        order=2,
    )


@pytest.mark.parametrize("kwargs", BOTH, ids=["low_high", "loc_scale"])
def test_samples_are_reparameterized_and_inside_the_bounds(kwargs):
    key = fnet.random.key(0)
    d = D.Uniform(**kwargs)
    samples = d.sample_n(key, 20000)
    assert samples.shape == (20000, 3, 2) and samples.dtype == numpy.float64
    assert ((samples > LOW) & (samples < HIGH)).all()
    assert stats.kstest(samples[:, 1, 0], stats.uniform(LOW[1, 0], WIDTH[1, 0]).cdf).pvalue > 1e-3
    # sample = low + u (high - low): d/d low = 1 - u and d/d high = u, the same noise
    names = list(kwargs)
    draw = lambda a, b: D.Uniform(**{names[0]: a, names[1]: b}).sample_n(key, 3).sum()  # noqa: E731
    g_a, g_b = fnet.grad(draw, argnums=(0, 1))(*kwargs.values())
    u = ((d.sample_n(key, 3) - LOW) / WIDTH).sum(axis=0)
    expected = (3 - u, u) if names[0] == "low" else (numpy.full_like(LOW, 3.0), u)
    numpy.testing.assert_allclose(g_a, expected[0], rtol=1e-10)
    numpy.testing.assert_allclose(g_b, expected[1], rtol=1e-10)


def test_kl_is_the_log_ratio_of_the_widths_or_inf_where_q_misses_part_of_p():
    p = D.Uniform(low=numpy.array([0.0, 0.0, -1.0]), high=numpy.array([1.0, 1.0, 1.0]))
    q = D.Uniform(loc=numpy.array([-1.0, 0.5, -1.0]), scale=numpy.array([4.0, 4.0, 2.0]))
    # KL = integral of p log(p/q) = log(q's width / p's width) where p's interval is inside q's
    numpy.testing.assert_allclose(D.kl_divergence(p, q), [numpy.log(4.0), numpy.inf, 0.0], rtol=RTOL)


@pytest.mark.parametrize(
    "kwargs",
    [{}, {"low": LOW}, {"low": LOW, "scale": WIDTH}, {"low": LOW, "high": HIGH, "loc": LOW, "scale": WIDTH}],
    ids=["none", "low_only", "mixed", "both_pairs"],
)
def test_anything_but_one_pair_is_an_error_that_says_which_pairs(kwargs):
    with pytest.raises(ValueError, match="Uniform: expected either low and high or loc and scale"):
        D.Uniform(**kwargs)
