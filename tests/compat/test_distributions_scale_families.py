"""Tests of chainer.distributions' Laplace, Cauchy, Gumbel, Uniform, LogNormal and Pareto in
compat: Chainer's constructors and module paths, Variables out that are the pure numbers,
gradients to the parameter Variables, and Chainer's private helpers that its tests use."""

from __future__ import annotations

import importlib

import numpy
import pytest

import fnet
import fnet.compat as chainer
from fnet import distributions as pure
from fnet.compat import distributions as D
from fnet.testing import assert_ulp_close

rng = numpy.random.RandomState(5)
LOC = rng.normal(size=(3, 2)).astype(numpy.float32)
SCALE = rng.uniform(0.5, 2.0, size=(3, 2)).astype(numpy.float32)
X = rng.normal(size=(3, 2)).astype(numpy.float32)


def test_laplace_takes_chainers_constructor_and_wraps_the_pure_one():
    from fnet.compat.distributions.laplace import Laplace

    loc = chainer.Variable(LOC.copy())
    d = Laplace(loc, SCALE)
    assert Laplace is D.Laplace and d.loc is loc and d.batch_shape == (3, 2) and d.support == "real"
    expected = pure.Laplace(LOC, SCALE)
    for member in ("mean", "mode", "stddev", "variance", "entropy"):
        numpy.testing.assert_array_equal(getattr(d, member).array, getattr(expected, member))
    for member in ("log_prob", "prob", "cdf"):
        numpy.testing.assert_array_equal(getattr(d, member)(X).array, getattr(expected, member)(X))
    chainer.functions.sum(d.log_prob(X)).backward()
    g = fnet.grad(lambda a: pure.Laplace(a, SCALE).log_prob(X).sum())(LOC)
    numpy.testing.assert_array_equal(loc.grad, g)
    numpy.random.seed(0)
    assert d.sample((4,)).shape == (4, 3, 2)
    kl = chainer.kl_divergence(d, D.Laplace(X, SCALE))
    numpy.testing.assert_array_equal(kl.array, pure.kl_divergence(expected, pure.Laplace(X, SCALE)))


def test_chainers_private_laplace_cdf_and_icdf_are_the_standard_ones_and_differentiable():
    from fnet.compat.distributions.laplace import _laplace_cdf, _laplace_icdf

    x = chainer.Variable(X.astype(numpy.float64))
    y = _laplace_cdf(x)
    numpy.testing.assert_allclose(_laplace_icdf(y).array, x.array, rtol=1e-12)
    chainer.functions.sum(y).backward()
    numpy.testing.assert_allclose(x.grad, 0.5 * numpy.exp(-numpy.abs(x.array)), rtol=1e-12)  # the density


# (Chainer class, pure class, constructor arguments, members, members that take x)
MOMENTS = ["mean", "variance", "entropy"]
CASES = {
    "Cauchy": (D.Cauchy, pure.Cauchy, {"loc": LOC, "scale": SCALE}, ["entropy"], ["log_prob", "cdf"]),
    "Gumbel": (D.Gumbel, pure.Gumbel, {"loc": LOC, "scale": SCALE}, MOMENTS, []),
    "LogNormal": (D.LogNormal, pure.LogNormal, {"mu": LOC, "sigma": SCALE}, MOMENTS, []),
    "Uniform": (D.Uniform, pure.Uniform, {"low": LOC, "high": LOC + SCALE}, MOMENTS, ["log_prob", "cdf"]),
    "Pareto": (D.Pareto, pure.Pareto, {"scale": SCALE, "alpha": SCALE + 2}, MOMENTS, []),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_takes_chainers_constructor_and_gives_the_pure_numbers_as_variables(name):
    chainer_type, pure_type, kwargs, members, functions = CASES[name]
    module = importlib.import_module(f"fnet.compat.distributions.{_module_of(name)}")
    assert getattr(module, name) is chainer_type
    first = next(iter(kwargs))
    given = chainer.Variable(kwargs[first].copy())
    d = chainer_type(**{**kwargs, first: given})
    expected = pure_type(**kwargs)
    assert getattr(d, first) is given and d.batch_shape == expected.batch_shape
    assert d.support == expected.support and set(d.params) == set(expected.params)
    for member in members:
        value = getattr(d, member)
        assert isinstance(value, chainer.Variable), member
        assert_ulp_close(value.array, getattr(expected, member), max_ulp=2)
    # the same formulas on the same tape; NumPy 1.26's vectorized loops can round a copied
    # (differently aligned) array 1 ulp apart, so not bit for bit
    x = _inside(expected)
    for member in functions:
        assert_ulp_close(getattr(d, member)(x).array, getattr(expected, member)(x), max_ulp=2)
    chainer.functions.sum(d.log_prob(x)).backward()
    g = fnet.grad(lambda a: pure_type(**{**kwargs, first: a}).log_prob(x).sum())(kwargs[first])
    assert_ulp_close(given.grad, g, max_ulp=2)
    numpy.random.seed(0)
    sample = d.sample((4,))
    assert isinstance(sample, chainer.Variable) and sample.shape == (4, 3, 2)


def _module_of(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def _inside(d):
    """Points of the support of ``d``: its samples."""
    return numpy.asarray(d.sample_n(fnet.random.key(3), 1)[0])


def test_uniform_takes_loc_and_scale_too_and_chainers_keyword_errors():
    loc, scale = chainer.Variable(LOC.copy()), chainer.Variable(SCALE.copy())
    d = D.Uniform(loc=loc, scale=scale)
    assert d.loc is loc and d.scale is scale and set(d.params) == {"loc", "scale"}
    numpy.testing.assert_array_equal(d.high.array, LOC + SCALE)
    with pytest.raises(ValueError, match="expected either low and high or loc and scale"):
        D.Uniform(low=LOC)
    with pytest.raises(TypeError, match="hihg"):
        D.Uniform(low=LOC, hihg=SCALE)
