"""``distribution_unittest``: the standard tests of a distribution, against ``scipy.stats``.

A test case subclasses it and, in ``setUp_configure``, sets ``dist`` (the class), ``scipy_dist``,
``params`` and ``scipy_params``, ``test_targets`` (which of :data:`TARGETS` to run), and where
they differ from the defaults ``support``, ``event_shape``, ``continuous`` and ``options``
(extra constructor arguments). Its parameterization gives ``shape``, ``sample_shape`` and
``is_variable``; it defines ``sample_for_test()``. With ``scipy_onebyone``, SciPy is called
once per batch element with that element's parameters (for distributions SciPy cannot
broadcast). Each target ``t`` becomes ``test_t_cpu`` and ``test_t_gpu``, which call
``check_t(is_gpu)`` (a test case may override it, as in Chainer) where ``t`` is a value; a target not asked
for skips.
"""

from __future__ import annotations

import unittest

import numpy

from ..backends import cuda
from ..variable import Variable
from . import attr
from .array import assert_allclose

__all__ = ["distribution_unittest", "TARGETS"]

# target -> (what it checks, the distribution's member, SciPy's function). ``kind`` is one of
# "attribute" (equal to the test case's attribute of the same name), "at samples" (a function
# of sample_for_test()), "at quantiles" (a function of uniform draws in (0, 1)), "moment" (a
# property), "sample". A member of None is the target's name; a SciPy name of None means the
# density or mass function, by ``continuous``.
TARGETS: dict[str, tuple[str, str | None, str | None]] = {
    "batch_shape": ("attribute", None, None),
    "event_shape": ("attribute", None, None),
    "support": ("attribute", None, None),
    "cdf": ("at samples", None, "cdf"),
    "log_cdf": ("at samples", None, "logcdf"),
    "survival": ("at samples", "survival_function", "sf"),
    "log_survival": ("at samples", "log_survival_function", "logsf"),
    "prob": ("at samples", None, None),
    "log_prob": ("at samples", None, None),
    "icdf": ("at quantiles", None, "ppf"),
    "mean": ("moment", None, "mean"),
    "variance": ("moment", None, "var"),
    "stddev": ("moment", None, "std"),
    "entropy": ("moment", None, "entropy"),
    "sample": ("sample", None, "rvs"),
}

# The targets that SciPy evaluates one batch element at a time under ``scipy_onebyone``.
_ONE_BY_ONE = {"log_prob", "mean", "variance", "entropy", "sample"}

_SAMPLES = 100000  # draws compared by their mean and standard deviation


class distribution_unittest(unittest.TestCase):  # noqa: N801  (Chainer's name)
    """The standard tests of a distribution (see the module's text)."""

    scipy_onebyone = False
    __test__ = False  # pytest collects the test cases that subclass it, not the base itself

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        cls.__test__ = True

    def setUp(self):
        self.support = "real"
        if not hasattr(self, "event_shape"):
            self.event_shape = ()
        self.continuous = True
        self.test_targets = set()
        self.options = {}
        self.setUp_configure()
        unknown = self.test_targets - set(TARGETS)
        if unknown:
            raise ValueError(f"invalid target(s): {unknown}; the targets are {sorted(TARGETS)}")
        if self.is_variable:
            self.params = {k: Variable(v) for k, v in self.params.items()}

    @property
    def cpu_dist(self):
        return self.dist(**self.params, **self.options)

    @property
    def gpu_dist(self):
        params = {k: cuda.to_gpu(v.array if isinstance(v, Variable) else v) for k, v in self.params.items()}
        if self.is_variable:
            params = {k: Variable(v) for k, v in params.items()}
        return self.dist(**params, **self.options)

    def scipy_onebyone_params_iter(self):
        """SciPy's parameters of each batch element, in ``numpy.ndindex(shape)`` order."""
        for index in numpy.ndindex(self.shape):
            yield {k: v[index] for k, v in self.scipy_params.items()}

    def _scipy(self, target: str):
        scipy_name = TARGETS[target][2]
        if scipy_name is None:
            scipy_name = ("log" if target == "log_prob" else "") + ("pdf" if self.continuous else "pmf")
        return getattr(self.scipy_dist, scipy_name)

    def _one_by_one(self, target: str) -> bool:
        return self.scipy_onebyone and target in _ONE_BY_ONE

    def _expected_at(self, target: str, x):
        """SciPy's value of ``target`` at ``x`` (of shape sample_shape + shape + event_shape)."""
        scipy = self._scipy(target)
        if not self._one_by_one(target):
            return scipy(x, **self.scipy_params)
        lead = (slice(None),) * len(self.sample_shape)
        out = numpy.empty(self.sample_shape + self.shape)
        for index, one in zip(numpy.ndindex(self.shape), self.scipy_onebyone_params_iter()):
            out[lead + index] = scipy(x[lead + index], **one)
        return out

    def _expected_moment(self, target: str):
        scipy = self._scipy(target)
        if not self._one_by_one(target):
            return scipy(**self.scipy_params)
        values = numpy.stack([numpy.asarray(scipy(**one)) for one in self.scipy_onebyone_params_iter()])
        return values.reshape(self.shape + values.shape[1:])

    def _expected_samples(self, event_shape: tuple):
        size = (_SAMPLES, *self.sample_shape)
        if not self._one_by_one("sample"):
            return self.scipy_dist.rvs(size=size + self.shape, **self.scipy_params)
        out = numpy.empty(size + self.shape + event_shape)
        lead = (slice(None),) * len(size)
        for index, one in zip(numpy.ndindex(self.shape), self.scipy_onebyone_params_iter()):
            out[lead + index] = self.scipy_dist.rvs(size=size, **one)
        return out

    def _check(self, target: str, gpu: bool) -> None:
        kind, member, _ = TARGETS[target]
        member = member or target
        dist = self.gpu_dist if gpu else self.cpu_dist
        send = cuda.to_gpu if gpu else (lambda a: a)
        if kind == "attribute":
            self.assertEqual(
                getattr(dist, member), getattr(self, "shape" if target == "batch_shape" else target)
            )
        elif kind in ("at samples", "at quantiles"):
            if kind == "at samples":
                x = self.sample_for_test()
            else:
                x = numpy.random.uniform(1e-5, 1 - 1e-5, self.sample_shape + self.shape).astype(numpy.float32)
            assert_allclose(getattr(dist, member)(send(x)).array, self._expected_at(target, x))
        elif kind == "moment":
            assert_allclose(getattr(dist, member).array, self._expected_moment(target))
        else:
            drawn = cuda.to_cpu(dist.sample(sample_shape=(_SAMPLES, *self.sample_shape)).array)
            expected = self._expected_samples(dist.event_shape)
            assert_allclose(drawn.mean(axis=0), expected.mean(axis=0), atol=3e-2, rtol=3e-2)
            assert_allclose(drawn.std(axis=0), expected.std(axis=0), atol=3e-2, rtol=3e-2)


def _test(target: str, gpu: bool):
    def test(self):
        if target not in self.test_targets:
            self.skipTest(f"'{target}' does not exist in test_targets.")
        check = getattr(self, f"check_{target}", None)  # a test case may override Chainer's check_<target>
        check(gpu) if check is not None else self._check(target, gpu)

    test.__name__ = f"test_{target}_{'gpu' if gpu else 'cpu'}"
    test.__qualname__ = f"distribution_unittest.{test.__name__}"
    return attr.gpu(test) if gpu else test


def _checker(target: str):
    def check(self, is_gpu: bool) -> None:
        self._check(target, is_gpu)

    check.__name__ = f"check_{target}"
    check.__qualname__ = f"distribution_unittest.{check.__name__}"
    return check


for _target in TARGETS:
    if TARGETS[_target][0] != "attribute":  # Chainer's checks of values, which a test case may override
        setattr(distribution_unittest, f"check_{_target}", _checker(_target))
    for _gpu in (False, True):
        _method = _test(_target, _gpu)
        setattr(distribution_unittest, _method.__name__, _method)
del _target, _gpu, _method
