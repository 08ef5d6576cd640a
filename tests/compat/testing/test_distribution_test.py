"""Tests of chainer.testing.distribution_unittest: its targets pass for a right distribution,
fail for a wrong one, skip when not asked for, and check SciPy one batch element at a time."""

from __future__ import annotations

import unittest

import numpy
from scipy import stats

from fnet.compat import distributions, testing


def _case(scipy_dist, targets, onebyone=False):
    class Case(testing.distribution_unittest):
        shape = (3, 2)
        sample_shape = (4,)
        is_variable = True
        scipy_onebyone = onebyone

        def setUp_configure(self):
            rng = numpy.random.RandomState(0)
            loc = rng.normal(size=self.shape).astype(numpy.float32)
            scale = rng.uniform(0.5, 2, size=self.shape).astype(numpy.float32)
            self.dist = distributions.Normal
            self.scipy_dist = scipy_dist
            self.params = {"loc": loc, "scale": scale}
            self.scipy_params = {"loc": loc, "scale": scale}
            self.test_targets = set(targets)

        def sample_for_test(self):
            return numpy.random.normal(size=self.sample_shape + self.shape).astype(numpy.float32)

    return Case


def _run(case, names):
    result = unittest.TestResult()
    unittest.TestSuite(case(name) for name in names).run(result)
    return result


ALL = ["batch_shape", "event_shape", "support", "cdf", "log_cdf", "survival", "log_survival", "prob"]
ALL += ["log_prob", "icdf", "mean", "variance", "stddev", "entropy", "sample"]


def test_every_target_passes_for_the_right_distribution_one_by_one_or_not():
    for onebyone in (False, True):
        result = _run(_case(stats.norm, ALL, onebyone), [f"test_{t}_cpu" for t in ALL])
        assert result.wasSuccessful(), (onebyone, result.failures + result.errors)
        assert result.testsRun == len(ALL)


def test_a_wrong_distribution_fails_its_numeric_targets():
    numeric = [t for t in ALL if t not in ("batch_shape", "event_shape", "support", "mean")]
    result = _run(_case(stats.logistic, numeric), [f"test_{t}_cpu" for t in numeric])
    assert len(result.failures) == len(numeric)


def test_a_target_not_asked_for_skips_and_an_unknown_one_is_an_error():
    result = _run(_case(stats.norm, ["mean"]), ["test_cdf_cpu"])
    assert len(result.skipped) == 1 and "'cdf' does not exist in test_targets" in result.skipped[0][1]
    result = _run(_case(stats.norm, ["mean", "median"]), ["test_mean_cpu"])
    assert len(result.errors) == 1 and "invalid target(s): {'median'}" in result.errors[0][1]


def test_pytest_collects_the_subclasses_not_the_base():
    assert testing.distribution_unittest.__test__ is False
    assert _case(stats.norm, ["mean"]).__test__ is True


def test_a_case_overrides_chainers_check_of_a_target():
    class Override(_case(stats.logistic, ["log_prob"])):  # wrong SciPy: the base check would fail
        def check_log_prob(self, is_gpu):
            self.checked = is_gpu

    case = Override("test_log_prob_cpu")
    result = unittest.TestResult()
    case.run(result)
    assert result.wasSuccessful() and case.checked is False
    assert not _run(_case(stats.logistic, ["log_prob"]), ["test_log_prob_cpu"]).wasSuccessful()
