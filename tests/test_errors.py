"""Every error fnet raises on purpose: its class, its builtin base, and its message text."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import errors, ops


def f32(*shape):
    return numpy.ones(shape, numpy.float32)


def f64(*shape):
    return numpy.ones(shape, numpy.float64)


# -- the hierarchy ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "cls, builtins",
    [
        (errors.InvalidInputError, (ValueError,)),
        (errors.ShapeError, (errors.InvalidInputError, ValueError)),
        (errors.DTypeError, (errors.InvalidInputError, TypeError, ValueError)),
        (errors.TreeStructureError, (ValueError,)),
        (errors.NonDifferentiableError, (TypeError,)),
        (errors.TracerConversionError, (TypeError,)),
        (errors.VJPRuleError, (RuntimeError,)),
        (errors.CheckpointError, (OSError,)),
    ],
)
def test_hierarchy(cls, builtins):
    assert issubclass(cls, errors.FnetError)
    for base in builtins:
        assert issubclass(cls, base)


def test_every_documented_error_is_exported():
    for name in errors.__all__:
        obj = getattr(errors, name)
        if isinstance(obj, type):
            assert issubclass(obj, errors.FnetError)


# -- formatting ---------------------------------------------------------------------------------


def test_aval():
    assert errors.aval(f32(3, 4)) == "float32[3, 4]"
    assert errors.aval(numpy.float64(1.0)) == "float64[]"
    assert errors.aval(numpy.zeros((0, 2), numpy.int8)) == "int8[0, 2]"
    assert errors.aval(2.5) == "float 2.5"


def test_aval_looks_through_tracers():
    seen = []

    def f(x):
        seen.append(errors.aval(x))
        return ops.sum(x)

    fnet.grad(f)(f32(2, 5))
    assert seen == ["float32[2, 5]"]


def test_message_layout():
    text = errors.message(
        "linear",
        "expected x.shape[-1] == W.shape[1], got 4 != 3",
        {"x": f32(3, 4), "W": f32(5, 3)},
        "did you pass W.T?",
    )
    assert text == (
        "linear: expected x.shape[-1] == W.shape[1], got 4 != 3\n"
        "  x: float32[3, 4]\n"
        "  W: float32[5, 3]\n"
        "  hint: did you pass W.T?"
    )
    assert errors.message("op", "problem") == "op: problem"


# -- shapes -------------------------------------------------------------------------------------


def test_elementwise_shape_mismatch():
    with pytest.raises(errors.ShapeError) as info:
        ops.add(f32(3, 4), f32(5))
    assert str(info.value) == (
        "add: operand shapes (3, 4) and (5,) cannot be broadcast together\n"
        "  x: float32[3, 4]\n"
        "  y: float32[5]\n"
        "  hint: aligned from the right, each axis must match or be 1; "
        "reshape or expand_dims one operand"
    )


@pytest.mark.parametrize("op", [ops.add, ops.subtract, ops.multiply, ops.divide, ops.maximum])
def test_elementwise_shape_mismatch_names_the_operation(op):
    with pytest.raises(errors.ShapeError, match=rf"^{op.name}: operand shapes \(3, 4\) and \(5,\)"):
        op(f32(3, 4), f32(5))


def test_elementwise_shape_mismatch_when_traced():
    with pytest.raises(
        errors.ShapeError,
        match=r"multiply: operand shapes \(3, 4\) and \(5,\)(.|\n)*"
        r"x: float32\[3, 4\](.|\n)*y: float32\[5\]",
    ):
        fnet.grad(lambda x: ops.sum(x * f32(5)))(f32(3, 4))


def test_operator_shape_mismatch():
    with pytest.raises(errors.ShapeError, match="^add: "):
        fnet.grad(lambda x: ops.sum(x + f32(5)))(f32(3, 4))


def test_matmul_shape_mismatch():
    with pytest.raises(errors.ShapeError) as info:
        ops.matmul(f32(3, 4), f32(3, 5))
    assert str(info.value) == (
        "matmul: expected a.shape[-1] == b.shape[-2], got 4 != 3\n"
        "  a: float32[3, 4]\n"
        "  b: float32[3, 5]\n"
        "  hint: the contracted axes must match; did you mean to transpose one operand (e.g. b.T)?"
    )


def test_matmul_shape_mismatch_traced_with_operator():
    with pytest.raises(
        errors.ShapeError, match=r"matmul: expected a.shape\[-1\] == b.shape\[-2\], got 4 != 3"
    ):
        fnet.grad(lambda w: ops.sum(f32(3, 4) @ w))(f32(3, 5))


# -- dtypes -------------------------------------------------------------------------------------


def test_add_float32_float64():
    with pytest.raises(errors.DTypeError) as info:
        ops.add(f32(3, 4), f64(3, 4))
    assert isinstance(info.value, TypeError)
    assert str(info.value) == (
        "add: operands have different float dtypes, float32 and float64; fnet does not upcast silently\n"
        "  x: float32[3, 4]\n"
        "  y: float64[3, 4]\n"
        "  hint: cast one of them explicitly, e.g. y.astype(numpy.float32) or x.astype(numpy.float64)"
    )


def test_add_float32_float64_traced():
    with pytest.raises(TypeError, match="add: operands have different float dtypes, float32 and float64"):
        fnet.grad(lambda x: ops.sum(x + f64(3)))(f32(3))


def test_python_scalars_are_weak():
    assert ops.add(f32(2), 1.5).dtype == numpy.float32
    assert ops.multiply(2, f32(2)).dtype == numpy.float32


def test_matmul_float32_float64():
    with pytest.raises(errors.DTypeError) as info:
        ops.matmul(f32(3, 4), f64(4, 5))
    assert isinstance(info.value, TypeError)
    text = str(info.value)
    assert text.startswith("matmul: operands have different float dtypes")
    assert "a: float32[3, 4]" in text and "b: float64[4, 5]" in text and "hint: " in text


# -- differentiation ----------------------------------------------------------------------------


def test_grad_of_non_scalar_output():
    def loss(x):
        return x * 2

    with pytest.raises(errors.NonDifferentiableError) as info:
        fnet.grad(loss)(f32(3))
    assert isinstance(info.value, TypeError)
    assert str(info.value) == (
        "grad: the differentiated function ('loss') must return a real scalar, "
        "got an array of shape (3,)\n"
        "  output: float32[3]\n"
        "  hint: reduce it to a scalar first, e.g. fnet.ops.sum(y) or y.mean(); "
        "for non-scalar outputs use fnet.vjp or fnet.jacobian"
    )


def test_grad_of_integer_or_non_array_output():
    with pytest.raises(
        errors.NonDifferentiableError, match=r"got a scalar of dtype int64(.|\n)*output: int64\[\]"
    ):
        fnet.grad(lambda x: ops.argmax(x))(f32(3))
    with pytest.raises(errors.NonDifferentiableError, match="got a non-array list(.|\n)*hint: reduce"):
        fnet.grad(lambda x: [x])(1.0)


def test_grad_with_respect_to_an_integer_array():
    with pytest.raises(errors.NonDifferentiableError) as info:
        fnet.grad(lambda x: ops.sum(x * 2.0))(numpy.arange(3))
    assert str(info.value) == (
        "grad: cannot differentiate with respect to the argument of dtype int64: "
        "only float (and complex) arrays have gradients\n"
        "  argument: int64[3]\n"
        "  hint: cast it first, e.g. x.astype(numpy.float32), or move it out of argnums"
    )


def test_grad_with_respect_to_an_integer_leaf_names_its_path():
    params = {"l1": {"W": f32(2), "n": numpy.int32(3)}}
    with pytest.raises(errors.NonDifferentiableError, match="argument 'l1/n' of dtype int32"):
        fnet.grad(lambda p: ops.sum(p["l1"]["W"]))(params)


def test_grad_with_respect_to_a_string():
    with pytest.raises(errors.NonDifferentiableError, match="expected a float array, got str(.|\n)*hint: "):
        fnet.grad(lambda x: 1.0)("a")


# -- traced values ------------------------------------------------------------------------------


def test_asarray_on_a_traced_value():
    with pytest.raises(errors.TracerConversionError) as info:
        fnet.grad(lambda x: ops.sum(numpy.asarray(x)))(f32(3))
    assert isinstance(info.value, TypeError)
    assert str(info.value) == (
        "numpy.asarray: cannot convert a traced value to a NumPy array: the gradient would be lost\n"
        "  value: float32[3]\n"
        "  hint: use fnet.ops functions on traced values, or fnet.stop_gradient(x) "
        "if you want the value without its gradient"
    )


def test_inplace_update_of_a_traced_value():
    def f(x):
        x[0] = 1
        return ops.sum(x)

    with pytest.raises(errors.TracerConversionError) as info:
        fnet.grad(f)(f32(3))
    text = str(info.value)
    assert text.startswith(
        "__setitem__: traced values are immutable: in-place assignment would break the recorded graph\n"
        "  value: float32[3]\n"
        "  hint: build a new value instead: fnet.ops.where(mask, new, x)"
    )


def test_unsupported_ufunc_method_on_a_traced_value():
    with pytest.raises(
        errors.TracerConversionError, match=r"numpy.add: this NumPy ufunc \(method 'reduce'\)"
    ):
        fnet.grad(lambda x: numpy.add.reduce(x))(f32(3))


# -- trees --------------------------------------------------------------------------------------


def test_tree_structure_mismatch():
    with pytest.raises(errors.TreeStructureError) as info:
        fnet.tree.map(lambda a, b: a + b, {"l1": {"W": 1, "b": 2}}, {"l1": {"W": 1, "b": [2]}})
    assert str(info.value) == (
        "tree.map: tree structures differ at 'l1/b'\n"
        "  tree: a leaf (int)\n"
        "  rest[0]: a list of length 1\n"
        "  hint: the trees must have the same nesting, dict keys and sequence lengths"
    )


def test_vjp_cotangent_structure_mismatch():
    _, pullback = fnet.vjp(lambda x: {"y": x, "z": x}, f64(2))
    with pytest.raises(
        errors.TreeStructureError,
        match="vjp pullback: tree structures differ at the root(.|\n)*"
        r"output: a dict with keys \['y', 'z'\](.|\n)*"
        r"cotangent: a dict with keys \['y'\]",
    ):
        pullback({"y": f64(2)})


# -- VJP rules ----------------------------------------------------------------------------------


def test_wrong_vjp_shape(scratch_primitive):
    bad_sum = scratch_primitive(lambda x: x.sum(), lambda g, ans, x: g)  # forgot to broadcast
    with pytest.raises(errors.VJPRuleError) as info:
        fnet.grad(bad_sum)(f32(2, 3))
    assert str(info.value) == (
        f"{bad_sum.name} (VJP of operand 0): the cotangent must have the operand's shape and dtype, "
        "expected float32[2, 3], got float32[]\n"
        "  hint: this is a bug in the primitive's VJP rule: it must sum over broadcast axes "
        "and cast back to the operand's dtype"
    )


def test_wrong_vjp_dtype(scratch_primitive):
    def double(x):
        return x * 2

    bad = scratch_primitive(double, lambda g, ans, x: ops.astype(g, numpy.float64) * 2.0)
    with pytest.raises(
        errors.VJPRuleError,
        match=r"^test_double \(VJP of operand 0\)(.|\n)*"
        r"expected float32\[3\], got float64\[3\]",
    ):
        fnet.grad(lambda x: ops.sum(bad(x)))(f32(3))


def test_wrong_vjp_of_second_operand(scratch_primitive):
    def mul(x, y):
        return x * y

    bad = scratch_primitive(mul, lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x)  # no sum_to
    with pytest.raises(
        errors.VJPRuleError,
        match=r"test_mul \(VJP of operand 1\)(.|\n)*"
        r"expected float64\[\], got float64\[3\]",
    ):
        fnet.grad(lambda x, y: ops.sum(bad(x, y)), argnums=1)(f64(3), 2.0)
