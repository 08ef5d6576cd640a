"""The smaller helpers of chainer.testing: requirements, warnings, patch, matrices, serializers,
unary math function tests."""

from __future__ import annotations

import math
import unittest
import warnings

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import functions as F
from fnet.compat import testing


def outcome(test_case: type, method: str) -> str:
    result = unittest.TestResult()
    test_case(method).run(result)
    if result.skipped:
        return "skipped"
    return "passed" if result.wasSuccessful() else "failed"


@pytest.mark.parametrize(
    ("requirement", "with_runs"),
    [("numpy>=1.10", True), ("numpy<1.0", False), ("no-such-package-fnet", False), ("pytest", True)],
)
def test_requirements(scratch_module, requirement, with_runs):
    case = scratch_module.case(
        "TestRequires",
        unittest.TestCase,
        test_with=testing.with_requires(requirement)(lambda self: None),
        test_without=testing.without_requires(requirement)(lambda self: None),
    )
    assert outcome(case, "test_with") == ("passed" if with_runs else "skipped")
    assert outcome(case, "test_without") == ("skipped" if with_runs else "passed")


def test_assert_warns():
    with testing.assert_warns(DeprecationWarning):
        warnings.warn("old", DeprecationWarning, stacklevel=1)
    with (
        pytest.raises(AssertionError, match="RuntimeWarning not triggerred"),
        testing.assert_warns(RuntimeWarning),
    ):
        warnings.warn("other", UserWarning, stacklevel=1)


def test_patch_spies_on_the_real_function():
    x = numpy.array([-1.0, 2.0], numpy.float32)
    with testing.patch("fnet.compat.functions.relu") as relu:
        y = F.relu(x)
    relu.assert_called_once_with(x)
    numpy.testing.assert_array_equal(y.array, [0.0, 2.0])
    with testing.patch("fnet.compat.functions.relu", wraps=lambda v: "wrapped") as relu:
        assert F.relu(x) == "wrapped"
    with pytest.raises(RuntimeError, match="Can't find object fnet.compat.no_such"):
        testing.patch("fnet.compat.no_such.thing")


@pytest.mark.parametrize(
    ("shape", "singular_values"), [((3, 2), [2.0, 0.5]), ((2, 4, 3), [[1, 2, 3], [4, 5, 6]]), ((2, 2), 1.5)]
)
def test_generate_matrix_has_the_singular_values(shape, singular_values):
    a = testing.generate_matrix(shape, dtype=numpy.float64, singular_values=singular_values)
    assert a.shape == shape
    expected = numpy.sort(numpy.broadcast_to(singular_values, shape[:-2] + (min(shape[-2:]),)), axis=-1)[
        ..., ::-1
    ]
    numpy.testing.assert_allclose(numpy.linalg.svd(a, compute_uv=False), expected)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"shape": (2, 2)}, TypeError, "singular_values is not given"),
        ({"shape": (2,), "singular_values": 1}, ValueError, "too few axes"),
        (
            {"shape": (2, 2), "dtype": numpy.int32, "singular_values": 1},
            TypeError,
            "dtype int32 is not supported",
        ),
        ({"shape": (2, 2), "singular_values": 1 + 0j}, TypeError, "not real"),
        ({"shape": (2, 2), "singular_values": [1, -1]}, ValueError, "negative singular value"),
        ({"shape": (0, 2, 2), "singular_values": numpy.ones(3)}, ValueError, "broadcast"),
    ],
)
def test_generate_matrix_refuses(kwargs, error, match):
    with pytest.raises(error, match=match):
        testing.generate_matrix(**kwargs)


class Box:
    """An object following the serializer protocol."""

    def __init__(self, value):
        self.value = value

    def serialize(self, serializer):
        self.value = serializer("value", self.value)


def test_save_and_load_npz():
    source, target = Box(numpy.arange(3)), Box(numpy.zeros(3, numpy.int64))
    testing.save_and_load_npz(source, target)
    numpy.testing.assert_array_equal(target.value, [0, 1, 2])


def test_save_and_load_hdf5():
    pytest.importorskip("h5py")
    source, target = Box(numpy.arange(3)), Box(numpy.zeros(3, numpy.int64))
    testing.save_and_load_hdf5(source, target)
    numpy.testing.assert_array_equal(target.value, [0, 1, 2])


def test_save_and_load_with_any_saver(tmp_path):
    calls = []
    testing.save_and_load(
        "a",
        "b",
        "f.bin",
        lambda path, obj: calls.append(("save", obj)),
        lambda path, obj: calls.append(("load", obj)),
    )
    assert calls == [("save", "a"), ("load", "b")]


def test_unary_math_function_unittest_makes_the_tests(scratch_module):
    bundle = testing.unary_math_function_unittest(F.sin)(scratch_module.case("TestSin", unittest.TestCase))
    assert [case.class_name for case in bundle.cases] == [
        f"TestSin_param_{i}_{{dtype={dtype}, shape={shape}}}"
        for i, (dtype, shape) in enumerate(
            (d, s) for d in ("float16", "float32", "float64") for s in ("(3, 2)", "()")
        )
    ]
    case = bundle.cases[2].klass  # float32, (3, 2)
    for method in ("test_forward_cpu", "test_backward_cpu", "test_double_backward_cpu"):
        assert outcome(case, method) == "passed", method
    assert outcome(case, "test_forward_gpu") in ("passed", "skipped")


def test_unary_math_function_unittest_finds_wrong_functions(scratch_module):
    def sin(x):
        return F.cos(x)

    bundle = testing.unary_math_function_unittest(sin)(scratch_module.case("TestWrongSin", unittest.TestCase))
    assert outcome(bundle.cases[2].klass, "test_forward_cpu") == "failed"


def test_unary_math_function_unittest_refuses():
    def dummy(x):
        return x

    with pytest.raises(ValueError, match="NumPy has no functions corresponding to Chainer function 'dummy'"):
        testing.unary_math_function_unittest(dummy)
    with pytest.raises(ValueError, match="label_expected is given even though"):
        testing.unary_math_function_unittest(F.sin, label_expected="sin")
    with pytest.raises(TypeError, match="decorates a unittest.TestCase subclass"):
        testing.unary_math_function_unittest(F.sin)(object)


def test_unary_math_function_unittest_with_an_old_style_function(scratch_module):
    class Exp(chainer.Function):
        def forward(self, inputs):
            return (numpy.exp(inputs[0]),)

        def backward(self, inputs, grad_outputs):
            return (numpy.exp(inputs[0]) * grad_outputs[0],)

    bundle = testing.unary_math_function_unittest(Exp(), label_expected="Exp")(
        scratch_module.case("TestExp", unittest.TestCase)
    )
    case = bundle.cases[2].klass
    assert not hasattr(case, "test_double_backward_cpu")
    for method in ("test_forward_cpu", "test_backward_cpu", "test_label"):
        assert outcome(case, method) == "passed", method


def test_run_module_does_nothing_when_imported():
    testing.run_module("some.module", __file__)


@pytest.mark.parametrize("iter_per_epoch", [0.5, 1.5, 5])
@pytest.mark.parametrize("stop_trigger", [(5, "iteration"), (5, "epoch")])
def test_trainer_with_mock_updater_counts_like_an_updater(
    stop_trigger, iter_per_epoch, monkeypatch, tmp_path
):
    monkeypatch.chdir(tmp_path)  # the trainer makes its out folder, Chainer's default "result", here
    seen = []
    trainer = testing.get_trainer_with_mock_updater(stop_trigger, iter_per_epoch)
    trainer.extend(lambda t: seen.append(t.updater.iteration))
    trainer.run()
    count = stop_trigger[0] if stop_trigger[1] == "iteration" else math.ceil(stop_trigger[0] * iter_per_epoch)
    assert seen == list(range(1, count + 1))
    updater = trainer.updater
    assert updater.epoch == count // iter_per_epoch and updater.epoch_detail == count / iter_per_epoch
    assert updater.previous_epoch_detail == (count - 1) / iter_per_epoch
    assert updater.is_new_epoch == ((count - 1) // iter_per_epoch != count // iter_per_epoch)
    assert updater.update_core.call_count == count
