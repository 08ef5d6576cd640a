"""testing.attr: pytest marks that skip tests needing what is not here."""

from __future__ import annotations

import unittest

import pytest

import fnet
from fnet.compat import testing
from fnet.compat.testing import attr

pytest_plugins = ["pytester"]


def marks(obj) -> list[str]:
    return sorted(m.name for m in getattr(obj, "pytestmark", []))


def test_nothing():
    """A test function to decorate (pytest marks only named functions, not lambdas)."""


@pytest.fixture
def gpus(monkeypatch):
    """Pretend that CuPy sees ``n`` devices: ``gpus(n)``."""
    monkeypatch.delenv("CHAINER_TEST_GPU_LIMIT", raising=False)
    return lambda n: monkeypatch.setattr(attr, "_gpu_count", lambda: n)


def test_gpu_marks_and_skips_without_a_device(gpus):
    gpus(0)
    ran = []

    @attr.gpu
    def test_on_gpu():
        ran.append(True)

    assert marks(test_on_gpu) == ["gpu"]
    assert test_on_gpu.__name__ == "test_on_gpu"
    with pytest.raises(unittest.SkipTest, match="needs CuPy and a CUDA device"):
        test_on_gpu()
    gpus(1)
    test_on_gpu()
    assert ran == [True]


def test_multi_gpu_needs_enough_devices(gpus, monkeypatch):
    gpus(1)
    test_two = attr.multi_gpu(2)(test_nothing)
    with pytest.raises(unittest.SkipTest, match="2 GPUs required, CuPy sees 1"):
        test_two()
    gpus(4)
    test_two()
    monkeypatch.setenv("CHAINER_TEST_GPU_LIMIT", "1")
    with pytest.raises(unittest.SkipTest, match=r"2 GPUs required \(CHAINER_TEST_GPU_LIMIT=1\)"):
        test_two()


def test_the_gpu_count_asks_cupy_only_when_it_is_there(monkeypatch):
    monkeypatch.setattr(fnet.backend, "cupy_available", lambda: False)
    assert attr._gpu_count() == 0


def test_ideep_always_skips():
    test = attr.ideep(test_nothing)
    assert marks(test) == ["ideep"]
    with pytest.raises(unittest.SkipTest, match="iDeep is not available in fnet"):
        test()


def test_chainerx_only_marks():
    def test_on_chainerx():
        return 42

    assert attr.chainerx(test_on_chainerx) is test_on_chainerx
    assert marks(test_on_chainerx) == ["chainerx"] and test_on_chainerx() == 42


def test_cudnn_needs_a_gpu(gpus):
    gpus(0)
    test = attr.cudnn(test_nothing)
    assert marks(test) == ["cudnn"]
    with pytest.raises(unittest.SkipTest):
        test()


def test_slow_only_marks():
    def test_long():
        return 42

    assert attr.slow(test_long) is test_long
    assert marks(test_long) == ["slow"] and test_long() == 42


def test_classes_and_bundles_are_skipped_when_decorated(gpus, scratch_module):
    gpus(0)
    unit = attr.gpu(scratch_module.case("TestUnit", unittest.TestCase))
    assert unit.__unittest_skip__ and unit.__unittest_skip_why__ == "needs CuPy and a CUDA device"
    plain = attr.ideep(scratch_module.case("TestPlain"))
    assert marks(plain) == ["ideep", "skip"]
    bundle = attr.gpu(
        testing.parameterize({"x": 1}, {"x": 2})(scratch_module.case("TestMany", unittest.TestCase))
    )
    assert all(case.klass.__unittest_skip__ and marks(case.klass) == ["gpu"] for case in bundle.cases)


def test_outcomes_under_pytest(pytester):
    pytester.makeini("[pytest]\nmarkers =\n    gpu: g\n    chainerx: x\n    ideep: i\n    slow: s\n")
    pytester.makepyfile(
        test_inner="""
        import unittest
        from fnet.compat.testing import attr

        @attr.gpu
        def test_gpu():
            pass

        @attr.chainerx
        class TestX(unittest.TestCase):
            def test_x(self):
                pass

        @attr.ideep
        class TestI:
            def test_i(self):
                pass

        @attr.slow
        def test_slow():
            pass
        """
    )
    monkey = pytest.MonkeyPatch()
    monkey.setattr(attr, "_gpu_count", lambda: 0)
    try:
        result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "-rs")
        result.assert_outcomes(passed=2, skipped=2)
        result.stdout.fnmatch_lines(
            ["*needs CuPy and a CUDA device*", "*iDeep is not available in fnet*"], consecutive=False
        )
        pytester.runpytest_inprocess("-p", "no:cacheprovider", "-m", "not slow").assert_outcomes(
            passed=1, skipped=2, deselected=1
        )
    finally:
        monkey.undo()


def test_testing_modules_say_whether_pytest_is_available(monkeypatch):
    from fnet.compat.testing import _util, training, unary_math_function_test

    for module in (attr, training, unary_math_function_test):
        assert module.is_available() and module.get_error() is None
        module.check_available()
    missing = ImportError("No module named 'pytest'")
    monkeypatch.setattr(_util, "_pytest_import_error", lambda: missing)
    assert not attr.is_available() and attr.get_error() is missing
    with pytest.raises(RuntimeError, match=r"chainer.testing.attr is not available: it needs pytest"):
        attr.check_available()
