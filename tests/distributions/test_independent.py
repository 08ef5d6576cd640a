"""Tests of the pure Independent: shapes, sums and products over the reinterpreted axes,
delegated members, block-diagonal covariance, gradients, KL, errors."""

from __future__ import annotations

import numpy
import pytest
from scipy import stats

import fnet
from fnet import distributions as D
from fnet.errors import InvalidInputError, NotDefinedError
from fnet.testing import check_grads

rng = numpy.random.RandomState(11)
LOC = rng.normal(size=(2, 3, 4))
SCALE = rng.uniform(0.5, 2.0, size=(2, 3, 4))
X = rng.normal(size=(5, 2, 3, 4))
RTOL = 1e-12  # float64 sums of a few terms, against scipy's


@pytest.mark.parametrize("ndims, batch, event", [(None, (2,), (3, 4)), (0, (2, 3, 4), ()), (2, (2,), (3, 4))])
def test_shapes_by_reinterpreted_batch_ndims(ndims, batch, event):
    d = D.Independent(D.Normal(LOC, SCALE), reinterpreted_batch_ndims=ndims)
    assert d.batch_shape == batch and d.event_shape == event
    assert d.log_prob(X).shape == (5, *batch)


def test_log_densities_and_entropies_add_and_densities_multiply_over_the_event_axes():
    d = D.Independent(D.Normal(LOC, SCALE), 1)
    numpy.testing.assert_allclose(d.log_prob(X), stats.norm.logpdf(X, LOC, SCALE).sum(-1), rtol=RTOL)
    numpy.testing.assert_allclose(d.prob(X), stats.norm.pdf(X, LOC, SCALE).prod(-1), rtol=RTOL)
    numpy.testing.assert_allclose(d.cdf(X), stats.norm.cdf(X, LOC, SCALE).prod(-1), rtol=1e-10)
    numpy.testing.assert_allclose(d.log_cdf(X), stats.norm.logcdf(X, LOC, SCALE).sum(-1), rtol=1e-10)
    numpy.testing.assert_allclose(d.entropy, stats.norm.entropy(LOC, SCALE).sum(-1), rtol=RTOL)
    numpy.testing.assert_array_equal(d.mean, LOC)  # delegated, unreduced, as Chainer's
    assert d.support == "real" and set(d.params) == {"loc", "scale"}


def test_the_covariance_is_block_diagonal():
    tril = numpy.linalg.cholesky(numpy.eye(2) + 0.5)
    inner = D.MultivariateNormal(numpy.zeros((4, 3, 2)), numpy.broadcast_to(tril, (4, 3, 2, 2)))
    cov = D.Independent(inner, 1).covariance
    assert cov.shape == (4, 6, 6)
    numpy.testing.assert_allclose(cov[0], numpy.kron(numpy.eye(3), numpy.eye(2) + 0.5), rtol=1e-15)


def test_sampling_is_the_inner_distributions():
    key = fnet.random.key(1)
    inner = D.Normal(LOC, SCALE)
    numpy.testing.assert_array_equal(D.Independent(inner).sample(key, 3), inner.sample(key, 3))


def test_gradients_to_order_2():
    check_grads(lambda loc, scale: D.Independent(D.Normal(loc, scale)).log_prob(X[:2]), (LOC, SCALE))
    check_grads(lambda scale: D.Independent(D.Normal(LOC, scale), 2).entropy, (SCALE,))


def test_kl_is_the_inner_kl_summed():
    p, q = D.Normal(LOC, SCALE), D.Normal(LOC[::-1], SCALE[::-1])
    expected = D.kl_divergence(p, q).sum(axis=(-2, -1))
    numpy.testing.assert_allclose(D.kl_divergence(D.Independent(p), D.Independent(q)), expected, rtol=1e-14)
    with pytest.raises(InvalidInputError, match="expected Independent distributions of one event shape"):
        D.kl_divergence(D.Independent(p, 1), D.Independent(q, 2))


def test_icdf_and_too_many_axes_raise_typed_errors():
    with pytest.raises(NotDefinedError, match="not invertible") as info:
        D.Independent(D.Normal(LOC, SCALE)).icdf(X)
    assert isinstance(info.value, RuntimeError)  # Chainer raises RuntimeError
    with pytest.raises(InvalidInputError, match=r"expected reinterpreted_batch_ndims in \[0, 3\]"):
        D.Independent(D.Normal(LOC, SCALE), 4)
