"""Chainer's small modules outside chainer.functions: chainer.warnings, chainer.device_resident,
chainer.utils.{meta,nondeterministic,imgproc,error}, chainer.Fallback and get_compute_mode."""

from __future__ import annotations

import warnings

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import device_resident
from fnet.compat.utils import error, imgproc, meta


def test_performance_warning_and_fallback_and_compute_mode():
    assert issubclass(chainer.warnings.PerformanceWarning, RuntimeWarning)
    assert repr(chainer.Fallback) == "Fallback"
    assert chainer.get_compute_mode() is None
    with chainer.using_config("compute_mode", "cudnn_fast"):
        assert chainer.get_compute_mode() == "cudnn_fast"


def test_final_methods_cannot_be_overridden():
    class Base(meta.enable_final()):
        @meta.final
        def step(self):
            return 1

        @meta.final(action=DeprecationWarning)
        def old(self):
            return 2

    with pytest.raises(TypeError, match="Base.step is final"):

        class Child(Base):
            def step(self):
                return 3

    with pytest.warns(DeprecationWarning, match="Base.old is final"):

        class Other(Base):
            def old(self):
                return 4

    assert Other().old() == 4 and chainer.utils.final is meta.final


def test_nondeterministic_warns_only_when_asked():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        chainer.utils.nondeterministic("f")  # not asked: silent
    with chainer.using_config("warn_nondeterministic", True):
        with pytest.warns(UserWarning, match="f: potentially non-deterministic"):
            chainer.utils.nondeterministic("f")


def test_oversample_gives_the_ten_crops_of_chainer():
    image = numpy.arange(35, dtype=numpy.float32).reshape(1, 5, 7)
    crops = imgproc.oversample([image, image + 100], (2, 3))
    assert crops.shape == (20, 1, 2, 3) and crops.dtype == numpy.float32
    # top-left corners of the corners and the center (row 1 = int(2.5 - 1), col 2 = int(3.5 - 1.5))
    assert crops[:5, 0, 0, 0].tolist() == [0, 4, 21, 25, 9]
    numpy.testing.assert_array_equal(crops[5:10], crops[:5, :, :, ::-1])
    numpy.testing.assert_array_equal(crops[10:], crops[:10] + 100)


def test_format_array_props():
    assert error._format_array_props([numpy.zeros((2, 3), numpy.float32), None]) == "(2, 3):float32, None"


def test_device_resident_is_the_links_device_handling():
    link = chainer.links.Linear(2, 3)
    assert isinstance(link, chainer.DeviceResident)

    class Box(chainer.DeviceResident):
        def __init__(self):
            super().__init__()
            self.array = numpy.zeros(2, numpy.float32)

        def device_resident_accept(self, visitor):
            super().device_resident_accept(visitor)
            self.array = visitor.visit_array(self.array)

    box = Box()
    before = box.array
    assert box.to_device("@numpy") is box and box.device == chainer.get_device("@numpy")
    assert box.array is before and box.xp is numpy  # already there: not copied

    class Counting(device_resident.DeviceResidentsVisitor):
        def visit_device_resident(self, device_resident):
            self.seen = device_resident

    with pytest.raises(NotImplementedError, match="define visit_array"):
        box.device_resident_accept(Counting())


def test_variable_repr_str_and_function_node_grad():
    from fnet.compat import function_node, variable

    v = chainer.Variable(numpy.ones(2, numpy.float32), name="x")
    assert variable.variable_repr(v) == repr(v) == "variable x([1., 1.])"
    assert variable.variable_str(v) == str(v) == "variable x([1. 1.])"
    assert function_node.grad is chainer.grad


def test_small_helpers_of_chainers_modules():
    import sys
    import unittest

    from fnet.compat import optimizer
    from fnet.compat.testing import condition
    from fnet.compat.training.extensions import computational_graph

    assert computational_graph.is_return_code_zero([sys.executable, "-c", "pass"])
    assert not computational_graph.is_return_code_zero([sys.executable, "-c", "raise SystemExit(3)"])
    assert not computational_graph.is_return_code_zero(["no-such-command-of-fnet"])
    assert optimizer.make_deprecation_message("Lasso") == (
        "chainer.optimizer.Lasso is deprecated from v4. Use chainer.optimizer_hooks.Lasso instead."
    )
    with pytest.warns(DeprecationWarning, match="chainer.optimizer.Lasso is deprecated from v4"):
        optimizer.Lasso(0.1)

    class Case(unittest.TestCase):
        def test_fails(self):
            self.fail("no")

    result = condition.QuietTestRunner().run(unittest.TestSuite([Case("test_fails")]))
    assert isinstance(result, unittest.TestResult) and len(result.failures) == 1
