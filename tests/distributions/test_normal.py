"""Tests of the pure Normal: numbers against scipy.stats, gradients, sampling, KL, errors."""

from __future__ import annotations

import numpy
import pytest
from scipy import integrate, stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError, InvalidInputError, ShapeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(7)
LOC = rng.normal(size=(3, 2))
SCALE = rng.uniform(0.5, 2.0, size=(3, 2))
X = rng.normal(size=(4, 3, 2)) * 2

# float64 formulas of a few roundings each, against scipy's own: agreement to 1e-12 relative
# (1e-10 where scipy's tail formulas differ from ndtr of the standardized value).
RTOL = 1e-12


@pytest.mark.parametrize("by", ["scale", "log_scale"])
@pytest.mark.parametrize(
    "member, scipy_member, rtol",
    [
        ("log_prob", "logpdf", RTOL),
        ("prob", "pdf", RTOL),
        ("cdf", "cdf", 1e-10),
        ("log_cdf", "logcdf", 1e-10),
        ("survival_function", "sf", 1e-10),
        ("log_survival_function", "logsf", 1e-10),
    ],
)
def test_functions_of_x_match_scipy(by, member, scipy_member, rtol):
    d = D.Normal(LOC, SCALE) if by == "scale" else D.Normal(LOC, log_scale=numpy.log(SCALE))
    expected = getattr(stats.norm, scipy_member)(X, LOC, SCALE)
    numpy.testing.assert_allclose(getattr(d, member)(X), expected, rtol=rtol)


def test_icdf_matches_scipy_ppf():
    q = rng.uniform(1e-5, 1 - 1e-5, size=(4, 3, 2))
    numpy.testing.assert_allclose(D.Normal(LOC, SCALE).icdf(q), stats.norm.ppf(q, LOC, SCALE), rtol=1e-10)


def test_moments_and_entropy_match_scipy():
    d = D.Normal(LOC, SCALE)
    numpy.testing.assert_array_equal(d.mean, LOC)
    numpy.testing.assert_array_equal(d.mode, LOC)
    numpy.testing.assert_allclose(d.stddev, stats.norm.std(LOC, SCALE), rtol=RTOL)
    numpy.testing.assert_allclose(d.variance, stats.norm.var(LOC, SCALE), rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, stats.norm.entropy(LOC, SCALE), rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "real"
    assert set(d.params) == {"loc", "scale"}


def test_float32_stays_float32():
    d = D.Normal(LOC.astype(numpy.float32), SCALE.astype(numpy.float32))
    x = X.astype(numpy.float32)
    for value in (d.log_prob(x), d.cdf(x), d.entropy, d.sample(fnet.random.key(0), 2)):
        assert value.dtype == numpy.float32
    expected = stats.norm.logpdf(x, d.loc, d.scale)
    numpy.testing.assert_allclose(d.log_prob(x), expected, rtol=1e-5)  # float32: a few eps


def test_a_broadcast_batch_shape():
    assert D.Normal(numpy.zeros((3, 1)), numpy.ones(4)).batch_shape == (3, 4)


@pytest.mark.parametrize(
    "member", ["log_prob", "prob", "cdf", "log_cdf", "survival_function", "log_survival_function"]
)
def test_gradients_of_functions_of_x_to_order_2(member):
    check_grads(lambda loc, scale, x: getattr(D.Normal(loc, scale), member)(x), (LOC, SCALE, X[0]), order=2)


def test_gradients_through_log_scale_entropy_and_icdf_to_order_2():
    q = rng.uniform(0.05, 0.95, size=(3, 2))
    check_grads(lambda loc, ls, x: D.Normal(loc, log_scale=ls).log_prob(x), (LOC, numpy.log(SCALE), X[0]))
    check_grads(lambda ls: D.Normal(LOC, log_scale=ls).entropy, (numpy.log(SCALE),))
    check_grads(lambda loc, scale, q: D.Normal(loc, scale).icdf(q), (LOC, SCALE, q))


def test_sampling_is_keyed_and_reparameterized():
    d = D.Normal(LOC, SCALE)
    key = fnet.random.key(3)
    a, b = d.sample(key, 5), d.sample(key, 5)
    numpy.testing.assert_array_equal(a, b)
    assert not numpy.array_equal(a, d.sample(fnet.random.key(4), 5))
    eps = (a - LOC) / SCALE  # the standard normal draws behind the samples
    g_loc, g_scale = fnet.grad(lambda loc, scale: D.Normal(loc, scale).sample(key, 5).sum(), argnums=(0, 1))(
        LOC, SCALE
    )
    numpy.testing.assert_allclose(g_loc, numpy.full_like(LOC, 5.0), rtol=0)
    numpy.testing.assert_allclose(g_scale, eps.sum(axis=0), rtol=1e-12)
    check_grads(lambda loc, scale: D.Normal(loc, scale).sample(key, 3) ** 2, (LOC, SCALE), order=2)


def test_samples_have_the_distributions_moments():
    d = D.Normal(numpy.float64([0.0, 3.0]), numpy.float64([1.0, 0.5]))
    s = d.sample(fnet.random.key(11), 200_000)
    # 200,000 draws: the standard error of the mean is scale / 447; 5 of them is a bound that a
    # correct sampler fails with probability below 1e-6.
    numpy.testing.assert_allclose(s.mean(axis=0), d.loc, atol=5 * 1.0 / 447)
    numpy.testing.assert_allclose(s.std(axis=0), d.scale, rtol=0.01)


def _kl_by_quadrature(m1, s1, m2, s2):
    p, q = stats.norm(m1, s1), stats.norm(m2, s2)
    return integrate.quad(lambda x: p.pdf(x) * (p.logpdf(x) - q.logpdf(x)), -30, 30, epsabs=1e-13)[0]


def test_kl_matches_quadrature_and_has_gradients_to_order_2():
    p, q = D.Normal(LOC, SCALE), D.Normal(LOC[::-1], SCALE[::-1])
    expected = numpy.vectorize(_kl_by_quadrature)(LOC, SCALE, LOC[::-1], SCALE[::-1])
    numpy.testing.assert_allclose(D.kl_divergence(p, q), expected, rtol=1e-8, atol=1e-12)  # quadrature
    check_grads(
        lambda a, b, c, e: D.kl_divergence(D.Normal(a, b), D.Normal(c, log_scale=e)),
        (LOC, SCALE, LOC + 1, SCALE),
    )


def test_scale_and_log_scale_are_one_or_the_other():
    with pytest.raises(InvalidInputError, match=r"Normal: expected either scale or log_scale \(not both\)"):
        D.Normal(LOC, SCALE, log_scale=SCALE)
    with pytest.raises(InvalidInputError, match="give exactly one of scale= and log_scale="):
        D.Normal(LOC)


def test_bad_parameters_raise_typed_errors_naming_the_parameter():
    with pytest.raises(
        ShapeError,
        match=r"Normal: expected parameter shapes that broadcast together(.|\n)*loc: float64\[3, 2\]",
    ):
        D.Normal(LOC, numpy.ones(4))
    with pytest.raises(DTypeError, match=r"Normal: expected loc of a floating dtype(.|\n)*hint: cast it"):
        D.Normal(numpy.zeros(3, numpy.int32), numpy.ones(3))
    with pytest.raises(DTypeError, match=r"Normal: expected parameters of one dtype"):
        D.Normal(numpy.zeros(3, numpy.float32), numpy.ones(3))
