"""Chainer's ``chainer.distribution``: the ``Distribution`` base, ``register_kl``,
``kl_divergence`` and ``cross_entropy``.

``Distribution`` is the pure base with Chainer's sampling signature (``sample(sample_shape)``,
``sample_n(n)``), drawing from NumPy's global random state itself (``random.from_state``), as
Chainer's do: a seeded program draws Chainer's very numbers where the pure sampler makes the
call Chainer's makes (``standard_normal``, ``gamma``, ``beta``...). The distributions of
``chainer.distributions`` are :class:`PureDistribution` s: each keeps its parameters as
Variables and answers every member by running the pure distribution of
``fnet.distributions`` on them, so the formulas are written once. ``register_kl``,
``kl_divergence`` and ``cross_entropy`` are the pure ones: one registry serves both layers.
"""

from __future__ import annotations

from .. import distributions as _pure
from .. import ops
from ..distributions.distribution import sample_size
from ._random import global_state
from .functions._lift import unwrap, wrap
from .variable import as_variable

__all__ = [
    "Distribution",
    "PureDistribution",
    "pure_of",
    "register_kl",
    "kl_divergence",
    "cross_entropy",
]

register_kl = _pure.register_kl
kl_divergence = _pure.kl_divergence
cross_entropy = _pure.cross_entropy


class Distribution(_pure.Distribution):
    """Chainer's base of distributions: a subclass defines the members it has (the others raise
    ``NotImplementedError``); ``sample`` reshapes what its ``sample_n`` draws."""

    def sample_n(self, n: int):
        """``n`` samples, of shape ``(n,) + batch_shape + event_shape``."""
        self._undefined("sample_n")

    def sample(self, sample_shape=()):
        """Samples of shape ``sample_shape + batch_shape + event_shape``."""
        shape, n = sample_size(sample_shape)
        return wrap(ops.reshape(unwrap(self.sample_n(n)), shape + self.batch_shape + self.event_shape))


def _value(name: str):
    """A property that is the pure distribution's ``name``, as a Variable."""
    return property(lambda self: wrap(getattr(self.pure, name)), doc=f"The distribution's {name}.")


def _plain(name: str):
    """A property that is the pure distribution's ``name`` as it is (a shape, a string)."""
    return property(lambda self: getattr(self.pure, name), doc=f"The distribution's {name}.")


def _function(name: str):
    """A method that evaluates the pure distribution's ``name`` at ``x``, as a Variable."""

    def method(self, x):
        return wrap(getattr(self.pure, name)(unwrap(x)))

    method.__name__ = name
    method.__doc__ = f"The distribution's {name} at ``x``."
    return method


def _parameter(name: str):
    """A property for a parameter: the Variable given for it, or the one the others imply."""

    def get(self):
        given = self._params.get(name)
        return wrap(getattr(self.pure, name)) if given is None else given

    return property(get, doc=f"The parameter {name}, as a Variable.")


class PureDistribution(Distribution):
    """A Chainer distribution that runs the pure ``pure_type`` (a class keyword) on its
    parameters; ``parameters`` (a class keyword) names its parameter attributes.

    A subclass's ``__init__`` takes Chainer's signature and calls
    ``super().__init__(params, **options)``: ``params`` maps the pure class's parameter names to
    arrays, Variables or ``None``; ``options`` are its static options (``binary_check``).
    """

    pure_type: type
    batch_shape = _plain("batch_shape")
    event_shape = _plain("event_shape")
    support = _plain("support")
    mean = _value("mean")
    mode = _value("mode")
    stddev = _value("stddev")
    variance = _value("variance")
    covariance = _value("covariance")
    entropy = _value("entropy")
    log_prob = _function("log_prob")
    prob = _function("prob")
    cdf = _function("cdf")
    log_cdf = _function("log_cdf")
    icdf = _function("icdf")
    survival_function = _function("survival_function")
    log_survival_function = _function("log_survival_function")
    perplexity = _function("perplexity")

    def __init_subclass__(cls, pure_type: type, parameters: tuple = (), **kwargs):
        super().__init_subclass__(**kwargs)
        cls.pure_type = pure_type
        for name in parameters:
            setattr(cls, name, _parameter(name))

    def __init__(self, params: dict, **options):
        self._params = {k: None if v is None else as_variable(v) for k, v in params.items()}
        self._options = options
        _ = self.pure  # the pure distribution checks the parameters now, as Chainer's constructors do

    @property
    def pure(self):
        """The pure distribution of ``fnet.distributions`` on the parameters' values."""
        return self.pure_type(**{k: unwrap(v) for k, v in self._params.items()}, **self._options)

    @property
    def params(self) -> dict:
        return {k: wrap(v) for k, v in self.pure.params.items()}

    def sample_n(self, n: int):
        return wrap(self.pure.sample_n(global_state(), n))


_SHAPES = ("batch_shape", "event_shape", "support")
_VALUES = ("mean", "mode", "stddev", "variance", "covariance", "entropy")
_FUNCTIONS = ("log_prob", "prob", "cdf", "log_cdf", "icdf", "survival_function", "log_survival_function")
_FUNCTIONS += ("perplexity",)


class _ChainerView(_pure.Distribution):
    """A Chainer-style distribution (one written against ``chainer.Distribution``) seen as a pure
    one: each member calls the Chainer one and unwraps its Variables; sampling ignores the key
    (the Chainer distribution draws from NumPy's global state)."""

    def __init__(self, distribution):
        self.distribution = distribution

    @property
    def params(self) -> dict:
        return {k: unwrap(v) for k, v in self.distribution.params.items()}

    def sample_n(self, key, n: int):
        return unwrap(self.distribution.sample_n(n))


for _name in _SHAPES:
    setattr(_ChainerView, _name, property(lambda self, _name=_name: getattr(self.distribution, _name)))
for _name in _VALUES:
    setattr(
        _ChainerView, _name, property(lambda self, _name=_name: unwrap(getattr(self.distribution, _name)))
    )
for _name in _FUNCTIONS:
    setattr(
        _ChainerView, _name, lambda self, x, _name=_name: unwrap(getattr(self.distribution, _name)(wrap(x)))
    )
del _name


def pure_of(distribution):
    """The pure distribution behind a Chainer one: a :class:`PureDistribution`'s own, else a view
    that calls the Chainer distribution's members."""
    if isinstance(distribution, PureDistribution):
        return distribution.pure
    return _ChainerView(distribution)


@register_kl(PureDistribution, PureDistribution)
def _kl_of_pure_distributions(dist1, dist2):
    return wrap(kl_divergence(dist1.pure, dist2.pure))
