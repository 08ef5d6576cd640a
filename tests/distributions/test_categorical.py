"""Tests of the pure Categorical: numbers against scipy.stats, gradients, sampling, KL, errors."""

from __future__ import annotations

import numpy
import pytest
from scipy import special, stats

import fnet
from fnet import distributions as D
from fnet.errors import DTypeError, InvalidInputError, ShapeError
from fnet.testing import check_grads

rng = numpy.random.RandomState(5)
LOGIT = rng.normal(size=(3, 2, 4))
P = special.softmax(LOGIT, axis=-1)
X = rng.randint(0, 4, size=(5, 3, 2))
RTOL = 1e-12  # float64 formulas of a few roundings each, against scipy's


@pytest.mark.parametrize("by", ["p", "logit"])
def test_log_prob_and_entropy_match_scipy(by):
    d = D.Categorical(p=P) if by == "p" else D.Categorical(logit=LOGIT + 3.0)  # logit up to a constant
    expected = stats.multinomial.logpmf(numpy.eye(4)[X], 1, P)
    numpy.testing.assert_allclose(d.log_prob(X), expected, rtol=RTOL)
    numpy.testing.assert_allclose(d.entropy, -(P * numpy.log(P)).sum(-1), rtol=RTOL)
    numpy.testing.assert_allclose(d.p, P, rtol=RTOL)
    assert d.batch_shape == (3, 2) and d.event_shape == () and set(d.params) == {"p"}


def test_a_category_of_probability_0_adds_nothing_to_the_entropy():
    d = D.Categorical(p=numpy.float32([[0.0, 0.5, 0.5], [1.0, 0.0, 0.0]]))
    numpy.testing.assert_allclose(d.entropy, [numpy.log(2), 0.0], rtol=1e-6)  # float32: a few eps
    assert d.log_prob(numpy.int32([0, 0])).tolist() == [-numpy.inf, 0.0]


def test_gradients_to_order_2():
    check_grads(lambda t: D.Categorical(logit=t).log_prob(X), (LOGIT,))
    check_grads(lambda p: D.Categorical(p=p).log_prob(X), (P,))
    check_grads(lambda t: D.Categorical(logit=t).entropy, (LOGIT,))
    check_grads(lambda a, b: D.kl_divergence(D.Categorical(logit=a), D.Categorical(p=b)), (LOGIT, P[::-1]))


def test_kl_matches_the_sum_over_categories():
    q = P[::-1]
    expected = (P * numpy.log(P / q)).sum(-1)
    numpy.testing.assert_allclose(
        D.kl_divergence(D.Categorical(p=P), D.Categorical(p=q)), expected, rtol=1e-11
    )


def test_samples_are_keyed_and_have_the_frequencies_p():
    p = numpy.float32([[0.2, 0.0, 0.8], [0.5, 0.25, 0.25]])
    d = D.Categorical(p=p)
    key = fnet.random.key(4)
    s = d.sample(key, 100_000)
    assert s.dtype == numpy.int64 and s.shape == (100_000, 2)
    numpy.testing.assert_array_equal(s, d.sample(key, 100_000))
    assert not (s[:, 0] == 1).any()  # probability 0: never drawn
    freq = (s[..., None] == numpy.arange(3)).mean(axis=0)
    # The standard error of a frequency is at most 0.5 / 316; 5 of them fail a right sampler < 1e-6.
    numpy.testing.assert_allclose(freq, p, atol=5 * 0.5 / 316)


def test_bad_parameters_raise_typed_errors():
    with pytest.raises(InvalidInputError, match=r"Categorical: expected either p or logit \(not both\)"):
        D.Categorical(p=P, logit=LOGIT)
    with pytest.raises(DTypeError, match="Categorical: expected p of a floating dtype"):
        D.Categorical(p=numpy.ones((2, 3), numpy.int32))
    with pytest.raises(ShapeError, match="Categorical: expected parameters with a last axis of categories"):
        D.Categorical(p=numpy.float32(1.0))
