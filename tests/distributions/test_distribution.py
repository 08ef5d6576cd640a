"""Tests of the Distribution base: undefined members, the KL registry, cross entropy, pytrees."""

from __future__ import annotations

import attrs
import numpy
import pytest

import fnet
from fnet import distributions as D
from fnet import tree
from fnet.distributions import constraints
from fnet.distributions.distribution import validate_args_field
from fnet.errors import DTypeError, InvalidInputError, NotDefinedError, ShapeError


@attrs.frozen
class _Point(D.Distribution):
    """A distribution that defines only its location, as a user's subclass might."""

    at: object

    @property
    def batch_shape(self):
        return numpy.shape(self.at)


@pytest.mark.parametrize(
    "member",
    ["event_shape", "params", "support", "mean", "mode", "stddev", "variance", "covariance", "entropy"],
)
def test_an_undefined_property_raises_a_typed_error_naming_it(member):
    with pytest.raises(NotDefinedError, match=rf"_Point\.{member}: _Point does not define {member}"):
        getattr(_Point(1.0), member)


@pytest.mark.parametrize(
    "method",
    [
        "log_prob",
        "prob",
        "cdf",
        "log_cdf",
        "icdf",
        "survival_function",
        "log_survival_function",
        "perplexity",
    ],
)
def test_an_undefined_method_raises_chainers_not_implemented_error(method):
    with pytest.raises(NotImplementedError, match=rf"_Point\.{method}"):
        getattr(_Point(1.0), method)(0.0)


def test_sample_without_sample_n_names_sample_n():
    with pytest.raises(NotDefinedError, match=r"_Point\.sample_n"):
        _Point(1.0).sample(fnet.random.key(0), (2, 3))


def test_sample_reshapes_sample_n_to_sample_batch_and_event_shape():
    d = D.Normal(numpy.zeros((4, 3)), numpy.ones((4, 3)))
    key = fnet.random.key(5)
    assert d.sample(key).shape == (4, 3)
    assert d.sample(key, 7).shape == (7, 4, 3)
    s = d.sample(key, (2, 5))
    assert s.shape == (2, 5, 4, 3)
    numpy.testing.assert_array_equal(s.reshape(10, 4, 3), d.sample_n(key, 10))


def test_register_kl_is_a_decorator_that_keeps_the_function_and_dispatches_on_base_types():
    @attrs.frozen
    class _Point2(_Point):
        pass

    @D.register_kl(_Point, _Point)
    def kl_points(p, q):
        return abs(p.at - q.at)

    assert kl_points(_Point(1.0), _Point(4.0)) == 3.0  # the decorator hands the function back
    assert D.kl_divergence(_Point2(2.0), _Point(7.0)) == 5.0  # a subclass finds its base's pair


def test_an_unregistered_pair_raises_a_typed_error_with_the_fix():
    with pytest.raises(
        NotDefinedError, match=r"no KL divergence is registered for \(Normal, Bernoulli\)"
    ) as info:
        D.kl_divergence(D.Normal(0.0, 1.0), D.Bernoulli(p=0.5))
    assert "@register_kl(Normal, Bernoulli)" in str(info.value)


def test_cross_entropy_is_entropy_plus_kl():
    p = D.Normal(numpy.float64([0.3, -1.0]), numpy.float64([0.5, 2.0]))
    q = D.Normal(numpy.float64([1.0, 0.0]), numpy.float64([1.5, 0.7]))
    # Cross entropy of two normals: log(s_q) + log(2 pi)/2 + (s_p^2 + (m_p - m_q)^2) / (2 s_q^2).
    expected = (
        numpy.log(q.scale)
        + 0.5 * numpy.log(2 * numpy.pi)
        + (p.scale**2 + (p.loc - q.loc) ** 2) / (2 * q.scale**2)
    )
    numpy.testing.assert_allclose(D.cross_entropy(p, q), expected, rtol=1e-14)  # a few roundings apart


def test_a_distribution_is_a_pytree_whose_leaves_are_its_given_parameters():
    d = D.Normal(numpy.float64([0.0, 1.0]), log_scale=numpy.float64([0.1, 0.2]))
    leaves, _ = tree.flatten(d)
    assert len(leaves) == 2  # loc and log_scale; the missing scale is None, a node without leaves
    b = D.Bernoulli(logit=numpy.float64([0.5]), binary_check=True)
    leaves, structure = tree.flatten(b)
    assert len(leaves) == 1 and tree.unflatten(structure, leaves).binary_check


def test_grad_of_a_function_of_a_distribution_is_a_distribution_of_gradients():
    x = numpy.float64([0.5, -0.25])
    d = D.Normal(numpy.float64([0.0, 1.0]), numpy.float64([1.0, 2.0]))
    g = fnet.grad(lambda dist: dist.log_prob(x).sum())(d)
    assert type(g) is D.Normal
    numpy.testing.assert_allclose(g.loc, (x - d.loc) / d.scale**2, rtol=1e-14)
    numpy.testing.assert_allclose(g.scale, ((x - d.loc) ** 2 / d.scale**2 - 1) / d.scale, rtol=1e-14)


@attrs.frozen
class _Shifted(D.Parametric):
    """A user's parametric distribution: one parameter, named in its constraints table."""

    shift: object
    validate_args: bool = validate_args_field()
    constraints = {"shift": constraints.positive, "x": constraints.real}


def test_parametric_reads_its_parameters_from_the_constraints_table():
    d = _Shifted(numpy.float32([[1.0], [2.0]]))
    assert list(d.params) == ["shift"] and d.params["shift"] is d.shift
    assert d.batch_shape == (2, 1) and d.event_shape == ()
    assert [leaf.shape for leaf in tree.flatten(d)[0]] == [(2, 1)]


def test_parametric_checks_its_parameters_when_built_and_names_its_class():
    with pytest.raises(DTypeError, match=r"^_Shifted: expected shift of a floating dtype"):
        _Shifted(numpy.int32([1]))
    with pytest.raises(InvalidInputError, match=r"^_Shifted: expected shift positive"):
        _Shifted(numpy.float64([1.0, -1.0]), validate_args=True)
    _Shifted(numpy.float64([1.0, -1.0]))  # unchecked without validate_args


_PARAMS = {
    D.Beta: ["a", "b"],
    D.Cauchy: ["loc", "scale"],
    D.Chisquare: ["k"],
    D.Exponential: ["lam"],
    D.Gamma: ["k", "theta"],
    D.Geometric: ["p"],
    D.Gumbel: ["loc", "scale"],
    D.Laplace: ["loc", "scale"],
    D.LogNormal: ["mu", "sigma"],
    D.Pareto: ["scale", "alpha"],
    D.Poisson: ["lam"],
}


@pytest.mark.parametrize("cls", list(_PARAMS), ids=lambda c: c.__name__)
def test_each_parametric_distribution_keeps_its_params_order_and_names_itself_in_errors(cls):
    names = _PARAMS[cls]
    d = cls(*(numpy.full((3, 1), 0.5) for _ in names), validate_args=True)
    assert list(d.params) == names and d.batch_shape == (3, 1) and d.event_shape == ()
    bad = [numpy.full((3,), 0.5)] * (len(names) - 1) + [numpy.full((2,), 0.5)]
    if len(names) > 1:
        with pytest.raises(ShapeError, match=rf"^{cls.__name__}: expected parameter shapes that broadcast"):
            cls(*bad)
    with pytest.raises(DTypeError, match=rf"^{cls.__name__}: expected {names[0]} of a floating dtype"):
        cls(*([numpy.int64([1])] + [numpy.float64([0.5])] * (len(names) - 1)))
