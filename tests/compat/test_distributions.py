"""Tests of chainer.distributions and chainer.distribution in compat: Chainer's constructors,
Variables in and out, gradients to the parameter Variables, keys from NumPy's global state, the
KL registry, and a user's own Distribution."""

from __future__ import annotations

import numpy
import pytest

import fnet
import fnet.compat as chainer
from fnet import distributions as pure
from fnet.compat import distributions as D
from fnet.testing import assert_ulp_close

rng = numpy.random.RandomState(4)
LOC = rng.normal(size=(3, 2)).astype(numpy.float32)
SCALE = rng.uniform(0.5, 2.0, size=(3, 2)).astype(numpy.float32)
X = rng.normal(size=(3, 2)).astype(numpy.float32)


def test_the_module_paths_are_chainers():
    from fnet.compat.distributions.bernoulli import Bernoulli
    from fnet.compat.distributions.normal import Normal

    assert Normal is D.Normal and Bernoulli is D.Bernoulli
    assert chainer.distribution.Distribution is chainer.Distribution
    for name in ("register_kl", "kl_divergence", "cross_entropy"):
        assert getattr(chainer, name) is getattr(chainer.distribution, name)


def test_normal_takes_chainers_arguments_and_gives_the_pure_numbers_as_variables():
    d = D.Normal(LOC, log_scale=numpy.log(SCALE))
    expected = pure.Normal(LOC, log_scale=numpy.log(SCALE))
    for member in ("mean", "stddev", "variance", "entropy", "scale", "log_scale"):
        value = getattr(d, member)
        assert isinstance(value, chainer.Variable), member
        numpy.testing.assert_array_equal(value.array, getattr(expected, member))  # the same code
    for member in ("log_prob", "prob", "cdf", "log_cdf", "survival_function", "log_survival_function"):
        numpy.testing.assert_array_equal(getattr(d, member)(X).array, getattr(expected, member)(X))
    assert d.batch_shape == (3, 2) and d.event_shape == () and d.support == "real"
    assert set(d.params) == {"loc", "scale"}


def test_the_given_parameter_is_the_variable_given():
    loc = chainer.Variable(LOC)
    assert D.Normal(loc, SCALE).loc is loc


def test_gradients_reach_the_parameter_variables():
    loc, scale = chainer.Variable(LOC.copy()), chainer.Variable(SCALE.copy())
    chainer.functions.sum(D.Normal(loc, scale).log_prob(X)).backward()
    g_loc, g_scale = fnet.grad(lambda a, b: pure.Normal(a, b).log_prob(X).sum(), argnums=(0, 1))(LOC, SCALE)
    numpy.testing.assert_array_equal(loc.grad, g_loc)  # the same tape operations
    numpy.testing.assert_array_equal(scale.grad, g_scale)


def test_sampling_draws_its_keys_from_numpys_global_state():
    loc = chainer.Variable(LOC.copy())
    d = D.Normal(loc, SCALE)
    numpy.random.seed(1)
    a = d.sample((5,))
    numpy.random.seed(1)
    b = d.sample((5,))
    assert isinstance(a, chainer.Variable) and a.shape == (5, 3, 2)
    numpy.testing.assert_array_equal(a.array, b.array)
    chainer.functions.sum(d.sample_n(4)).backward()  # reparameterized: d sum / d loc = n
    numpy.testing.assert_array_equal(loc.grad, numpy.full_like(LOC, 4.0))


def test_bernoulli_takes_chainers_arguments():
    p = rng.uniform(0.1, 0.9, size=(3,)).astype(numpy.float32)
    d = D.Bernoulli(p, binary_check=True)
    numpy.testing.assert_array_equal(d.logit.array, pure.Bernoulli(p=p).logit)
    x = numpy.float32([0, 1, 0.5])
    assert d.log_prob(x).array[2] == -numpy.inf and d.prob(x).array[2] == 0
    assert D.Bernoulli(logit=numpy.zeros(3, numpy.float32)).p.array.tolist() == [0.5, 0.5, 0.5]


def test_bad_arguments_raise_chainers_error_types():
    with pytest.raises(ValueError, match="expected either scale or log_scale"):
        D.Normal(LOC, SCALE, log_scale=SCALE)
    with pytest.raises(ValueError, match="expected either p or logit"):
        D.Bernoulli()
    with pytest.raises(TypeError, match="scal"):
        D.Normal(LOC, scal=SCALE)


def test_kl_divergence_and_cross_entropy_of_builtin_pairs_are_the_pure_ones():
    p, q = D.Normal(LOC, SCALE), D.Normal(X, SCALE[::-1])
    kl = chainer.kl_divergence(p, q)
    assert isinstance(kl, chainer.Variable)
    expected = pure.kl_divergence(pure.Normal(LOC, SCALE), pure.Normal(X, SCALE[::-1]))
    numpy.testing.assert_array_equal(kl.array, expected)
    numpy.testing.assert_array_equal(chainer.cross_entropy(p, q).array, (p.entropy + kl).array)
    b1, b2 = D.Bernoulli(p=SCALE / 3), D.Bernoulli(logit=X)
    numpy.testing.assert_array_equal(
        chainer.kl_divergence(b1, b2).array,
        pure.kl_divergence(pure.Bernoulli(p=SCALE / 3), pure.Bernoulli(logit=X)),
    )


class _Dirac(chainer.Distribution):
    """A user's distribution, as in Chainer: a subclass of chainer.Distribution."""

    def __init__(self, at):
        self.at = chainer.as_variable(at)

    @property
    def batch_shape(self):
        return self.at.shape

    @property
    def event_shape(self):
        return ()

    def sample_n(self, n):
        return chainer.functions.broadcast_to(self.at, (n, *self.at.shape))


def test_a_users_distribution_samples_through_sample_n_and_lacks_the_rest():
    d = _Dirac(numpy.float32([1.0, 2.0]))
    assert d.sample((2, 3)).shape == (2, 3, 2)
    with pytest.raises(NotImplementedError, match=r"_Dirac\.log_prob"):
        d.log_prob(numpy.float32([1.0, 2.0]))


def test_register_kl_is_a_decorator_for_a_users_pair():
    @chainer.register_kl(_Dirac, _Dirac)
    def _kl_dirac(p, q):
        return chainer.functions.absolute(p.at - q.at)

    kl = chainer.kl_divergence(_Dirac(numpy.float32([1.0])), _Dirac(numpy.float32([3.0])))
    assert kl.array.tolist() == [2.0]


def test_chainers_private_bernoulli_log_prob_is_the_log_prob_of_logit():
    from fnet.compat.distributions.bernoulli import _bernoulli_log_prob

    logit = chainer.Variable(X.astype(numpy.float64))
    x = (X > 0).astype(numpy.float32)  # Chainer's tests give x in float32 with a float64 logit
    y = _bernoulli_log_prob(logit, x, binary_check=True)
    numpy.testing.assert_array_equal(y.array, pure.Bernoulli(logit=logit.array).log_prob(x))
    chainer.functions.sum(y).backward()
    numpy.testing.assert_allclose(logit.grad, x - 1 / (1 + numpy.exp(-logit.array)), rtol=1e-12)


def test_exponential_takes_chainers_constructor_and_wraps_the_pure_one():
    lam = chainer.Variable(SCALE)
    d = D.Exponential(lam)
    assert d.lam is lam and d.batch_shape == (3, 2) and d.support == "positive"
    x = numpy.abs(X)
    y = d.log_prob(x)
    assert isinstance(y, chainer.Variable)
    numpy.testing.assert_array_equal(y.array, pure.Exponential(SCALE).log_prob(x))
    chainer.functions.sum(y).backward()
    numpy.testing.assert_allclose(lam.grad, 1 / SCALE - x, rtol=1e-6)  # d/dlam (log lam - lam x)
    numpy.random.seed(0)
    assert d.sample(4).shape == (4, 3, 2)
    kl = chainer.kl_divergence(d, D.Exponential(SCALE[::-1]))
    numpy.testing.assert_array_equal(
        kl.array, pure.kl_divergence(pure.Exponential(SCALE), pure.Exponential(SCALE[::-1]))
    )


def test_categorical_takes_chainers_constructor_and_wraps_the_pure_one():
    logit = chainer.Variable(rng.normal(size=(3, 4)).astype(numpy.float32))
    d = D.Categorical(logit=logit)
    expected = pure.Categorical(logit=logit.array)
    for member in ("p", "log_p", "entropy"):
        numpy.testing.assert_array_equal(getattr(d, member).array, getattr(expected, member))
    x = numpy.int32([0, 3, 1])
    numpy.testing.assert_array_equal(d.log_prob(x).array, expected.log_prob(x))
    assert d.batch_shape == (3,) and d.event_shape == ()
    chainer.functions.sum(d.log_prob(x)).backward()  # d/dlogit log_softmax(logit)[x] = onehot - p
    numpy.testing.assert_allclose(logit.grad, numpy.eye(4)[x] - expected.p, rtol=1e-6, atol=1e-7)
    numpy.random.seed(0)
    assert d.sample((2,)).shape == (2, 3)
    with pytest.raises(ValueError, match="expected either p or logit"):
        D.Categorical()


def test_one_hot_categorical_takes_chainers_constructor_and_wraps_the_pure_one():
    p = chainer.Variable(numpy.float32([[0.25, 0.75], [0.5, 0.5]]))
    d = D.OneHotCategorical(p)
    assert d.p is p and d.batch_shape == (2,) and d.event_shape == (2,)
    x = numpy.float32([[0, 1], [1, 0]])
    numpy.testing.assert_array_equal(d.log_prob(x).array, pure.OneHotCategorical(p.array).log_prob(x))
    numpy.random.seed(0)
    s = d.sample(3)
    assert s.shape == (3, 2, 2) and (s.array.sum(-1) == 1).all()
    with pytest.raises(NotImplementedError):
        _ = d.entropy


def test_geometric_takes_chainers_constructor_and_wraps_the_pure_one():
    p = chainer.Variable(numpy.float32([0.25, 0.5]))
    d = D.Geometric(p)
    assert d.p is p and d.batch_shape == (2,) and d.support == "positive integer"
    x = numpy.int32([3, 1])
    y = d.log_prob(x)
    numpy.testing.assert_array_equal(y.array, pure.Geometric(p.array).log_prob(x))
    chainer.functions.sum(y).backward()  # d/dp ((x - 1) log(1 - p) + log p)
    numpy.testing.assert_allclose(p.grad, 1 / p.array - (x - 1) / (1 - p.array), rtol=1e-6)
    numpy.random.seed(0)
    assert d.sample((4,)).shape == (4, 2)


def test_multivariate_normal_takes_chainers_constructor_and_wraps_the_pure_one():
    loc = chainer.Variable(LOC)
    tril = numpy.float32([[[1.0, 0.0], [0.5, 2.0]]] * 3)
    d = D.MultivariateNormal(loc, scale_tril=tril)
    assert d.loc is loc and d.batch_shape == (3,) and d.event_shape == (2,)
    # the same formula; the triangular solve may take another LAPACK path for the Variable's copy
    # of the array (seen: 1 ulp apart on NumPy 1.26's OpenBLAS)
    assert_ulp_close(d.log_prob(X).array, pure.MultivariateNormal(LOC, tril).log_prob(X), max_ulp=4)
    chainer.functions.sum(d.sample(4)).backward()  # reparameterized: d sum / d loc = n
    numpy.testing.assert_array_equal(loc.grad, numpy.full_like(LOC, 4.0))
    with pytest.raises(ValueError, match="expected scale_tril"):
        D.MultivariateNormal(LOC)


def test_chainers_private_triangular_inv_inverts_one_triangle():
    from fnet.compat.distributions.multivariate_normal import _triangular_inv

    a = numpy.float64([[2.0, 7.0], [1.0, 4.0]])
    numpy.testing.assert_allclose(_triangular_inv(a).array, numpy.linalg.inv(numpy.tril(a)), rtol=1e-15)
    numpy.testing.assert_allclose(
        _triangular_inv(a, lower=False).array, numpy.linalg.inv(numpy.triu(a)), rtol=1e-15
    )


def test_independent_wraps_a_builtin_distribution_and_sums_over_the_event_axes():
    loc = chainer.Variable(LOC)
    d = D.Independent(D.Normal(loc, SCALE), 1)
    assert d.batch_shape == (3,) and d.event_shape == (2,) and d.reinterpreted_batch_ndims == 1
    y = d.log_prob(X)
    numpy.testing.assert_array_equal(y.array, pure.Independent(pure.Normal(LOC, SCALE), 1).log_prob(X))
    chainer.functions.sum(y).backward()
    numpy.testing.assert_allclose(loc.grad, (X - LOC) / SCALE**2, rtol=1e-6)
    q = D.Independent(D.Normal(X, SCALE), 1)
    expected = pure.kl_divergence(pure.Normal(LOC, SCALE), pure.Normal(X, SCALE)).sum(-1)
    numpy.testing.assert_array_equal(chainer.kl_divergence(d, q).array, expected)
    with pytest.raises(ValueError, match="reinterpreted_batch_ndims"):
        D.Independent(D.Normal(LOC, SCALE), 3)


class _Uniform01(chainer.Distribution):
    """A user's distribution with a log_prob: uniform on [0, 1] per element of ``like``."""

    def __init__(self, like):
        self.like = chainer.as_variable(like)

    @property
    def batch_shape(self):
        return self.like.shape

    @property
    def event_shape(self):
        return ()

    def log_prob(self, x):
        return chainer.functions.log(chainer.as_variable(x) * 0 + 1)


def test_independent_wraps_a_users_distribution():
    d = D.Independent(_Uniform01(X), 1)
    assert d.batch_shape == (3,) and d.event_shape == (2,)
    assert d.log_prob(X).array.tolist() == [0.0, 0.0, 0.0]
    with pytest.raises(NotImplementedError, match=r"_Uniform01\.entropy"):
        _ = d.entropy


def test_gamma_takes_chainers_constructor_and_wraps_the_pure_one():
    k, theta = chainer.Variable(SCALE * 2), chainer.Variable(SCALE[::-1].copy())
    d = D.Gamma(k, theta)
    assert d.k is k and d.theta is theta and d.batch_shape == (3, 2) and d.support == "positive"
    x = numpy.abs(X)
    y = d.log_prob(x)
    numpy.testing.assert_array_equal(y.array, pure.Gamma(k.array, theta.array).log_prob(x))
    chainer.functions.sum(y).backward()
    expected = numpy.log(x) - fnet.functions.digamma(k.array) - numpy.log(theta.array)  # d/dk
    numpy.testing.assert_allclose(k.grad, expected, rtol=1e-5)
    numpy.random.seed(0)
    assert d.sample((2, 2)).shape == (2, 2, 3, 2)
    kl = chainer.kl_divergence(d, D.Gamma(SCALE, SCALE))
    numpy.testing.assert_array_equal(
        kl.array, pure.kl_divergence(pure.Gamma(k.array, theta.array), pure.Gamma(SCALE, SCALE))
    )


def test_chisquare_takes_chainers_constructor_and_wraps_the_pure_one():
    k = chainer.Variable(SCALE * 3)
    d = D.Chisquare(k)
    assert d.k is k and d.batch_shape == (3, 2) and d.support == "positive"
    x = numpy.abs(X)
    numpy.testing.assert_array_equal(d.log_prob(x).array, pure.Chisquare(k.array).log_prob(x))
    numpy.testing.assert_array_equal(d.entropy.array, pure.Chisquare(k.array).entropy)
    numpy.random.seed(0)
    assert d.sample_n(5).shape == (5, 3, 2)


def test_beta_takes_chainers_constructor_and_wraps_the_pure_one():
    a, b = chainer.Variable(SCALE), chainer.Variable(SCALE[::-1] * 2)
    d = D.Beta(a, b)
    assert d.a is a and d.b is b and d.batch_shape == (3, 2) and d.support == "[0, 1]"
    x = 1 / (1 + numpy.exp(-X))
    y = d.log_prob(x)
    numpy.testing.assert_array_equal(y.array, pure.Beta(a.array, b.array).log_prob(x))
    chainer.functions.sum(y).backward()
    digamma = fnet.functions.digamma
    expected = numpy.log(x) - digamma(a.array) + digamma(a.array + b.array)  # d/da
    numpy.testing.assert_allclose(a.grad, expected, rtol=1e-4)
    numpy.random.seed(0)
    assert d.sample(3).shape == (3, 3, 2)
    kl = chainer.kl_divergence(d, D.Beta(b, a))
    numpy.testing.assert_array_equal(
        kl.array, pure.kl_divergence(pure.Beta(a.array, b.array), pure.Beta(b.array, a.array))
    )


def test_dirichlet_takes_chainers_constructor_and_wraps_the_pure_one():
    alpha = chainer.Variable(SCALE * 2)
    d = D.Dirichlet(alpha)
    assert d.alpha is alpha and d.batch_shape == (3,) and d.event_shape == (2,) and d.support == "[0, 1]"
    numpy.testing.assert_array_equal(d.alpha0.array, alpha.array.sum(axis=-1))
    x = numpy.array([0.3, 0.7], numpy.float32)
    y = d.log_prob(x)
    numpy.testing.assert_array_equal(y.array, pure.Dirichlet(alpha.array).log_prob(x))
    chainer.functions.sum(y).backward()
    digamma = fnet.functions.digamma
    expected = numpy.log(x) - digamma(alpha.array) + digamma(alpha.array.sum(axis=-1, keepdims=True))
    numpy.testing.assert_allclose(alpha.grad, expected, rtol=1e-4)
    numpy.random.seed(0)
    assert d.sample(4).shape == (4, 3, 2)
    kl = chainer.kl_divergence(d, D.Dirichlet(SCALE))
    numpy.testing.assert_array_equal(
        kl.array, pure.kl_divergence(pure.Dirichlet(alpha.array), pure.Dirichlet(SCALE))
    )


def test_poisson_takes_chainers_constructor_and_wraps_the_pure_one():
    lam = chainer.Variable(SCALE * 3)
    d = D.Poisson(lam)
    assert d.lam is lam and d.batch_shape == (3, 2) and d.support == "non negative integer"
    x = numpy.arange(6, dtype=numpy.int32).reshape(3, 2)
    y = d.log_prob(x)
    numpy.testing.assert_array_equal(y.array, pure.Poisson(lam.array).log_prob(x))
    chainer.functions.sum(y).backward()
    numpy.testing.assert_allclose(lam.grad, x / lam.array - 1, rtol=1e-6)
    numpy.random.seed(0)
    assert d.sample(2).shape == (2, 3, 2)
    kl = chainer.kl_divergence(d, D.Poisson(SCALE))
    numpy.testing.assert_array_equal(
        kl.array, pure.kl_divergence(pure.Poisson(lam.array), pure.Poisson(SCALE))
    )


def test_modified_xlogx_is_chainers_private_helper_over_xlogx():
    from fnet.compat.distributions.utils import _modified_xlogx

    x = chainer.Variable(numpy.array([0.0, 0.5, 2.0]))
    y = _modified_xlogx(x)
    numpy.testing.assert_array_equal(y.array, pure.utils.xlogx(x.array))
    with pytest.warns(RuntimeWarning, match="xlogx"):
        chainer.functions.sum(y).backward()
    numpy.testing.assert_allclose(x.grad, [0.0, 1 + numpy.log(0.5), 1 + numpy.log(2.0)], rtol=1e-15)


def test_samples_draw_from_numpys_global_state_as_chainers_do():
    # Chainer's Normal draws numpy.random.standard_normal((n,) + batch_shape) and scales it; its
    # Gamma numpy.random.gamma(k, size=...): a seeded program gets Chainer's very numbers
    loc, scale = numpy.float32([0.5, -1.0, 2.0]), numpy.float32([1.0, 0.5, 2.0])
    k = numpy.float32([0.5, 2.0, 3.0])
    numpy.random.seed(0)
    normal, gamma = D.Normal(loc, scale).sample(2).array, D.Gamma(k, scale).sample(2).array
    state = numpy.random.RandomState(0)
    eps = state.standard_normal((2, 3)).astype(numpy.float32)
    numpy.testing.assert_array_equal(normal, loc + scale * eps)
    numpy.testing.assert_array_equal(gamma, scale * state.gamma(k, size=(2, 3)).astype(numpy.float32))


def test_all_lists_a_chainer_class_for_each_pure_distribution():
    bases = {"Distribution", "Parametric"}
    pure_classes = sorted(n for n in pure.__all__ if isinstance(getattr(pure, n), type) and n not in bases)
    assert D.__all__ == pure_classes
    assert all(getattr(D, n).pure_type is getattr(pure, n) for n in D.__all__)
