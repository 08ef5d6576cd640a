"""``unary_math_function_unittest``: the standard tests of an elementwise function of one input."""

from __future__ import annotations

import unittest
import warnings

import numpy

from ... import backend
from .. import functions, gradient_check
from ..function_node import Function
from ..variable import Variable
from . import attr
from ._util import availability
from .array import assert_allclose
from .parameterized import parameterize, product

__all__ = ["unary_math_function_unittest"]

is_available, check_available, get_error = availability(__name__)  # whether pytest is there


def _func_name(func) -> str:
    return type(func).__name__.lower() if isinstance(func, Function) else func.__name__


def _func_class(func):
    """The class whose instances' ``label`` the function should show, if there is one."""
    if isinstance(func, Function):
        return type(func)
    return getattr(functions, func.__name__.capitalize(), None)


def _uniform_data(shape, dtype) -> tuple:
    return tuple(numpy.random.uniform(-1, 1, shape).astype(dtype, copy=False) for _ in range(3))


def _squared(func):
    def nonlinear(x):
        y = func(x)
        return y * y

    return nonlinear


def _tolerances(dtype, forward_options, backward_options, double_backward_options) -> tuple[dict, dict, dict]:
    """The options of the forward, backward and double backward checks for ``dtype``, updated
    with the ones given."""
    if dtype == numpy.float16:
        eps = float(numpy.finfo(numpy.float16).eps)
        forward = {"atol": eps, "rtol": eps}
        backward = {"eps": 2**-4, "atol": 2**-4, "rtol": 2**-4, "dtype": numpy.float64}
    else:
        forward = {"atol": 1e-4, "rtol": 1e-4}
        backward = {"dtype": numpy.float64, "atol": 1e-4, "rtol": 1e-4}
    double_backward = dict(backward)
    for options, given in (
        (forward, forward_options),
        (backward, backward_options),
        (double_backward, double_backward_options),
    ):
        options.update(given or {})
    return forward, backward, double_backward


def _to_gpu(array):
    return backend.GpuDevice(0).send(array)


def unary_math_function_unittest(
    func,
    func_expected=None,
    label_expected=None,
    make_data=None,
    is_linear=None,
    forward_options=None,
    backward_options=None,
    double_backward_options=None,
):
    """A class decorator adding the standard tests of the elementwise function ``func`` to a
    ``unittest.TestCase``: forward against ``func_expected`` (by default NumPy's function of the
    same name, called as ``func_expected(x, dtype=x.dtype)``), backward and double backward
    against numerical gradients, on the CPU and the GPU, for shapes ``(3, 2)`` and ``()`` and
    dtypes float16, float32, float64 (the class is parameterized with ``shape`` and ``dtype``).

    ``make_data(shape, dtype)`` returns the input, output gradient and second-order input
    gradient (uniform in [-1, 1] by default); ``forward_options`` (for ``assert_allclose``),
    ``backward_options`` and ``double_backward_options`` (for ``gradient_check``) update the
    default tolerances. ``func`` may also be an old-style ``Function`` instance (then there is
    no double backward test). ``is_linear`` is deprecated and ignored but for squaring the
    output in the double backward test.

    >>> import unittest
    >>> import fnet.compat.functions as F
    >>> @unary_math_function_unittest(F.sin)
    ... class TestSin(unittest.TestCase):
    ...     pass
    """
    new_style = not isinstance(func, Function)
    func_name = _func_name(func)
    func_class = _func_class(func)
    if func_expected is None:
        func_expected = getattr(numpy, func_name, None)
        if func_expected is None:
            raise ValueError(f"NumPy has no functions corresponding to Chainer function '{func_name}'.")
    if label_expected is None:
        label_expected = func_name
    elif func_class is None:
        raise ValueError(
            f"unary_math_function_unittest: label_expected is given even though Chainer function "
            f"'{func_name}' does not have its label."
        )
    if make_data is None:
        make_data = _uniform_data if new_style else (lambda shape, dtype: _uniform_data(shape, dtype)[:2])
    if is_linear is not None:
        warnings.warn("is_linear option is deprecated", DeprecationWarning, stacklevel=2)
    double_func = _squared(func) if is_linear else func

    def decorate(klass):
        if not (isinstance(klass, type) and issubclass(klass, unittest.TestCase)):
            raise TypeError(
                f"unary_math_function_unittest decorates a unittest.TestCase subclass, got {klass!r}"
            )

        def setUp(self):
            data = make_data(self.shape, self.dtype)
            self.x, self.gy = data[:2]
            if new_style:
                self.ggx = data[2]
            self.forward_options, self.backward_options, self.double_backward_options = _tolerances(
                self.dtype, forward_options, backward_options, double_backward_options
            )

        def check_forward(self, x_data):
            y = func(Variable(x_data))
            self.assertEqual(y.data.dtype, x_data.dtype)
            expected = func_expected(backend.CPU.send(x_data), dtype=x_data.dtype)
            assert_allclose(expected, y.data, **self.forward_options)

        def check_backward(self, x_data, y_grad):
            gradient_check.check_backward(func, x_data, y_grad, **self.backward_options)

        def check_double_backward(self, x_data, y_grad, x_grad_grad):
            gradient_check.check_double_backward(
                double_func, x_data, y_grad, x_grad_grad, **self.double_backward_options
            )

        def test_forward_cpu(self):
            self.check_forward(self.x)

        @attr.gpu
        def test_forward_gpu(self):
            self.check_forward(_to_gpu(self.x))

        def test_backward_cpu(self):
            self.check_backward(self.x, self.gy)

        @attr.gpu
        def test_backward_gpu(self):
            self.check_backward(_to_gpu(self.x), _to_gpu(self.gy))

        def test_double_backward_cpu(self):
            self.check_double_backward(self.x, self.gy, self.ggx)

        @attr.gpu
        def test_double_backward_gpu(self):
            self.check_double_backward(_to_gpu(self.x), _to_gpu(self.gy), _to_gpu(self.ggx))

        def test_label(self):
            self.assertEqual(func_class().label, label_expected)

        members = [setUp, check_forward, test_forward_cpu, test_forward_gpu]
        members += [check_backward, test_backward_cpu, test_backward_gpu]
        if new_style:
            members += [check_double_backward, test_double_backward_cpu, test_double_backward_gpu]
        if func_class is not None:
            members.append(test_label)
        for member in members:
            setattr(klass, member.__name__, member)
        return parameterize(
            *product({"shape": [(3, 2), ()], "dtype": [numpy.float16, numpy.float32, numpy.float64]})
        )(klass)

    return decorate
