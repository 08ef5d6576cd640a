"""chainer.gradient_check on the Chainer layer: numerical gradients and checks of backward passes,
with values and failure reports compared with Chainer 7.8.1's (golden data).

How close to Chainer: ``numerical_grad`` does Chainer's arithmetic, but the functions it
differentiates call NumPy's transcendentals (sin, exp, tanh, log, power), whose last bits
depend on the CPU's SIMD path (up to 4 ulp from the exact value each, so 8 ulp between two
CPUs). A difference quotient divides that error by ``2 eps``, so the gradients are compared
in ulps of the sampled terms (``assert_ulp_close(..., scale=)``), not of the gradient itself.
Failure reports are compared as text, and the numbers in them to the ulp bound each states.
"""

import json
import re

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import functions as F
from fnet.compat import gradient_check
from fnet.testing import assert_ulp_close

from .._scripts import GOLDEN as GOLDEN_DIR
from .._scripts import load_golden
from .._text import assert_text_close, split_numbers
from .user_functions import MulAddOld, muladd

GOLDEN = json.loads((GOLDEN_DIR / "compat_gradient_check.json").read_text())
CASES = load_golden("make_compat_gradient_check")  # the cases and their inputs, shared with the golden script


def rand(*shape, seed=0, dtype=numpy.float64):
    return numpy.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


# -- numerical_grad ---------------------------------------------------------------------------------
@pytest.mark.parametrize("case, expected", GOLDEN["numerical"], ids=[c["f"] for c, _ in GOLDEN["numerical"]])
def test_numerical_grad_matches_chainer(case, expected):
    f = eval(case["f"], {"np": numpy})
    xs = CASES.inputs(case)
    gys = CASES.grad_outputs(case, f(*xs))
    with numpy.errstate(all="ignore"):
        grads = gradient_check.numerical_grad(
            lambda: f(*xs),
            xs,
            gys,
            eps=case.get("eps", 1e-3),
            detect_nondifferentiable=case.get("detect", False),
        )
    assert isinstance(grads, list) and len(grads) == len(xs)
    # x[i] moves the outputs of x's shape at i only (elementwise functions); the others are sums
    # of the inputs, the same on every CPU. Each moved sample differs between CPUs by at most 9 ulp
    # of 4 (a transcendental, 8 ulp, then one rounding; every term is below 4 in magnitude). The
    # two-point quotient weighs two samples by |gy| / (2 eps), the five-point one four samples by
    # 18 |gy| / (6 eps): 9 and 27 ulp of the scale 4 |gy| / eps, doubled because ulp(a * b) may be
    # up to twice ulp(a) * b.
    ys = [y for y, gy in zip(f(*xs), gys) if gy is not None]
    gys = [gy for gy in gys if gy is not None]
    max_ulp = 54 if case.get("detect", False) else 18
    for g, x, e in zip(grads, xs, expected):
        assert g.dtype == x.dtype
        moved = [abs(numpy.broadcast_to(gy, y.shape)) for gy, y in zip(gys, ys) if y.shape == x.shape]
        scale = 4 * sum(moved, numpy.zeros(x.shape)) / case.get("eps", 1e-3)
        assert_ulp_close(g, numpy.array(e, x.dtype), max_ulp, scale=scale)


def test_numerical_grad_of_the_guide():
    x = rand(4, 3, dtype=numpy.float32)
    gy = numpy.ones((4, 3), dtype=numpy.float32)
    (gx,) = gradient_check.numerical_grad(lambda: (x * x,), (x,), (gy,))
    numpy.testing.assert_allclose(gx, 2 * x, rtol=1e-3)
    numpy.testing.assert_array_equal(x, rand(4, 3, dtype=numpy.float32))  # put back in place


def test_numerical_grad_known_derivatives():
    x, y = rand(3, seed=1), rand(3, seed=2)
    gy = rand(3, seed=3)
    gx, gy_ = gradient_check.numerical_grad(lambda: (numpy.sin(x) * y,), (x, y), (gy,), eps=1e-4)
    numpy.testing.assert_allclose(gx, numpy.cos(x) * y * gy, rtol=1e-6)
    numpy.testing.assert_allclose(gy_, numpy.sin(x) * gy, rtol=1e-6)
    (g5,) = gradient_check.numerical_grad(lambda: (x**5,), (x,), (1.0,), detect_nondifferentiable=True)
    numpy.testing.assert_allclose(g5, 5 * x**4, rtol=1e-9)  # five points: error of order eps**4


def test_the_guides_relu_test_on_variables():
    x = chainer.Variable(rand(3, 2, seed=4, dtype=numpy.float32))
    y = F.relu(x)
    gy = rand(3, 2, seed=5, dtype=numpy.float32)
    y.grad = gy
    y.backward()  # uses up y.grad, as Chainer 7 does
    (gx,) = gradient_check.numerical_grad(lambda: (F.relu(x).array,), (x.array,), (gy,))
    numpy.testing.assert_allclose(gx, x.grad, atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("case, expected", GOLDEN["nondifferentiable"], ids=lambda v: str(v)[:40])
def test_nondifferentiable_points_are_reported_like_chainer(case, expected):
    f = eval(case["f"], {"np": numpy})
    x = numpy.array(case["values"])
    with numpy.errstate(all="ignore"), pytest.raises(gradient_check.NondifferentiableError) as info:
        gradient_check.numerical_grad(
            lambda: f(x),
            (x,),
            (numpy.ones_like(x),),
            eps=case.get("eps", 1e-3),
            detect_nondifferentiable=True,
        )
    first, rest = str(info.value).split("\n", 1)
    assert first.startswith("Tried to compute the numeric gradient on a non-differentiable point")
    # The samples of f (abs, floor, a division) and what is taken of them (max, min, products)
    # round the same on every CPU: exact. The fitting errors are the residuals of LAPACK's least
    # squares, whose rounding depends on the CPU; exact quadratics leave noise of about
    # 20 ulp of the largest |y| (a 5 x 3 Vandermonde matrix, condition below 20): 64 ulp.
    lines, golden_lines = rest.split("\n"), expected.split("\n")
    assert len(lines) == len(golden_lines)
    for line, golden_line in zip(lines, golden_lines):
        if golden_line.startswith("fitting errors: "):
            (ymax,) = [g for g in golden_lines if g.startswith("ymax: ")]
            largest = max(abs(float(y)) for y in split_numbers(ymax)[1])
            assert_text_close(line, golden_line, max_ulp=64, scale=largest)
        else:
            assert line == golden_line


def test_numerical_grad_bad_use():
    x = rand(3)
    with pytest.raises(RuntimeError, match="must be kind of float, got int32 for inputs\\[0\\]"):
        gradient_check.numerical_grad(lambda: (x,), (numpy.arange(3, dtype=numpy.int32),), (None,))
    with pytest.raises(ValueError, match="eps must be positive"):
        gradient_check.numerical_grad(lambda: (x,), (x,), (None,), eps=0)
    with pytest.raises(AssertionError, match="eps must be positive"):  # Chainer's type
        gradient_check.numerical_grad(lambda: (x,), (x,), (None,), eps=-1.0)
    with pytest.raises(TypeError, match="f must return a tuple of arrays, got ndarray"):
        gradient_check.numerical_grad(lambda: x * 2, (x,), (numpy.ones(3),))
    with pytest.raises(ValueError, match="f returned 1 outputs for 2 grad_outputs"):
        gradient_check.numerical_grad(lambda: (x * 2,), (x,), (numpy.ones(3), None))
    with pytest.raises(
        ValueError, match="output 0 has shape \\(3,\\), but its grad_output has shape \\(2,\\)"
    ):
        gradient_check.numerical_grad(lambda: (x * 2,), (x,), (numpy.ones(2),))


# -- check_backward -----------------------------------------------------------------------------------
def test_check_backward_passes_on_correct_functions():
    x, y, z, gw = (rand(3, 2, seed=s) for s in range(4))
    gradient_check.check_backward(muladd, (x, y, z), gw)
    gradient_check.check_backward(F.tanh, x, gw, detect_nondifferentiable=True)
    gradient_check.check_backward(lambda a: F.sum(a * a), x, None)  # a loss: y_grad None
    gradient_check.check_backward(lambda a: F.sum(a * a), [x], None)


def test_check_backward_on_an_old_style_function():
    x, y, z, gw = (rand(3, 2, seed=s) for s in range(4))
    gradient_check.check_backward(lambda *a: MulAddOld()(*a), (x, y, z), gw)


def test_check_backward_checks_parameters_and_restores_them():
    x = rand(3, 2)
    W = chainer.Parameter(rand(4, 2, seed=1))
    b = chainer.Parameter(rand(4, seed=2))
    W_array, b_array = W.array, b.array
    gradient_check.check_backward(lambda a: F.linear(a, W, b), x, rand(3, 4, seed=3), (W, b))
    assert W.array is W_array and b.array is b_array
    gradient_check.check_backward(lambda a: F.linear(a, W, b), x, rand(3, 4, seed=3), W)


def test_check_backward_with_float32_and_a_float64_numerical_gradient():
    x = rand(3, 2, dtype=numpy.float32)
    W = chainer.Parameter(rand(2, 2, seed=1, dtype=numpy.float32))
    gy = rand(3, 2, seed=2, dtype=numpy.float32)
    gradient_check.check_backward(
        lambda a: F.linear(F.sigmoid(a), W), x, gy, W, dtype=numpy.float64, atol=1e-4
    )
    assert W.array.dtype == numpy.float32


def test_check_backward_with_integer_inputs_and_several_outputs():
    x = rand(4, 3)
    t = numpy.array([0, 2, 1, 1], numpy.int32)
    gradient_check.check_backward(F.select_item, (x, t), rand(4, seed=1))

    def split(a):
        first, second = F.split_axis(a, 2, axis=1)
        return F.exp(first), second * 3

    gradient_check.check_backward(split, rand(2, 4), (rand(2, 2, seed=1), None))


@pytest.mark.parametrize("name, seed, expected", GOLDEN["failures"], ids=[f[0] for f in GOLDEN["failures"]])
def test_failures_are_reported_like_chainer(name, seed, expected):
    checks = CASES.failing_checks(chainer, F, gradient_check, numpy)
    numpy.random.seed(seed)
    with pytest.raises(AssertionError) as info:
        checks[name]()
    segments = re.split(CASES.SPLIT, str(info.value), flags=re.DOTALL)
    assert len(segments) == len(expected)
    # The numbers come from random directions (drawn through libm's log, which is not correctly
    # rounded) and from samples of F = sum(y * gy), |F| < 2, some through NumPy's pow (x ** 3):
    # each may move by 4 ulp of 2 between CPUs. The numeric gradient divides such a move by
    # eps = 1e-3, the relative error then by |y[i]| >= 0.018: 8 ulp of 2 / (1e-3 * 0.018).
    for segment, golden in zip(segments, expected):
        assert_text_close(segment, golden, max_ulp=8, scale=2 / (1e-3 * 0.018))


def test_check_backward_fails_on_a_wrong_backward():
    class WrongTanh(chainer.FunctionNode):
        def forward(self, inputs):
            self.retain_outputs((0,))
            return (numpy.tanh(inputs[0]),)

        def backward(self, indexes, grad_outputs):
            (y,) = self.get_retained_outputs()
            return (grad_outputs[0] * (1 + y * y),)  # the sign is wrong

    with pytest.raises(AssertionError, match="check_backward failed \\(eps=0.001 atol=1e-05 rtol=0.0001\\)"):
        gradient_check.check_backward(lambda a: WrongTanh().apply((a,))[0], rand(3), rand(3, seed=1))


def test_a_gradient_for_an_integer_input_is_an_error():
    class LeakyIndex(chainer.FunctionNode):
        def forward(self, inputs):
            return (inputs[0] * 2,)

        def backward(self, indexes, grad_outputs):
            return grad_outputs[0] * 2, grad_outputs[0]

    x = rand(3)
    with pytest.raises(RuntimeError, match="gradient of int variable must be None, but inputs\\[1\\]"):
        gradient_check.check_backward(
            lambda a, t: LeakyIndex().apply((a, t))[0], (x, x), x, no_grads=[False, True]
        )


def test_check_backward_bad_use():
    x = rand(3)
    with pytest.raises(
        ValueError, match="y_grad argument cannot be omitted.*\nActual output shapes: \\(3,\\)"
    ):
        gradient_check.check_backward(lambda a: a * 2, x, None)
    with pytest.raises(
        ValueError, match="do not match.\nOutput shapes and dtypes         : \\(3,\\):float64\n"
    ):
        gradient_check.check_backward(lambda a: a * 2, x, numpy.ones(2))
    with pytest.raises(ValueError, match="must contain equally as many elements"):
        gradient_check.check_backward(lambda a: a * 2, x, (x, x))
    with pytest.raises(ValueError, match="Length of no_grads param and xs should be same.\nActual: 2 != 1"):
        gradient_check.check_backward(lambda a: a * 2, x, x, no_grads=[True, False])
    with pytest.raises(ValueError, match="dtype must be a float type or None, got int32"):
        gradient_check.check_backward(lambda a: a * 2, x, x, dtype=numpy.int32)
    with pytest.raises(TypeError, match="must return a Variable or a tuple of Variables, got ndarray"):
        gradient_check.check_backward(lambda a: a.array * 2, x, x)


def test_the_same_seed_repeats_a_check():
    def failing():
        gradient_check.check_backward(
            lambda a: F.sum(a) * 0 + F.sum(a * a * a), rand(3), None, atol=0, rtol=0
        )

    messages = []
    for _ in range(2):
        numpy.random.seed(11)
        with pytest.raises(AssertionError) as info:
            failing()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


# -- check_double_backward ---------------------------------------------------------------------------
def test_check_double_backward_passes_on_correct_functions():
    x, y, z, gw = (rand(3, 2, seed=s) for s in range(4))
    ggs = tuple(rand(3, 2, seed=s) for s in range(4, 7))
    gradient_check.check_double_backward(lambda *a: muladd(*a) ** 3, (x, y, z), gw, ggs)
    gradient_check.check_double_backward(F.tanh, x, gw, ggs[0])
    gradient_check.check_double_backward(lambda a: F.sum(a**3), x, numpy.ones(()), ggs[0])


def test_check_double_backward_with_parameters():
    x = rand(3, 2)
    W = chainer.Parameter(rand(4, 2, seed=1))
    b = chainer.Parameter(rand(4, seed=2))
    gradient_check.check_double_backward(
        lambda a: F.tanh(F.linear(a, W, b)),
        x,
        rand(3, 4, seed=3),
        rand(3, 2, seed=4),
        params=(W, b),
        params_grad_grad=(rand(4, 2, seed=5), rand(4, seed=6)),
    )


def test_check_double_backward_bad_use():
    x = rand(3)
    with pytest.raises(ValueError, match="y_grad must be given"):
        gradient_check.check_double_backward(lambda a: F.sum(a**3), x, None, x)
    with pytest.raises(ValueError, match="Length of no_grads param and xs should be same.\nActual: 1 != 2"):
        gradient_check.check_double_backward(lambda a: a**3, x, x, x, no_grads=[False])
    gradient_check.check_double_backward(lambda a: a**3, x, x, x, no_grads=[False, False])


# -- assert_allclose ------------------------------------------------------------------------------------
def test_assert_allclose_is_deprecated_here():
    with pytest.warns(DeprecationWarning, match="Use chainer.testing.assert_allclose instead"):
        gradient_check.assert_allclose(numpy.ones(2), numpy.ones(2))
    with pytest.warns(DeprecationWarning), pytest.raises(AssertionError, match="assert_allclose failed"):
        gradient_check.assert_allclose(numpy.ones(2), numpy.zeros(2))


@pytest.mark.parametrize("size", [0, 1, 10, 100])
def test_chainers_private_sample_unit_vector(size):
    numpy.random.seed(size)
    y = gradient_check._CheckBackward._sample_unit_vector(size, numpy)
    assert y.shape == (size,)
    if size:
        numpy.testing.assert_allclose(numpy.square(y).sum(), 1.0, rtol=1e-12)  # float64 sums
        assert abs(y).min() >= 0.1 / numpy.sqrt(size) * (1 - 1e-12)
