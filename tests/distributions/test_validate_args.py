"""Tests of ``validate_args``, table-driven over every distribution: valid inputs give the same
numbers as without it; each broken constraint raises an ``InvalidInputError`` that names the
member, the argument, the constraint, the violations and a fix; it works inside ``fnet.grad``;
it is a static option, not a pytree leaf."""

from __future__ import annotations

import re

import attrs
import numpy
import pytest

import fnet
from fnet import distributions as D
from fnet import tree
from fnet.errors import InvalidInputError, NotDefinedError

NAN, INF = numpy.nan, numpy.inf
METHODS = ("log_prob", "prob", "cdf", "log_cdf", "survival_function", "log_survival_function", "perplexity")
TRIL = [[[1.0, 0.0], [0.5, 2.0]], [[1.0, 0.0], [0.0, 1.0]]]
LOC23, SCALE23 = numpy.zeros((2, 3)), numpy.full((2, 3), 0.5)


def _independent(**kwargs):
    return D.Independent(**kwargs, reinterpreted_batch_ndims=1)


@attrs.frozen
class Row:
    """One distribution: how to build it, valid parameters and a value in its support, one broken
    parameter per constraint (name, parameters, the constraint's name) and a value outside."""

    make: object
    params: dict
    x: object
    bad_params: list
    bad_x: object
    x_constraint: str


ROWS = {
    "Bernoulli": Row(
        D.Bernoulli,
        {"p": [0.3, 0.8]},
        [0.0, 1.0],
        [("p", {"p": [0.3, 1.5]}, "in [0, 1]"), ("logit", {"logit": [NAN, 0.0]}, "not NaN")],
        [0.0, 0.5],
        "0 or 1",
    ),
    "Beta": Row(
        D.Beta,
        {"a": [0.5, 2.0], "b": [1.5, 3.0]},
        [0.2, 0.9],
        [
            ("a", {"a": [0.5, -1.0], "b": [1.0, 1.0]}, "positive"),
            ("b", {"a": [1.0, 1.0], "b": [0.0, 1.0]}, "positive"),
        ],
        [0.2, 1.2],
        "in [0, 1]",
    ),
    "Categorical": Row(
        D.Categorical,
        {"p": [[0.2, 0.8], [0.5, 0.5]]},
        numpy.array([1, 0]),
        [
            ("p", {"p": [[0.2, 0.7], [0.5, 0.5]]}, "a probability vector"),
            ("logit", {"logit": [[NAN, 0.0], [0.0, 0.0]]}, "not NaN"),
        ],
        numpy.array([2, 0]),
        "an integer in [0, 1]",
    ),
    "Cauchy": Row(
        D.Cauchy,
        {"loc": [0.0, 1.0], "scale": [1.0, 2.0]},
        [0.5, -3.0],
        [
            ("loc", {"loc": [INF, 0.0], "scale": [1.0, 1.0]}, "real (finite)"),
            ("scale", {"loc": [0.0, 0.0], "scale": [1.0, -2.0]}, "positive"),
        ],
        [NAN, 0.0],
        "real (finite)",
    ),
    "Chisquare": Row(
        D.Chisquare,
        {"k": [1.0, 3.0]},
        [0.5, 2.0],
        [("k", {"k": [0.0, 1.0]}, "positive")],
        [-1.0, 2.0],
        "nonnegative",
    ),
    "Dirichlet": Row(
        D.Dirichlet,
        {"alpha": [[1.0, 2.0, 3.0], [0.5, 0.5, 0.5]]},
        [[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]],
        [("alpha", {"alpha": [[1.0, -2.0, 3.0], [0.5, 0.5, 0.5]]}, "positive")],
        [[0.2, 0.3, 0.5], [0.1, 0.2, 0.8]],
        "a probability vector",
    ),
    "Exponential": Row(
        D.Exponential,
        {"lam": [1.0, 2.0]},
        [0.5, 3.0],
        [("lam", {"lam": [0.0, 1.0]}, "positive")],
        [-0.5, 1.0],
        "nonnegative",
    ),
    "Gamma": Row(
        D.Gamma,
        {"k": [2.0, 3.0], "theta": [1.0, 0.5]},
        [1.0, 2.0],
        [
            ("k", {"k": [-2.0, 3.0], "theta": [1.0, 1.0]}, "positive"),
            ("theta", {"k": [2.0, 3.0], "theta": [1.0, 0.0]}, "positive"),
        ],
        [-1.0, 2.0],
        "nonnegative",
    ),
    "Geometric": Row(
        D.Geometric,
        {"p": [0.3, 1.0]},
        [1.0, 4.0],
        [("p", {"p": [0.0, 0.5]}, "in (0, 1]")],
        [1.5, 2.0],
        "a positive integer",
    ),
    "Gumbel": Row(
        D.Gumbel,
        {"loc": [0.0, 1.0], "scale": [1.0, 2.0]},
        [0.5, -3.0],
        [
            ("loc", {"loc": [NAN, 0.0], "scale": [1.0, 1.0]}, "real (finite)"),
            ("scale", {"loc": [0.0, 0.0], "scale": [-1.0, 1.0]}, "positive"),
        ],
        [INF, 0.0],
        "real (finite)",
    ),
    "Independent": Row(
        _independent,
        {"distribution": D.Normal(LOC23, SCALE23)},
        numpy.ones((2, 3)),
        [("distribution.scale", {"distribution": D.Normal(LOC23, -SCALE23)}, "positive")],
        numpy.array([[0.0, 0.0, 0.0], [0.0, NAN, 0.0]]),
        "real (finite)",
    ),
    "Laplace": Row(
        D.Laplace,
        {"loc": [0.0, 1.0], "scale": [1.0, 2.0]},
        [0.5, -3.0],
        [
            ("loc", {"loc": [0.0, -INF], "scale": [1.0, 1.0]}, "real (finite)"),
            ("scale", {"loc": [0.0, 0.0], "scale": [1.0, 0.0]}, "positive"),
        ],
        [0.0, NAN],
        "real (finite)",
    ),
    "LogNormal": Row(
        D.LogNormal,
        {"mu": [0.0, 1.0], "sigma": [1.0, 2.0]},
        [0.5, 3.0],
        [
            ("mu", {"mu": [NAN, 0.0], "sigma": [1.0, 1.0]}, "real (finite)"),
            ("sigma", {"mu": [0.0, 0.0], "sigma": [1.0, -1.0]}, "positive"),
        ],
        [0.0, 1.0],
        "positive",
    ),
    "MultivariateNormal": Row(
        D.MultivariateNormal,
        {"loc": [[0.0, 0.0], [1.0, 1.0]], "scale_tril": TRIL},
        [[0.5, -1.0], [2.0, 0.0]],
        [
            ("loc", {"loc": [[0.0, INF], [1.0, 1.0]], "scale_tril": TRIL}, "real (finite)"),
            (
                "scale_tril",
                {"loc": [[0.0, 0.0], [1.0, 1.0]], "scale_tril": [[[1.0, 0.0], [0.5, -2.0]], TRIL[1]]},
                "lower-triangular",
            ),
        ],
        [[0.5, -1.0], [NAN, 0.0]],
        "real (finite)",
    ),
    "Normal": Row(
        D.Normal,
        {"loc": [0.0, 1.0], "scale": [1.0, 2.0]},
        [0.5, -3.0],
        [
            ("loc", {"loc": [NAN, 0.0], "scale": [1.0, 1.0]}, "real (finite)"),
            ("scale", {"loc": [0.0, 0.0], "scale": [1.0, -1.0]}, "positive"),
            ("log_scale", {"loc": [0.0, 0.0], "log_scale": [INF, 0.0]}, "real (finite)"),
        ],
        [-INF, 0.0],
        "real (finite)",
    ),
    "OneHotCategorical": Row(
        D.OneHotCategorical,
        {"p": [[0.2, 0.8], [0.5, 0.5]]},
        [[0.0, 1.0], [1.0, 0.0]],
        [("p", {"p": [[0.2, 0.8], [-0.5, 1.5]]}, "a probability vector")],
        [[0.0, 1.0], [1.0, 1.0]],
        "one-hot",
    ),
    "Pareto": Row(
        D.Pareto,
        {"scale": [1.0, 2.0], "alpha": [1.0, 3.0]},
        [1.5, 2.0],
        [
            ("scale", {"scale": [0.0, 2.0], "alpha": [1.0, 1.0]}, "positive"),
            ("alpha", {"scale": [1.0, 1.0], "alpha": [1.0, -3.0]}, "positive"),
        ],
        [1.5, 1.5],
        ">= scale",
    ),
    "Poisson": Row(
        D.Poisson,
        {"lam": [1.0, 4.0]},
        [0.0, 3.0],
        [("lam", {"lam": [0.0, 1.0]}, "positive")],
        [1.5, 2.0],
        "a nonnegative integer",
    ),
    "Uniform": Row(
        D.Uniform,
        {"low": [0.0, -1.0], "high": [1.0, 2.0]},
        [0.5, 2.0],
        [
            ("low", {"low": [NAN, 0.0], "high": [1.0, 1.0]}, "real (finite)"),
            ("high", {"low": [0.0, 0.0], "high": [1.0, -2.0]}, "> low"),
            ("loc", {"loc": [INF, 0.0], "scale": [1.0, 1.0]}, "real (finite)"),
            ("scale", {"loc": [0.0, 0.0], "scale": [1.0, -1.0]}, "positive"),
        ],
        [0.5, 2.5],
        "in [low, high]",
    ),
}


def _arrays(params: dict) -> dict:
    return {
        k: v if isinstance(v, D.Distribution) else numpy.asarray(v, dtype=numpy.float64)
        for k, v in params.items()
    }


def _build(name: str, params: dict, **options):
    return ROWS[name].make(**_arrays(params), **options)


def _defined(dist, x) -> list:
    """The checked methods ``dist`` defines (those that do not raise ``NotDefinedError`` at ``x``)."""
    names = []
    for method in METHODS:
        try:
            getattr(dist, method)(x)
        except NotDefinedError:
            continue
        names.append(method)
    return names


def _violation(op: str, arg: str, constraint: str) -> str:
    """The pattern of the message of a broken constraint: op, argument, constraint, the count,
    the first violating index and its value, and a fix."""
    return (
        rf"^{re.escape(op)}: expected {re.escape(arg)} {re.escape(constraint)}.*, got \d+ of \d+ "
        rf"(entries|events) that are not, the first at index \([\d, ]*\): .+\n  {re.escape(arg)}: "
        r"[\s\S]*\n  hint: .+validate_args=False"
    )


def test_every_distribution_has_a_row():
    bases = {"Distribution", "Parametric"}
    classes = [n for n in D.__all__ if isinstance(getattr(D, n), type) and n not in bases]
    assert sorted(classes) == sorted(ROWS)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_the_constraints_table_covers_every_parameter_and_the_values(name):
    cls = getattr(D, name)
    parameters = {
        f.alias
        for f in attrs.fields(cls)
        if f.alias not in ("validate_args", "binary_check", "reinterpreted_batch_ndims")
    }
    parameters.discard("distribution")  # Independent checks the inner distribution's own table
    assert set(cls.constraints) == parameters | {"x"}


@pytest.mark.parametrize("name", sorted(ROWS))
def test_valid_inputs_give_the_numbers_of_an_unchecked_distribution(name):
    row = ROWS[name]
    checked, plain = _build(name, row.params, validate_args=True), _build(name, row.params)
    x = numpy.asarray(row.x)
    methods = _defined(plain, x)
    assert "log_prob" in methods
    for method in methods:
        numpy.testing.assert_array_equal(getattr(checked, method)(x), getattr(plain, method)(x))


@pytest.mark.parametrize(
    "name, param, params, constraint", [(n, *bad) for n in sorted(ROWS) for bad in ROWS[n].bad_params]
)
def test_a_broken_parameter_raises_at_construction_only_when_validating(name, param, params, constraint):
    with pytest.raises(InvalidInputError, match=_violation(name, param, constraint)):
        _build(name, params, validate_args=True)
    _build(name, params)  # unchecked by default


@pytest.mark.parametrize("name", sorted(ROWS))
def test_a_value_outside_the_support_raises_in_every_checked_method(name):
    row = ROWS[name]
    checked, plain = _build(name, row.params, validate_args=True), _build(name, row.params)
    for method in _defined(plain, numpy.asarray(row.x)):
        with pytest.raises(InvalidInputError, match=_violation(f"{name}.{method}", "x", row.x_constraint)):
            getattr(checked, method)(numpy.asarray(row.bad_x))


@pytest.mark.parametrize(
    "name", [n for n in sorted(ROWS) if "icdf" in vars(getattr(D, n)) and n != "Independent"]
)
def test_icdf_checks_that_x_is_a_probability(name):
    row = ROWS[name]
    checked, plain = _build(name, row.params, validate_args=True), _build(name, row.params)
    q = numpy.array([0.25, 0.75])
    numpy.testing.assert_array_equal(checked.icdf(q), plain.icdf(q))
    with pytest.raises(InvalidInputError, match=_violation(f"{name}.icdf", "x", "in [0, 1]")):
        checked.icdf(numpy.array([0.5, 1.5]))


def test_the_message_counts_the_violations_and_shows_the_first():
    with pytest.raises(InvalidInputError) as info:
        D.Normal(numpy.zeros(4), numpy.array([1.0, -1.0, 2.0, 0.0]), validate_args=True)
    assert str(info.value).splitlines()[0] == (
        "Normal: expected scale positive, got 2 of 4 entries that are not, the first at index (1,): -1.0"
    )
    with pytest.raises(InvalidInputError, match=r"got 1 of 1 events .* index \(0,\): \[0\.2, 0\.7\]\n"):
        D.Categorical(
            numpy.array([[0.2, 0.7]], dtype=numpy.float32), validate_args=True
        )  # float32's shortest
    d = D.Uniform(low=numpy.zeros((2, 1)), high=numpy.ones((2, 1)), validate_args=True)
    with pytest.raises(
        InvalidInputError, match=r"got 2 of 6 entries that are not, the first at index \(0, 2\): 3\.0"
    ):
        d.log_prob(numpy.array([0.5, 0.5, 3.0]))  # x broadcast against the bounds


def test_validation_runs_inside_grad_on_traced_parameters():
    row = ROWS["Gamma"]
    x = numpy.asarray(row.x)

    def loss(k, theta, validate_args):
        return D.Gamma(k, theta, validate_args=validate_args).log_prob(x).sum()

    args = tuple(numpy.asarray(v) for v in row.params.values())
    grads = fnet.grad(lambda k, t: loss(k, t, True), argnums=(0, 1))(*args)
    expected = fnet.grad(lambda k, t: loss(k, t, False), argnums=(0, 1))(*args)
    for g, e in zip(grads, expected, strict=True):
        numpy.testing.assert_array_equal(g, e)
    with pytest.raises(InvalidInputError, match=_violation("Gamma", "k", "positive")):
        fnet.grad(lambda k, t: loss(k, t, True), argnums=(0, 1))(-args[0], args[1])
    with pytest.raises(InvalidInputError, match=_violation("Gamma.log_prob", "x", "nonnegative")):
        fnet.grad(lambda k: D.Gamma(k, args[1], validate_args=True).log_prob(-x).sum())(args[0])


def test_a_distribution_passed_through_grad_keeps_validating():
    d = D.Normal(numpy.zeros(2), numpy.ones(2), validate_args=True)
    g = fnet.grad(lambda dist: dist.log_prob(numpy.array([0.5, 1.0])).sum())(d)
    assert g.validate_args
    with pytest.raises(InvalidInputError, match=r"Normal\.log_prob: expected x real"):
        fnet.grad(lambda dist: dist.log_prob(numpy.array([NAN, 1.0])).sum())(d)


@pytest.mark.parametrize("name", sorted(ROWS))
def test_validate_args_is_static_not_a_leaf(name):
    row = ROWS[name]
    arrays = _arrays(row.params)
    checked, plain = row.make(**arrays, validate_args=True), row.make(**arrays)
    assert len(tree.leaves(checked)) == len(tree.leaves(plain)) > 0
    for a, b in zip(tree.leaves(checked), tree.leaves(plain), strict=True):
        assert a is b
    assert tree.structure(checked) != tree.structure(plain)
    assert tree.unflatten(tree.structure(checked), tree.leaves(checked)).validate_args


def test_validate_args_is_keyword_only():
    with pytest.raises(TypeError):
        D.Exponential(numpy.ones(2), True)


def test_independent_checks_values_against_the_inner_support_and_needs_a_constraints_table():
    inner = D.Exponential(numpy.ones((2, 3)))
    d = D.Independent(inner, validate_args=True)
    with pytest.raises(InvalidInputError, match=_violation("Independent.log_prob", "x", "nonnegative")):
        d.log_prob(-numpy.ones((2, 3)))

    @attrs.frozen
    class _Point(D.Distribution):
        at: object

        @property
        def batch_shape(self):
            return numpy.shape(self.at)

        @property
        def event_shape(self):
            return ()

    with pytest.raises(
        InvalidInputError, match=r"Independent: validate_args needs a distribution that declares"
    ):
        D.Independent(_Point(numpy.zeros(2)), validate_args=True)
    D.Independent(_Point(numpy.zeros(2)))  # unchecked: any distribution


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_a_softmax_in_any_dtype_passes_the_simplex_check(dtype):
    logits = numpy.random.RandomState(0).normal(size=(50, 10)) * 3
    p = numpy.asarray(fnet.functions.softmax(logits.astype(dtype), axis=-1))
    D.Categorical(p, validate_args=True).log_prob(numpy.zeros(50, dtype=numpy.int64))
    with pytest.raises(InvalidInputError, match="a probability vector"):
        D.Categorical(p * dtype(1.1), validate_args=True)


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(ROWS))
def test_validation_on_a_gpu(name):
    import cupy

    row = ROWS[name]
    on_gpu = fnet.backend.to_device(_arrays(row.params), "@cupy:0")
    checked, plain = row.make(**on_gpu, validate_args=True), row.make(**on_gpu)
    x = cupy.asarray(row.x)
    numpy.testing.assert_array_equal(cupy.asnumpy(checked.log_prob(x)), cupy.asnumpy(plain.log_prob(x)))
    with pytest.raises(InvalidInputError, match=_violation(f"{name}.log_prob", "x", row.x_constraint)):
        checked.log_prob(cupy.asarray(row.bad_x))
    for param, params, constraint in row.bad_params:
        with pytest.raises(InvalidInputError, match=_violation(name, param, constraint)):
            row.make(**fnet.backend.to_device(_arrays(params), "@cupy:0"), validate_args=True)
