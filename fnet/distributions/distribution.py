"""The ``Distribution`` base, its parameter checks, and the KL-divergence registry.

A distribution is a frozen attrs class whose parameters are pytree leaves: it can be built
inside ``fnet.grad``, passed through pure functions, and differentiated with respect to its
parameters. Sampling takes an explicit key. A member that a distribution does not define
raises :class:`~fnet.errors.NotDefinedError` (a ``NotImplementedError``, as in Chainer).

A distribution built with ``validate_args=True`` checks its parameters against its class's
``constraints`` (a mapping from parameter name, and ``"x"`` for values, to a constraint of
``distributions.constraints``) when it is built, and ``x`` in each method marked ``@validated``.
"""

from __future__ import annotations

import functools

import attrs
import numpy

from .. import backend, ops
from ..autodiff import unbox_all
from ..errors import DTypeError, InvalidInputError, NotDefinedError, ShapeError, message
from ..tree import static_field
from . import constraints

__all__ = [
    "Distribution",
    "Parametric",
    "register_kl",
    "find_kl",
    "kl_divergence",
    "cross_entropy",
    "sample_size",
    "check_params",
    "check_one_of",
    "validate_args_field",
    "check_parameters",
    "check_value",
    "validated",
    "validated_quantile",
]


class Distribution:
    """A batch of probability distributions, each over events of ``event_shape``.

    A value given to ``log_prob``, ``cdf``... has the shape ``sample_shape + batch_shape +
    event_shape``; the result has the shape ``sample_shape + batch_shape``.
    """

    __slots__ = ()

    def _undefined(self, member: str):
        name = type(self).__name__
        raise NotDefinedError(
            message(
                f"{name}.{member}",
                f"{name} does not define {member}",
                hint="use a member the distribution defines, or subclass it and define this one",
            )
        )

    @property
    def batch_shape(self) -> tuple:
        """The shape of the batch of independent distributions."""
        self._undefined("batch_shape")

    @property
    def event_shape(self) -> tuple:
        """The shape of one event (``()`` for scalar distributions)."""
        self._undefined("event_shape")

    @property
    def params(self) -> dict:
        """The parameters, by Chainer's names."""
        self._undefined("params")

    @property
    def support(self) -> str:
        """The support, in words (``'real'``, ``'{0, 1}'``...)."""
        self._undefined("support")

    @property
    def mean(self):
        self._undefined("mean")

    @property
    def mode(self):
        self._undefined("mode")

    @property
    def stddev(self):
        self._undefined("stddev")

    @property
    def variance(self):
        self._undefined("variance")

    @property
    def covariance(self):
        self._undefined("covariance")

    @property
    def entropy(self):
        self._undefined("entropy")

    def log_prob(self, x):
        """The log of the density (or mass) at ``x``."""
        self._undefined("log_prob")

    def prob(self, x):
        """The density (or mass) at ``x``."""
        self._undefined("prob")

    def cdf(self, x):
        self._undefined("cdf")

    def log_cdf(self, x):
        self._undefined("log_cdf")

    def icdf(self, x):
        self._undefined("icdf")

    def survival_function(self, x):
        self._undefined("survival_function")

    def log_survival_function(self, x):
        self._undefined("log_survival_function")

    def perplexity(self, x):
        self._undefined("perplexity")

    def sample_n(self, key, n: int):
        """``n`` samples, of shape ``(n,) + batch_shape + event_shape``, drawn with ``key``."""
        self._undefined("sample_n")

    def sample(self, key, sample_shape=()):
        """Samples of shape ``sample_shape + batch_shape + event_shape``, drawn with ``key``."""
        shape, n = sample_size(sample_shape)
        return ops.reshape(self.sample_n(key, n), shape + self.batch_shape + self.event_shape)

    @property
    def xp(self):
        """NumPy or CuPy, where the parameters are."""
        return backend.xp(*(unbox_all(v) for v in self.params.values()))


class Parametric(Distribution):
    """A distribution whose parameters are its attrs fields named in its ``constraints`` table
    (by their constructor names, in the order of the fields), over scalar events.

    When built, it checks its parameters (floating, of one dtype, shapes that broadcast; with
    ``validate_args``, their constraints too). A class whose parameters come in alternatives
    (``Normal``'s ``scale`` or ``log_scale``) or whose events are not scalars overrides what differs.
    """

    __slots__ = ()

    def __attrs_post_init__(self):
        _ = self.batch_shape  # checks the parameters (dtypes, shapes)
        if self.validate_args:
            check_parameters(self)

    @property
    def _given(self) -> dict:
        """The parameters as given to the constructor (``None`` for one not given), by name."""
        return {alias: getattr(self, name) for alias, name in _parameter_fields(type(self))}

    @property
    def batch_shape(self) -> tuple:
        return check_params(type(self).__name__, self._given)

    @property
    def event_shape(self) -> tuple:
        return ()

    @property
    def params(self) -> dict:
        return self._given


@functools.cache
def _parameter_fields(cls: type) -> tuple[tuple[str, str], ...]:
    """``(constructor name, attribute name)`` of each attrs field of ``cls`` that its
    ``constraints`` table names."""
    named = set(cls.constraints) - {"x"}
    return tuple((f.alias, f.name) for f in attrs.fields(cls) if f.alias in named)


def sample_size(sample_shape) -> tuple[tuple, int]:
    """``sample_shape`` (an int or a tuple) as a tuple, and the number of samples it holds."""
    shape = (sample_shape,) if isinstance(sample_shape, int) else tuple(sample_shape)
    return shape, int(numpy.prod(shape, dtype=numpy.int64))


def check_params(op: str, params: dict) -> tuple:
    """Check that the given parameters (``None`` for one not given) are floating arrays of one
    dtype whose shapes broadcast together; return the broadcast shape."""
    given = {k: v for k, v in params.items() if v is not None}
    dtypes = {k: numpy.dtype(v.dtype) for k, v in given.items() if hasattr(v, "dtype")}
    for name, dtype in dtypes.items():
        if dtype.kind != "f":
            raise DTypeError(
                message(
                    op,
                    f"expected {name} of a floating dtype",
                    given,
                    hint=f"cast it: {name}.astype(numpy.float32)",
                )
            )
    if len(set(dtypes.values())) > 1:
        raise DTypeError(
            message(op, "expected parameters of one dtype", given, hint="cast them to one floating dtype")
        )
    try:
        return numpy.broadcast_shapes(*(tuple(getattr(v, "shape", ())) for v in given.values()))
    except ValueError:
        raise ShapeError(
            message(
                op,
                "expected parameter shapes that broadcast together",
                given,
                hint="reshape them to one shape",
            )
        ) from None


def check_one_of(op: str, first: str, a, second: str, b) -> None:
    """Check that exactly one of two alternative parameters is given."""
    if (a is None) == (b is None):
        raise InvalidInputError(
            message(
                op,
                f"expected either {first} or {second} (not both)",
                {first: a, second: b},
                hint=f"give exactly one of {first}= and {second}=",
            )
        )


def validate_args_field():
    """The keyword-only static option ``validate_args`` (default ``False``) of a distribution."""
    return static_field(default=False, kw_only=True)


def _show(a) -> str:
    """An array on one line, each float by its shortest repr in its own dtype (``0.2``, not
    ``0.20000000298``)."""
    formatter = {"float_kind": lambda v: numpy.format_float_positional(v, trim="0")}
    return " ".join(numpy.array2string(numpy.asarray(a), separator=", ", formatter=formatter).split())


def _check(op: str, name: str, value, constraint) -> None:
    """Raise ``InvalidInputError`` where ``value`` breaks ``constraint``."""
    holds = constraint.holds(value)
    if bool(holds.all()):
        return
    broken = backend.to_cpu(~holds)
    first = tuple(int(i) for i in numpy.argwhere(broken)[0])
    concrete = numpy.asarray(backend.to_cpu(unbox_all(value)))
    shown = numpy.broadcast_to(
        concrete, broken.shape + concrete.shape[concrete.ndim - constraint.event_ndim :]
    )
    raise InvalidInputError(
        message(
            op,
            f"expected {name} {constraint.name}, got {int(broken.sum())} of {broken.size} "
            f"{'entries' if constraint.event_ndim == 0 else 'events'} that are not, the first at "
            f"index {first}: {_show(shown[first])}",
            {name: value},
            hint=f"{constraint.fix}; or build the distribution with validate_args=False (no checks)",
        )
    )


def check_parameters(dist, op: str | None = None, prefix: str = "") -> None:
    """Check each parameter given to ``dist`` against its entry in ``dist.constraints``."""
    op = op or type(dist).__name__
    given = {f.alias: getattr(dist, f.name) for f in attrs.fields(type(dist))}
    for name, constraint in dist.constraints.items():
        value = given.get(name) if name != "x" else None
        if value is not None:
            _check(op, prefix + name, value, constraint.bind(dist))


def check_value(dist, member: str, x, constraint=None) -> None:
    """Check ``x`` given to ``dist.member`` against ``constraint`` (by default the constraint of
    the distribution's values)."""
    constraint = dist.constraints["x"] if constraint is None else constraint
    _check(f"{type(dist).__name__}.{member}", "x", x, constraint.bind(dist))


def validated(method):
    """Mark a method of ``x`` that checks ``x`` against the distribution's values' constraint
    when the distribution was built with ``validate_args=True``."""

    @functools.wraps(method)
    def checked(self, x):
        if self.validate_args:
            check_value(self, method.__name__, x)
        return method(self, x)

    return checked


def validated_quantile(method):
    """Mark a method of a probability ``x`` (``icdf``) that checks ``x`` in ``[0, 1]`` when the
    distribution was built with ``validate_args=True``."""

    @functools.wraps(method)
    def checked(self, x):
        if self.validate_args:
            check_value(self, method.__name__, x, constraints.unit_interval)
        return method(self, x)

    return checked


_KL: dict = {}


def register_kl(type1: type, type2: type):
    """A decorator that makes ``kl(p, q)`` the KL divergence of a ``type1`` and a ``type2``."""

    def register(kl):
        _KL[type1, type2] = kl
        return kl

    return register


def find_kl(type1: type, type2: type):
    """The KL function registered for ``(type1, type2)`` or the nearest pair of their base
    types (``type1``'s first), or ``None``."""
    for t1 in type1.__mro__:
        for t2 in type2.__mro__:
            kl = _KL.get((t1, t2))
            if kl is not None:
                return kl
    return None


def kl_divergence(dist1, dist2):
    """``KL(dist1 || dist2)``, by the function registered for their types (or base types)."""
    kl = find_kl(type(dist1), type(dist2))
    if kl is not None:
        return kl(dist1, dist2)
    name1, name2 = type(dist1).__name__, type(dist2).__name__
    raise NotDefinedError(
        message(
            "kl_divergence",
            f"no KL divergence is registered for ({name1}, {name2})",
            hint=f"register one with @register_kl({name1}, {name2})",
        )
    )


def cross_entropy(dist1, dist2):
    """``H(dist1, dist2) = H(dist1) + KL(dist1 || dist2)``."""
    return dist1.entropy + kl_divergence(dist1, dist2)
