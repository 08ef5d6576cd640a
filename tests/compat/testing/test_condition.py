"""testing.condition: repeat, retry and repeat_with_success_at_least, for unittest and pytest tests."""

from __future__ import annotations

import itertools
import unittest

import pytest

from fnet.compat.testing import condition

pytest_plugins = ["pytester"]


class Recorder(unittest.TestCase):
    """A unittest case whose methods are decorated inside the tests; it counts what ran."""

    log: list = []
    outcomes = None  # an iterator of True (pass) / False (fail) for ``sometimes``

    def setUp(self):
        Recorder.log.append(("setUp", self))

    def tearDown(self):
        Recorder.log.append(("tearDown", self))

    def passes(self):
        Recorder.log.append(("run", self))

    def fails(self):
        Recorder.log.append(("run", self))
        self.fail("always wrong")

    def errs(self):
        Recorder.log.append(("run", self))
        raise KeyError("broken")

    def sometimes(self):
        Recorder.log.append(("run", self))
        assert next(Recorder.outcomes), "unlucky"

    def skips(self):
        Recorder.log.append(("run", self))
        self.skipTest("not today")

    def skips_pytest_style(self):
        Recorder.log.append(("run", self))
        pytest.skip("not today either")

    def runTest(self):
        pass


@pytest.fixture(autouse=True)
def fresh_log():
    Recorder.log = []
    yield


def runs() -> int:
    return sum(1 for event, _ in Recorder.log if event == "run")


def run(decorator, method: str, outcomes=()):
    Recorder.outcomes = iter(outcomes)
    decorator(getattr(Recorder, method))(Recorder())


def test_repeat_runs_every_trial_on_a_fresh_instance_with_setup_and_teardown():
    run(condition.repeat(3), "passes")
    assert runs() == 3
    events = [e for e, _ in Recorder.log]
    assert events == ["setUp", "run", "tearDown"] * 3
    instances = {id(i) for _, i in Recorder.log}  # the log keeps them alive: ids are unique
    assert len(instances) == 3


def test_repeat_stops_at_the_first_failure_and_shows_it():
    with pytest.raises(
        AssertionError, match=r"(?s)^\nFail: 1, Success: 0\n\nThe first error message:\n.*always wrong"
    ):
        run(condition.repeat(10), "fails")
    assert runs() == 1


def test_errors_count_as_failures():
    with pytest.raises(AssertionError, match=r"(?s)Fail: 10, Success: 0.*KeyError: 'broken'"):
        run(condition.retry(10), "errs")
    assert runs() == 10


def test_retry_passes_at_the_first_success():
    run(condition.retry(10), "sometimes", [False, False, True])
    assert runs() == 3


@pytest.mark.parametrize(
    ("times", "min_success", "passes", "trials"),
    [(10, 5, True, 10), (10, 6, False, 9), (4, 3, False, 3), (10, 0, True, 1)],
)
def test_repeat_with_success_at_least(times, min_success, passes, trials):
    """Alternating failure and success: it stops once passing is certain, or impossible."""
    outcomes = itertools.cycle([False, True])
    if passes:
        run(condition.repeat_with_success_at_least(times, min_success), "sometimes", outcomes)
    else:
        with pytest.raises(AssertionError, match=r"Fail: \d+, Success: \d+"):
            run(condition.repeat_with_success_at_least(times, min_success), "sometimes", outcomes)
    assert runs() == trials


def test_min_success_above_times_is_refused():
    with pytest.raises(AssertionError, match=r"min_success \(11\) must not exceed times \(10\)"):
        condition.repeat_with_success_at_least(10, 11)


@pytest.mark.parametrize(
    ("method", "reason"), [("skips", "not today"), ("skips_pytest_style", "not today either")]
)
def test_a_skipped_trial_skips_the_test(method, reason):
    with pytest.raises(unittest.SkipTest, match=reason):
        run(condition.repeat(10), method)
    assert runs() == 1


def test_pytest_classes_and_functions(pytester):
    pytester.makepyfile(
        test_inner="""
        import pytest
        from fnet.compat.testing import condition

        events = []
        draws = iter([False, True, True, False])

        class TestPlain:
            def setup_method(self, method):
                events.append(('setup', self))

            def teardown_method(self, method):
                events.append(('teardown', self))

            @condition.repeat(3)
            def test_repeated(self, tmp_path):
                events.append(('run', self))
                assert tmp_path.exists()

        @condition.retry(3)
        def test_function(tmp_path):
            assert next(draws)

        @condition.repeat(2)
        def test_function_failing():
            assert next(draws)

        @condition.retry(5)
        def test_function_skipped():
            pytest.skip('no luck')

        def test_trials_had_their_own_instances():
            runs = [id(i) for e, i in events if e == 'run']  # events keep them alive: ids are unique
            assert len(runs) == 3 and len(set(runs)) == 3
            # the outer instance (set up by pytest) and one per trial
            assert sum(1 for e, _ in events if e == 'setup') == 4
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rs")
    result.assert_outcomes(passed=3, failed=1, skipped=1)
    result.stdout.fnmatch_lines(["*Fail: 1, Success: 1*", "*SKIPPED*no luck*"])
