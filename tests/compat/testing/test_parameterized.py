"""testing.parameterize / product / product_dict: Chainer's generated classes, names and reports."""

from __future__ import annotations

import json
import unittest

import numpy
import pytest

import fnet.compat.testing as testing

from ..._scripts import GOLDEN, load_golden

pytest_plugins = ["pytester"]


def _golden_script():
    """tests/golden/make_testing_names.py, whose ``build`` decorates the same cases here."""
    return load_golden("make_testing_names")


def test_generated_classes_are_chainers(scratch_module):
    """Names (also with long values shortened), order, test methods, their marks, and what str()
    shows: as Chainer 7.8.1 makes them."""
    script = _golden_script()
    script.build(testing, scratch_module)
    golden = json.loads((GOLDEN / "testing_names.json").read_text())
    got = json.loads(json.dumps(script.collect(scratch_module)))
    assert [row[0] for row in got] == [row[0] for row in golden["classes"]]
    assert got == golden["classes"]


def test_failure_report_is_chainers(scratch_module):
    script = _golden_script()
    golden = json.loads((GOLDEN / "testing_names.json").read_text())
    assert script.failures(testing, scratch_module) == golden["failure"]


@pytest.mark.parametrize(
    ("parameter", "expected"),
    [
        ({"a": [1, 2], "b": [3, 4, 5]}, [{"a": a, "b": b} for a in (1, 2) for b in (3, 4, 5)]),
        ({"a": [1, 2]}, [{"a": 1}, {"a": 2}]),
        ({"a": [1, 2], "b": []}, []),
        ({}, [{}]),
        ({"b,a": [(1, 2), (3, 4)]}, [{"b": 1, "a": 2}, {"b": 3, "a": 4}]),
        (
            [[{"a": 1, "b": 3}, {"a": 2, "b": 4}], [{"c": 5}, {"c": 6}]],
            [
                {"a": 1, "b": 3, "c": 5},
                {"a": 1, "b": 3, "c": 6},
                {"a": 2, "b": 4, "c": 5},
                {"a": 2, "b": 4, "c": 6},
            ],
        ),
        ([[{"a": 1}, {"a": 2}], []], []),
        ([], [{}]),
    ],
)
def test_product(parameter, expected):
    assert testing.product(parameter) == expected


def test_product_dict_merges_one_dict_from_each_list():
    assert testing.product_dict([{"a": 1}, {"a": 2}], [{"b": 3, "c": 4}]) == [
        {"a": 1, "b": 3, "c": 4},
        {"a": 2, "b": 3, "c": 4},
    ]


def test_pytest_style_parameters(scratch_module):
    assert testing.from_pytest_parameterize("a,b", [(1, 2), (3, 4)]) == [{"a": 1, "b": 2}, {"a": 3, "b": 4}]
    assert testing.from_pytest_parameterize("a", [(1, 2)]) == [{"a": (1, 2)}]
    bundle = testing.parameterize_pytest("a,b", [(1, 2)])(scratch_module.case("TestPy"))
    assert [case.class_name for case in bundle.cases] == ["TestPy_param_0_{a=1, b=2}"]


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: testing.product((1, 2)), TypeError, "must be either dict or list, got tuple"),
        (lambda: testing.product([{"a": 1}]), TypeError, "list of lists of dicts"),
        (lambda: testing.product({"a,b": [(1, 2, 3)]}), ValueError, "tuple of 2 items"),
        (lambda: testing.parameterize([{"a": 1}]), TypeError, "must be a dict, got list"),
        (lambda: testing.parameterize({"a": 1})(42), TypeError, "expects a class"),
    ],
)
def test_bad_use_is_reported(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_parameters_become_attributes_and_functions_stay_plain(scratch_module):
    def double(x):
        return 2 * x

    bundle = testing.parameterize({"f": double, "x": 3}, {"f": len, "x": [1]})(
        scratch_module.case("TestF", unittest.TestCase, test_it=lambda self: None)
    )
    first, second = (case.klass("test_it") for case in bundle.cases)
    assert first.f(first.x) == 6  # not bound to the instance
    assert second.f(second.x) == 1
    assert not hasattr(scratch_module, "TestF")  # the bare class is not a test


def test_stacked_decorators_replace_the_inner_classes(scratch_module):
    inner = testing.parameterize({"p": 1}, {"p": 2})(scratch_module.case("TestS", unittest.TestCase))
    names = [case.class_name for case in inner.cases]
    assert all(hasattr(scratch_module, n) for n in names)
    outer = testing.parameterize({"q": 3})(inner)
    assert not any(hasattr(scratch_module, n) for n in names)
    assert [case.class_name for case in outer.cases] == [f"{n}_param_0_{{q=3}}" for n in names]
    assert [(c.klass.p, c.klass.q) for c in outer.cases] == [(1, 3), (2, 3)]


def test_a_skip_is_not_reported_as_a_failure(scratch_module):
    def test_skip(self):
        self.skipTest("not here")

    bundle = testing.parameterize({"x": 1})(
        scratch_module.case("TestSkip", unittest.TestCase, test_skip=test_skip)
    )
    with pytest.raises(unittest.SkipTest, match="not here"):
        bundle.cases[0].klass("test_skip").test_skip()


def test_the_report_keeps_the_error_class(scratch_module):
    def test_bad(self):
        raise KeyError("k")

    bundle = testing.parameterize({"dtype": numpy.float16})(
        scratch_module.case("TestBad", unittest.TestCase, test_bad=test_bad)
    )
    with pytest.raises(
        KeyError, match=r"(?s)Base test method: TestBad.test_bad.*dtype: <class 'numpy.float16'>"
    ):
        bundle.cases[0].klass("test_bad").test_bad()


def test_pytest_collects_parameterized_unittest_and_plain_classes(pytester):
    pytester.makepyfile(
        test_inner="""
        import unittest
        from fnet.compat import testing

        @testing.parameterize(*testing.product({'x': [1, 2], 'y': ['a']}))
        class TestUnit(unittest.TestCase):
            def test_x(self):
                assert self.x in (1, 2) and self.y == 'a'

        @testing.parameterize({'n': 3})
        class TestPlain:
            def test_n(self):
                assert self.n == 3
        """
    )
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--collect-only", "-q")
    result.stdout.fnmatch_lines(
        [
            "test_inner.py::TestUnit_param_0_{x=1, y='a'}::test_x",
            "test_inner.py::TestUnit_param_1_{x=2, y='a'}::test_x",
            "test_inner.py::TestPlain_param_0_{n=3}::test_n",
        ]
    )
    assert "TestUnit::" not in result.stdout.str()
    pytester.runpytest_inprocess("-p", "no:cacheprovider").assert_outcomes(passed=3)
