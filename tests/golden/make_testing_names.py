"""Golden data for chainer.testing's generated test classes, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``testing_names.json`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_testing_names.py

``build(testing, module)`` decorates a set of test classes with ``testing.parameterize``,
``testing.product``/``product_dict`` and ``testing.inject_backend_tests``, the generated classes
landing in ``module``. ``collect(module)`` lists them in order, each with its test methods,
their pytest marks and what ``str()`` of a test instance adds to the test's name. The test
calls the same ``build`` with ``fnet.compat.testing`` and compares with the JSON;
``failures`` holds the message a failing parameterized test raises. The script needs pytest
in the Chainer venv (Chainer's ``attr.gpu`` checks for it).
"""

from __future__ import annotations

import json
import pathlib
import sys
import types
import unittest

import numpy

OUT = pathlib.Path(__file__).with_name("testing_names.json")


def _f(x):
    return x


class C:
    def method(self, x):
        return x


def _method(name: str, takes_config: bool):
    """A test method called ``name`` that does nothing (with a backend_config argument or not)."""

    def with_config(self, backend_config):
        assert backend_config.device is not None

    def without(self):
        pass

    method = with_config if takes_config else without
    method.__name__ = method.__qualname__ = name
    return method


def build(testing, module) -> None:
    """Decorate the case classes with ``testing``'s decorators; the classes land in ``module``."""

    def case(name, bases=(unittest.TestCase,), backend=(), plain=("test_a",)):
        members = {"__module__": module.__name__}
        for method in plain:
            members[method] = _method(method, takes_config=False)
        for method in backend:
            members[method] = _method(method, takes_config=True)
        return type(name, bases, members)

    testing.parameterize({"x": 1}, {"x": 2.5}, {"x": "abc"}, {"x": None}, {"x": True})(case("TestScalars"))
    testing.parameterize(*testing.product({"a": [1, 2], "b": ["x", "y"]}))(case("TestProduct"))
    testing.parameterize(*testing.product({"a,b": [(1, 2), (3, 4)], "c": [0.5]}))(case("TestCommaNames"))
    testing.parameterize(*testing.product([[{"p": 1}, {"p": 2}], [{"q": 3, "r": 4}]]))(
        case("TestListOfLists")
    )
    testing.parameterize(*testing.product_dict([{"u": 1}, {"u": 2}], [{"v": "s"}]))(case("TestProductDict"))
    testing.parameterize(
        {"dtype": numpy.float32},
        {"dtype": numpy.dtype("float16")},
        {"f": _f},
        {"f": len},
        {"f": lambda x: x},
        {"f": C().method},
        {"m": numpy},
        {"cls": dict},
        {"shape": (3, 2)},
        {"shape": ()},
        {"shape": (1,)},
        {"l": [1, [2, 3]]},
        {"d": {"k": 1, "j": (2,)}},
        {"s": numpy.float32(0.25)},
        {"s": numpy.int64(7)},
        {"z": 1e-05, "y": float("inf"), "w": -0.0},
    )(case("TestKinds"))
    testing.parameterize(
        {"long": "a" * 150},
        {"long": tuple(range(60))},
        {f"k{i:02d}": "v" * 99 for i in range(60)},
        {"edge": "b" * 100},
        {"edge": "c" * 101},
    )(case("TestLong"))
    testing.parameterize({"p1": 1}, {"p1": 2})(
        testing.parameterize({"p2": 3}, {"p2": 4})(case("TestTwice", plain=("test_a", "test_b")))
    )
    testing.parameterize({"n": 1})(case("TestPlain", bases=(object,)))
    testing.inject_backend_tests(
        None,
        [
            {},
            {"use_cuda": True},
            {"use_cuda": True, "cuda_device": 1, "use_cudnn": "always"},
            {"use_chainerx": True, "chainerx_device": "native:0"},
            {"use_ideep": "always"},
            {"use_cudnn": "auto", "cudnn_deterministic": True, "autotune": True},
        ],
    )(case("TestBackends", backend=("test_a", "test_b"), plain=()))
    testing.parameterize({"shape": (2,)}, {"shape": ()})(
        testing.inject_backend_tests(
            ["test_a"],
            [{}, {"use_cuda": True}],
        )(case("TestBackendsSome", backend=("test_a",), plain=("test_c",)))
    )
    testing.inject_backend_tests(None, [{}])(
        testing.parameterize({"t": 1}, {"t": 2})(case("TestParamThenBackend", backend=("test_a",), plain=()))
    )


def _failing_case(module):
    def test_fail(self):
        raise ValueError("boom")

    cls = type("TestFails", (unittest.TestCase,), {"test_fail": test_fail, "__module__": module.__name__})
    return cls


def collect(module) -> list:
    """The classes in ``module``, in order: name, its test methods (sorted, each with the names
    of its pytest marks) and what ``str`` of an instance adds after the test's name."""
    rows = []
    for name, obj in vars(module).items():
        if not isinstance(obj, type) or not name.startswith("Test"):
            continue
        methods = sorted(n for n in dir(obj) if n.startswith("test") and callable(getattr(obj, n)))
        marks = [sorted(m.name for m in getattr(getattr(obj, n), "pytestmark", [])) for n in methods]
        rows.append([name, [list(pair) for pair in zip(methods, marks)], _added_text(obj, methods[0])])
    return rows


def _added_text(cls, method: str):
    """What ``str`` of a unittest case adds after "test_a (module.Class.test_a)"; None for plain
    classes and where it shows an object's address or path (``<...>``)."""
    if not issubclass(cls, unittest.TestCase):
        return None
    text = str(cls(method))[len(f"{method} ({cls.__module__}.{cls.__qualname__}.{method})") :]
    return None if "<" in text else text


def failures(testing, module) -> list:
    """Type and message of the error a failing parameterized test raises."""
    testing.parameterize({"x": 1, "y": "s"})(_failing_case(module))
    cls = getattr(module, "TestFails_param_0_{x=1, y='s'}")
    try:
        cls("test_fail").test_fail()
    except Exception as error:  # the wrapped error, as the test runner sees it
        return [type(error).__name__, str(error)]
    raise AssertionError("the failing case passed")


def fresh_module(name: str):
    module = types.ModuleType(name)
    sys.modules[name] = module
    return module


def main() -> None:
    import chainer
    from chainer import testing

    assert chainer.__version__ == "7.8.1", chainer.__version__
    module = fresh_module("golden_testing_names")
    build(testing, module)
    classes = collect(module)
    failing = failures(testing, fresh_module("golden_testing_failures"))
    OUT.write_text(json.dumps({"classes": classes, "failure": failing}, indent=1) + "\n")
    print(f"wrote {OUT} ({len(classes)} classes)")


if __name__ == "__main__":
    main()
