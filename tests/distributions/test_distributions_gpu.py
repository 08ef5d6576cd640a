"""Every distribution on the device under test (``--gpu-device``), compared with the CPU: the
log-probability of a value, the moments and entropy it defines, the KL divergence to a second
distribution of its type, and reparameterized samples, each with its first- and second-order
gradients in the parameters (``tests/_gpu.py``)."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import distributions as D
from fnet import ops
from fnet.errors import NotDefinedError

from .._gpu import compare_with_cpu, host, on_device

rng = numpy.random.RandomState(21)
SHAPE = (3, 2)


def positive(lo=0.5, hi=2.0, shape=SHAPE):
    return rng.uniform(lo, hi, shape)


def normal(shape=SHAPE):
    return rng.normal(size=shape)


def simplex(shape=(3, 4)):
    p = rng.uniform(0.2, 1.0, shape)
    return p / p.sum(axis=-1, keepdims=True)


def scale_tril(batch=3, n=2):
    lower = numpy.tril(rng.normal(size=(batch, n, n)) * 0.3)
    return lower + 1.5 * numpy.eye(n)


def independent_normal(loc, scale):
    return D.Independent(D.Normal(loc, scale), reinterpreted_batch_ndims=1)


def uniform(low, width):
    return D.Uniform(low=low, high=low + width)


UNIFORM_LOW, UNIFORM_WIDTH = normal(), positive()

# name: (build(*params), params of p, params of q, a value in the support, members to compare,
#        whether samples are reparameterized)
MOMENTS = ("mean", "variance", "entropy")
TABLE = {
    "Bernoulli": (
        lambda p: D.Bernoulli(p=p),
        (positive(0.2, 0.8),),
        (positive(0.2, 0.8),),
        rng.randint(0, 2, SHAPE).astype(float),
        MOMENTS,
        False,
    ),
    "Beta": (D.Beta, (positive(), positive()), (positive(), positive()), positive(0.1, 0.9), MOMENTS, False),
    "Categorical": (
        lambda p: D.Categorical(p=p),
        (simplex(),),
        (simplex(),),
        numpy.int64([0, 3, 1]),
        ("entropy",),
        False,
    ),
    "Cauchy": (D.Cauchy, (normal(), positive()), None, normal(), ("entropy",), True),
    "Chisquare": (D.Chisquare, (positive(1.0, 3.0),), None, positive(), MOMENTS, False),
    "Dirichlet": (
        D.Dirichlet,
        (positive(0.5, 2.0, (3, 4)),),
        (positive(0.5, 2.0, (3, 4)),),
        simplex(),
        MOMENTS,
        False,
    ),
    "Exponential": (
        D.Exponential,
        (positive(),),
        (positive(),),
        positive(),
        ("mean", "variance", "entropy"),
        True,
    ),
    "Gamma": (D.Gamma, (positive(), positive()), (positive(), positive()), positive(), MOMENTS, False),
    "Geometric": (
        D.Geometric,
        (positive(0.2, 0.8),),
        (positive(0.2, 0.8),),
        rng.randint(1, 5, SHAPE).astype(float),
        ("mean", "variance"),
        False,
    ),
    "Gumbel": (D.Gumbel, (normal(), positive()), (normal(), positive()), normal(), MOMENTS, True),
    "Independent": (
        independent_normal,
        (normal(), positive()),
        (normal(), positive()),
        normal(),
        MOMENTS,
        True,
    ),
    "Laplace": (D.Laplace, (normal(), positive()), (normal(), positive()), normal(), MOMENTS, True),
    "LogNormal": (D.LogNormal, (normal(), positive()), (normal(), positive()), positive(), MOMENTS, True),
    "MultivariateNormal": (
        lambda loc, tril: D.MultivariateNormal(loc, scale_tril=tril),
        (normal(), scale_tril()),
        (normal(), scale_tril()),
        normal(),
        ("entropy",),
        True,
    ),
    "Normal": (D.Normal, (normal(), positive()), (normal(), positive()), normal(), MOMENTS, True),
    "OneHotCategorical": (
        D.OneHotCategorical,
        (simplex(),),
        (simplex(),),
        numpy.eye(4)[[0, 3, 1]],
        ("mean", "variance"),
        False,
    ),
    "Pareto": (
        D.Pareto,
        (positive(), positive(2.5, 4.0)),
        (positive(0.1, 0.4), positive(2.5, 4.0)),
        positive(2.0, 3.0),
        MOMENTS,
        True,
    ),
    "Poisson": (
        D.Poisson,
        (positive(),),
        (positive(),),
        rng.randint(0, 5, SHAPE).astype(float),
        ("mean", "variance"),
        False,
    ),
    "Uniform": (
        uniform,
        (UNIFORM_LOW, UNIFORM_WIDTH),
        (normal() - 3, positive(6.0, 7.0)),
        UNIFORM_LOW + 0.5 * UNIFORM_WIDTH,
        MOMENTS,
        True,
    ),
}


def test_every_distribution_has_a_row():
    bases = {"Distribution", "Parametric"}
    names = {n for n in D.__all__ if isinstance(getattr(D, n), type) and n not in bases}
    assert names == set(TABLE)


def members(build, names, params, value, other):
    """The members compared: ``log_prob(value)``, the moments named, and the KL to the
    distribution of the parameters ``other``."""
    d = build(*params)
    out = {"log_prob": d.log_prob(value)}
    for name in names:
        out[name] = getattr(d, name)
    if other is not None:
        out["kl"] = D.kl_divergence(d, build(*other))
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(TABLE))
def test_members_and_their_gradients_match_the_cpu(name, gpu_device):
    build, params, other, value, names, _ = TABLE[name]
    compare_with_cpu(
        lambda *p, value, other: members(build, names, p, value, other),
        params,
        gpu_device,
        rtol=1e-8,  # special functions (lgamma, digamma, betaln) of CuPy against SciPy's: ~1e-14 apart
        value=value,
        other=other,
    )


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(n for n, row in TABLE.items() if row[5]))
def test_reparameterized_samples_and_their_gradients_match_the_cpu(name, gpu_device):
    build, params, *_ = TABLE[name]
    key = fnet.random.key(3)
    compare_with_cpu(lambda *p: build(*p).sample_n(key, 4), params, gpu_device, rtol=1e-8)


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(n for n, row in TABLE.items() if not row[5]))
def test_samples_are_drawn_on_the_device_and_match_the_cpu(name, gpu_device):
    build, params, *_ = TABLE[name]
    key = fnet.random.key(4)
    expected = build(*params).sample_n(key, 5)
    drawn = host(build(*on_device(params, gpu_device)).sample_n(key, 5), gpu_device)
    numpy.testing.assert_array_equal(drawn, expected)  # one host draw, sent: the same numbers


@pytest.mark.gpu
def test_a_distribution_without_a_member_says_so_on_the_device(gpu_device):
    d = D.Exponential(on_device(positive(), gpu_device))
    with pytest.raises(NotDefinedError, match="Exponential.prob"):
        d.prob(on_device(positive(), gpu_device))
    assert ops.sum(d.log_prob(on_device(positive(), gpu_device))).shape == ()
