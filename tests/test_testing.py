"""Tests of fnet.testing: gradient checks must pass on right VJPs and fail on wrong ones."""

from __future__ import annotations

import importlib

import numpy
import pytest

import fnet
from fnet import ops, testing


def x64(*values):
    return numpy.array(values, dtype=numpy.float64)


def _cube(x):
    return x * x * x


@pytest.fixture
def good_cube(scratch_primitive):
    return scratch_primitive(_cube, lambda g, ans, x: ops.multiply(g, ops.multiply(3.0, ops.square(x))))


@pytest.fixture
def wrong_cube(scratch_primitive):
    return scratch_primitive(_cube, lambda g, ans, x: ops.multiply(g, ops.multiply(2.0, ops.square(x))))


@pytest.fixture
def first_order_only_cube(scratch_primitive):
    # right values, but stop_gradient hides x from a second differentiation
    return scratch_primitive(
        _cube, lambda g, ans, x: ops.multiply(g, ops.multiply(3.0, ops.square(fnet.stop_gradient(x))))
    )


def test_check_grads_passes_on_a_right_vjp(good_cube):
    x = x64(0.5, -1.3, 2.0)
    testing.check_grads(good_cube, (x,), order=1)
    testing.check_grads(good_cube, (x,), order=2)
    testing.check_grads(good_cube, (x,), order=3)


def test_check_grads_fails_on_a_wrong_vjp(wrong_cube):
    with pytest.raises(
        AssertionError, match=r"check_vjp: the VJP of test__cube disagrees with central differences"
    ):
        testing.check_grads(wrong_cube, (x64(0.5, -1.3),), order=1)


def test_check_grads_fails_at_order_2_on_a_vjp_that_is_not_differentiable(first_order_only_cube):
    x = x64(0.5, -1.3)
    testing.check_grads(first_order_only_cube, (x,), order=1)  # right at first order
    with pytest.raises(AssertionError, match=r"check_vjp: the VJP of vjp\(test__cube\) disagrees") as info:
        testing.check_grads(first_order_only_cube, (x,), order=2)
    assert "<vjp(u), v> = 0.0" in str(info.value)


def test_check_grads_on_ops_and_composites():
    x = x64(0.3, -0.8, 1.1)
    testing.check_grads(ops.tanh, (x,), order=2)
    testing.check_grads(
        lambda a, b: ops.sum(ops.exp(a) * b) / (1 + ops.sum(b * b)), (x, x[::-1].copy()), order=2
    )


def test_check_grads_with_pytree_arguments_and_outputs():
    def f(params, x):
        return {"y": ops.tanh(x @ params["W"]), "s": (ops.sum(params["b"] ** 2),)}

    r = numpy.random.RandomState(0)
    params = {"W": r.randn(3, 2), "b": r.randn(2)}
    testing.check_grads(f, (params, r.randn(4, 3)), order=2)


def test_check_vjp_skips_integer_arguments_and_outputs():
    def f(x, n):
        return ops.sin(x) * n, ops.argmax(x)

    testing.check_vjp(f, (x64(0.2, 0.9), numpy.array([2, 3])))


def test_check_grads_with_integer_labels_at_order_2():
    def cross_entropy(x, t):
        logp = x - ops.logsumexp(x, axis=1, keepdims=True)
        return -ops.mean(logp[numpy.arange(len(t)), t])

    r = numpy.random.RandomState(1)
    testing.check_grads(cross_entropy, (r.randn(4, 3), numpy.array([0, 2, 1, 2])), order=2)


def test_check_vjp_catches_a_wrong_vjp_of_one_operand_only(scratch_primitive):
    def mul(x, y):
        return x * y

    bad = scratch_primitive(mul, lambda g, ans, x, y: ops.multiply(g, y), lambda g, ans, x, y: g)
    testing.check_vjp(lambda a, b: bad(a, b), (x64(1.0, 1.0), x64(3.0, -1.0)))  # y-VJP right when x == 1
    with pytest.raises(AssertionError):
        testing.check_vjp(lambda a, b: bad(a, b), (x64(1.0, 2.0), x64(3.0, -1.0)))


def test_numerical_jvp():
    x, t = x64(0.5, 1.0), x64(1.0, -2.0)
    jvp = testing.numerical_jvp(ops.sin, (x,), (t,))
    numpy.testing.assert_allclose(jvp, numpy.cos(x) * t, rtol=1e-8)
    # a None tangent leaves that argument fixed
    jvp2 = testing.numerical_jvp(lambda a, b: a * b, (x, x64(3.0, 4.0)), (t, None))
    numpy.testing.assert_allclose(jvp2, t * [3.0, 4.0], rtol=1e-8)


def test_assert_allclose():
    testing.assert_allclose(x64(1.0, 2.0), [1.0, 2.0 + 1e-9], rtol=1e-6)
    with pytest.raises(AssertionError, match="context"):
        testing.assert_allclose(x64(1.0), x64(1.1), err_msg="context")


def test_tree_allclose():
    a = {"w": x64(1.0, 2.0), "b": [x64(3.0)]}
    assert testing.tree_allclose(a, {"w": x64(1.0, 2.0 + 1e-12), "b": [x64(3.0)]})
    assert not testing.tree_allclose(a, {"w": x64(1.0, 2.5), "b": [x64(3.0)]})
    assert not testing.tree_allclose(a, {"w": x64(1.0, 2.0), "b": (x64(3.0),)})
    # leaves must have the same shape, not merely broadcast
    assert not testing.tree_allclose([numpy.ones(3)], [numpy.ones(1)])
    assert not testing.tree_allclose([numpy.ones((2, 1))], [numpy.ones((1, 2))])


def test_scratch_primitives_leave_the_registry(scratch_primitive):
    prim = scratch_primitive(_cube)
    assert prim in fnet.autodiff.all_primitives().values()


def test_scratch_primitives_were_removed():
    names = [p.name for p in fnet.autodiff.all_primitives().values()]
    assert not [n for n in names if n.startswith("test_")]
    assert importlib.import_module("fnet.autodiff.primitive")._registry is not None


# -- assert_ulp_close / ulp_distance ---------------------------------------------------------------
FLOATS = [numpy.float16, numpy.float32, numpy.float64]


def _steps(x, n: int, toward):
    """``x`` moved ``n`` floats toward ``toward`` (in ``x``'s dtype)."""
    for _ in range(n):
        x = numpy.nextafter(x, x.dtype.type(toward))
    return x


@pytest.mark.parametrize("dtype", FLOATS)
def test_ulp_distance_counts_the_floats_in_between(dtype):
    x = numpy.array([1.0, -3.5, 1e-3, 0.0], dtype)
    numpy.testing.assert_array_equal(testing.ulp_distance(x, _steps(x, 3, numpy.inf)), [3, 3, 3, 3])
    numpy.testing.assert_array_equal(testing.ulp_distance(_steps(x, 5, -numpy.inf), x), [5, 5, 5, 5])
    # across a power of two, and across zero (the two smallest subnormals are 2 apart)
    two = dtype(2.0)
    assert testing.ulp_distance(_steps(two, 1, 0), _steps(two, 1, 4)) == 2
    tiny = _steps(dtype(0.0), 1, 1)
    assert testing.ulp_distance(tiny, -tiny) == 2


@pytest.mark.parametrize("dtype", FLOATS)
def test_assert_ulp_close_passes_at_the_bound_and_fails_one_beyond(dtype):
    x = numpy.array([[0.1, 2.0], [-7.25, 1e3]], dtype)
    testing.assert_ulp_close(_steps(x, 4, numpy.inf), x, max_ulp=4)
    testing.assert_ulp_close(x, x, max_ulp=0)
    with pytest.raises(
        AssertionError, match=rf"4 of 4 elements of {numpy.dtype(dtype).name}\[2, 2\] are more"
    ):
        testing.assert_ulp_close(_steps(x, 5, numpy.inf), x, max_ulp=4)


def test_assert_ulp_close_reports_the_farthest_element_and_both_values():
    desired = numpy.array([1.0, 2.0, 3.0], numpy.float32)
    actual = desired.copy()
    actual[1] = _steps(actual[1], 9, 0)
    actual[2] = _steps(actual[2], 3, 9)
    with pytest.raises(AssertionError) as info:
        testing.assert_ulp_close(actual, desired, max_ulp=2, err_msg="layer l1")
    assert str(info.value) == (
        "assert_ulp_close: layer l1: 2 of 3 elements of float32[3] are more than 2 ulp apart\n"
        "  the farthest, 9 ulp apart, at index (1,): actual 1.9999989, desired 2.0 (|diff| 1.0729e-06)"
    )


def test_assert_ulp_close_nan_must_meet_nan_and_inf_the_same_inf():
    x = numpy.array([numpy.nan, numpy.inf, -numpy.inf, 1.0])
    testing.assert_ulp_close(x, x.copy(), max_ulp=0)
    huge = numpy.finfo(numpy.float64).max
    for actual in (
        [1.0, numpy.inf, -numpy.inf, 1.0],
        [numpy.nan, huge, -numpy.inf, 1.0],
        [numpy.nan, numpy.inf, numpy.inf, 1.0],
        [numpy.nan, numpy.inf, -numpy.inf, numpy.nan],
    ):
        with pytest.raises(AssertionError, match=r"(?s)1 of 4 elements .* the farthest, inf ulp apart"):
            testing.assert_ulp_close(numpy.array(actual), x, max_ulp=2**62)


def test_assert_ulp_close_signed_zeros_are_equal():
    testing.assert_ulp_close(numpy.float32([-0.0, 0.0]), numpy.float32([0.0, -0.0]), max_ulp=0)


def test_ulp_distance_does_not_overflow_across_the_whole_float64_range():
    huge = numpy.finfo(numpy.float64).max
    distance = testing.ulp_distance(numpy.float64(huge), numpy.float64(-huge))
    assert distance == 2.0 * (numpy.float64(huge).view(numpy.int64))  # the two halves of the line
    with pytest.raises(AssertionError, match=r"the farthest, 1\.844e\+19 ulp apart"):
        testing.assert_ulp_close(numpy.float64(huge), -huge, max_ulp=2**62)


def test_assert_ulp_close_with_a_scale_counts_ulps_of_the_terms_of_a_cancellation():
    terms = numpy.float64([1e4, 1.0])
    difference = (terms[0] + numpy.float64(0.3)) - terms[0]  # 0.3 and one rounding at 1e4
    assert testing.ulp_distance(difference, 0.3) > 1000  # in ulps of the result: far apart
    testing.assert_ulp_close(difference, 0.3, max_ulp=1, scale=1e4)
    testing.assert_ulp_close(numpy.float64([difference, 2.0]), [0.3, 2.0], max_ulp=1, scale=terms)
    with pytest.raises(AssertionError, match=r"more than 1 ulp \(of the scale 1\.0\) apart"):
        testing.assert_ulp_close(numpy.float64([2.0, difference]), [2.0, 0.3], max_ulp=1, scale=terms)
    # a scale only makes the check more lenient, and never for NaN or infinities
    testing.assert_ulp_close(numpy.float64(3.0), numpy.nextafter(3.0, 4.0), max_ulp=1, scale=1e-300)
    with pytest.raises(AssertionError, match="the farthest, inf ulp"):
        testing.assert_ulp_close(numpy.float64(numpy.inf), 1e308, max_ulp=1, scale=numpy.inf)


def test_assert_ulp_close_checks_shape_and_dtype():
    x = numpy.zeros((2, 3), numpy.float32)
    with pytest.raises(AssertionError, match=r"shapes differ: actual \(2, 3\), desired \(3, 2\)"):
        testing.assert_ulp_close(x, numpy.zeros((3, 2), numpy.float32))
    with pytest.raises(AssertionError, match=r"shapes differ: actual \(2, 3\), desired \(3,\)"):
        testing.assert_ulp_close(x, numpy.zeros(3, numpy.float32))  # no broadcasting
    with pytest.raises(AssertionError, match="got actual float32, desired float64"):
        testing.assert_ulp_close(x, numpy.zeros((2, 3)))
    with pytest.raises(AssertionError, match="hint: compare integers and booleans exactly"):
        testing.assert_ulp_close(numpy.zeros(2, numpy.int32), numpy.zeros(2, numpy.int32))
    with pytest.raises(TypeError, match="expected two arrays of one float dtype, got float32 and float16"):
        testing.ulp_distance(numpy.float32(1), numpy.float16(1))


def test_assert_ulp_close_takes_python_numbers_in_the_dtype_of_actual():
    third = numpy.float32(1) / numpy.float32(3)
    testing.assert_ulp_close(third, 1 / 3, max_ulp=0)  # 1/3 rounded to float32 is the same float
    testing.assert_ulp_close(numpy.float32([third, 2 * third]), [1 / 3, 2 / 3], max_ulp=0)
    with pytest.raises(AssertionError, match="1 of 1 elements of float16"):
        testing.assert_ulp_close(numpy.float16(1), 1.01, max_ulp=9)  # float16's ulp at 1 is 2**-10


def test_assert_ulp_close_accepts_tracers():
    def f(x):
        testing.assert_ulp_close(x, numpy.float64(0.5), max_ulp=0)
        return x * x

    fnet.grad(f)(numpy.float64(0.5))


@pytest.mark.gpu
def test_assert_ulp_close_accepts_cupy_arrays():
    cupy = fnet.backend.xp(fnet.backend.to_device(numpy.zeros(1), "@cupy:0"))
    x = numpy.array([0.25, -1.5, numpy.nan], numpy.float32)
    testing.assert_ulp_close(cupy.asarray(x), x, max_ulp=0)
    testing.assert_ulp_close(x, cupy.asarray(_steps(x, 1, 9)), max_ulp=1)
    with pytest.raises(AssertionError, match="2 of 3 elements"):  # NaN agrees with NaN
        testing.assert_ulp_close(cupy.asarray(_steps(x, 2, 9)), x, max_ulp=1)
    assert testing.ulp_distance(cupy.asarray(x), cupy.asarray(x)).tolist() == [0.0, 0.0, 0.0]
