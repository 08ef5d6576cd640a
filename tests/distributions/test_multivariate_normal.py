"""Tests of the pure MultivariateNormal: numbers against scipy.stats, gradients, reparameterized
sampling, KL, errors."""

from __future__ import annotations

import numpy
import pytest
from scipy import integrate, stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError, InvalidInputError, ShapeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(10)
_A = rng.normal(size=(3, 4, 4))
COV = _A @ _A.transpose(0, 2, 1) + numpy.eye(4)
L = numpy.linalg.cholesky(COV)
LOC = rng.normal(size=(3, 4))
X = rng.normal(size=(5, 3, 4))
RTOL = 1e-12  # float64 solves of well-conditioned 4-by-4 systems, against scipy's


def _scipy(member, *args):
    return numpy.stack(
        [getattr(stats.multivariate_normal, member)(*args, LOC[i], COV[i]) for i in range(3)], -1
    )


def test_log_prob_entropy_and_moments_match_scipy():
    d = D.MultivariateNormal(LOC, L)
    expected = numpy.stack([stats.multivariate_normal.logpdf(X[:, i], LOC[i], COV[i]) for i in range(3)], -1)
    numpy.testing.assert_allclose(d.log_prob(X), expected, rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, _scipy("entropy"), rtol=RTOL)
    numpy.testing.assert_allclose(d.covariance, COV, rtol=RTOL)
    numpy.testing.assert_array_equal(d.mean, LOC)
    assert d.batch_shape == (3,) and d.event_shape == (4,) and d.support == "real"
    assert set(d.params) == {"loc", "scale_tril"}


def test_the_upper_triangle_of_scale_tril_is_not_read():
    noisy = L + numpy.triu(rng.normal(size=(3, 4, 4)), 1)
    clean, d = D.MultivariateNormal(LOC, L), D.MultivariateNormal(LOC, noisy)
    key = fnet.random.key(0)
    for value, expected in ((d.log_prob(X), clean.log_prob(X)), (d.covariance, clean.covariance)):
        numpy.testing.assert_allclose(value, expected, rtol=RTOL)
    numpy.testing.assert_allclose(d.sample(key, 3), clean.sample(key, 3), rtol=RTOL)


def test_a_batch_shape_broadcast_from_both_parameters():
    d = D.MultivariateNormal(numpy.zeros((2, 1, 4)), L)
    assert d.batch_shape == (2, 3) and d.log_prob(X[:, None]).shape == (5, 2, 3)


def test_gradients_to_order_2():
    check_grads(lambda loc, tril, x: D.MultivariateNormal(loc, tril).log_prob(x), (LOC, L, X[:2]))
    check_grads(lambda tril: D.MultivariateNormal(LOC, tril).entropy, (L,))
    check_grads(lambda tril: D.MultivariateNormal(LOC, tril).covariance, (L,))


def test_sampling_is_keyed_and_reparameterized():
    key = fnet.random.key(3)
    d = D.MultivariateNormal(LOC, L)
    numpy.testing.assert_array_equal(d.sample(key, 4), d.sample(key, 4))
    check_grads(lambda loc, tril: D.MultivariateNormal(loc, tril).sample(key, 2) ** 2, (LOC, L))
    g = fnet.grad(lambda loc: D.MultivariateNormal(loc, L).sample(key, 4).sum())(LOC)
    numpy.testing.assert_array_equal(g, numpy.full_like(LOC, 4.0))


def test_samples_have_the_distributions_moments():
    d = D.MultivariateNormal(LOC[0], L[0])
    s = d.sample(fnet.random.key(7), 200_000)
    # 200,000 draws: the standard error of each mean is below sqrt(max variance) / 447 < 0.02; 5 of
    # them fail a right sampler with probability below 1e-6. The covariance: within 3%, plus 0.05.
    numpy.testing.assert_allclose(s.mean(axis=0), LOC[0], atol=5 * numpy.sqrt(COV[0].diagonal().max()) / 447)
    numpy.testing.assert_allclose(numpy.cov(s.T), COV[0], rtol=0.03, atol=0.05)


def _kl_by_quadrature(m1, c1, m2, c2):
    p, q = stats.multivariate_normal(m1, c1), stats.multivariate_normal(m2, c2)
    f = lambda y, x: p.pdf([x, y]) * (p.logpdf([x, y]) - q.logpdf([x, y]))  # noqa: E731
    return integrate.dblquad(f, -12, 12, -12, 12, epsabs=1e-10)[0]


def test_kl_matches_quadrature_in_2d_and_has_gradients_to_order_2():
    cov1, cov2 = numpy.array([[1.0, 0.3], [0.3, 0.5]]), numpy.array([[0.8, -0.2], [-0.2, 1.2]])
    m1, m2 = numpy.array([0.1, -0.2]), numpy.array([0.4, 0.3])
    p = D.MultivariateNormal(m1, numpy.linalg.cholesky(cov1))
    q = D.MultivariateNormal(m2, numpy.linalg.cholesky(cov2))
    numpy.testing.assert_allclose(D.kl_divergence(p, q), _kl_by_quadrature(m1, cov1, m2, cov2), rtol=1e-7)
    check_grads(
        lambda a, b, c, e: D.kl_divergence(D.MultivariateNormal(a, b), D.MultivariateNormal(c, e)),
        (LOC, L, LOC[::-1], L[::-1]),
    )


def test_bad_parameters_raise_typed_errors():
    with pytest.raises(InvalidInputError, match="MultivariateNormal: expected scale_tril"):
        D.MultivariateNormal(LOC)
    with pytest.raises(
        ShapeError, match=r"expected loc of shape \(..., d\) and scale_tril of shape \(..., d, d\)"
    ):
        D.MultivariateNormal(LOC, L[..., :3])
    with pytest.raises(ShapeError, match="expected parameter shapes that broadcast together"):
        D.MultivariateNormal(LOC[:2], L)
    with pytest.raises(DTypeError, match="expected parameters of one dtype"):
        D.MultivariateNormal(LOC.astype(numpy.float32), L)
