"""Variable and Parameter: Chainer's documented behaviour on the always-on trace level."""

import copy

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import functions as F


def f32(*values):
    return numpy.array(values, numpy.float32)


def test_scalar_backward_starts_at_one():
    x = chainer.Variable(f32(5))
    y = x**2 - 2 * x + 1
    y.backward()
    assert y.array.tolist() == [16.0]
    assert x.grad.tolist() == [8.0]


def test_retain_grad_keeps_intermediate_gradients():
    x = chainer.Variable(f32(5))
    z = 2 * x
    y = x**2 - z + 1
    y.backward(retain_grad=True)
    assert z.grad.tolist() == [-1.0]
    assert x.grad.tolist() == [8.0]


def test_without_retain_grad_intermediates_have_none():
    x = chainer.Variable(f32(5))
    z = 2 * x
    (x**2 - z).backward()
    assert z.grad is None


def test_non_scalar_needs_its_grad_and_without_one_propagates_nothing():
    x = chainer.Variable(numpy.arange(6, dtype=numpy.float32).reshape(2, 3))
    y = x**2 - 2 * x + 1
    y.backward()  # Chainer starts from None here: no gradient reaches x
    assert x.grad is None
    y.grad = numpy.ones((2, 3), numpy.float32)
    y.backward()
    numpy.testing.assert_array_equal(x.grad, 2 * x.array - 2)


def test_leaf_gradients_accumulate_until_cleared():
    x = chainer.Variable(f32(1, 2))
    for _ in range(2):
        F.sum(x * x).backward()
    numpy.testing.assert_array_equal(x.grad, [4, 8])
    x.cleargrad()
    assert x.grad is None
    x.zerograd()
    numpy.testing.assert_array_equal(x.grad, [0, 0])


def test_loss_scale_multiplies_the_initial_gradient():
    x = chainer.Variable(f32(3))
    F.sum(x * x).backward(loss_scale=4.0)
    assert x.grad.tolist() == [24.0]


def test_double_backprop_through_grad_var():
    x = chainer.Variable(f32(1, 2, 3))
    F.sum(x**3).backward(enable_double_backprop=True)
    gx = x.grad_var
    numpy.testing.assert_allclose(gx.array, 3 * x.array**2)
    x.cleargrad()
    F.sum(gx).backward()
    numpy.testing.assert_allclose(x.grad, 6 * x.array)


def test_chainer_grad_returns_gradients_without_touching_grad():
    x = chainer.Variable(f32(1, 2))
    y = chainer.Variable(f32(3, 4))
    z = F.sum(x * y)
    gx, gy = chainer.grad([z], [x, y])
    numpy.testing.assert_array_equal(gx.array, y.array)
    numpy.testing.assert_array_equal(gy.array, x.array)
    assert x.grad is None


def test_chainer_grad_of_an_intermediate_and_grad_inputs():
    x = chainer.Variable(f32(2))
    h = x * 3
    y = F.sum(h * h)
    (gh,) = chainer.grad([y], [h], grad_inputs=[f32(1)], set_grad=True)
    assert gh.array.tolist() == [13.0]
    assert h.grad.tolist() == [13.0]


def test_chainer_grad_of_a_non_scalar_starts_from_ones_as_in_chainer():
    x = chainer.Variable(f32(1, 2))
    (gx,) = chainer.grad([x * x], [x])
    numpy.testing.assert_array_equal(gx.array, [2, 4])
    with pytest.raises(ValueError, match="as long as outputs"):
        chainer.grad([x * 2], [x], grad_outputs=[None, None])
    with pytest.raises(TypeError, match="tuple or a list"):
        chainer.grad(x * 2, [x])


def test_backward_of_several_outputs():
    x = chainer.Variable(f32(1, 2))
    a, b = F.sum(x * x), F.sum(3 * x)
    chainer.backward([a, b], [f32(1).reshape(()), f32(1).reshape(())])
    numpy.testing.assert_array_equal(x.grad, [5, 7])
    x.cleargrad()
    a, b = F.sum(x * x), F.sum(3 * x)
    a.grad = f32(1).reshape(())
    with pytest.warns(RuntimeWarning, match="does not set default grad"):  # as in Chainer
        chainer.backward([a, b])
    numpy.testing.assert_array_equal(x.grad, [2, 4])
    assert a.grad is None


def test_backward_checks_its_arguments_as_chainer():
    x = chainer.Variable(f32(1, 2))
    y = x * 2
    with pytest.raises(TypeError, match="outputs must be a tuple or a list"):
        chainer.backward(y)
    with pytest.raises(TypeError, match="grad_outputs must be None, a tuple or a list"):
        chainer.backward([y], chainer.Variable(f32(1, 1)))
    with pytest.raises(ValueError, match="grad_outputs must be as long as outputs"):
        chainer.backward([y], [])


def test_no_backprop_mode_records_nothing():
    x = chainer.Variable(f32(1, 2))
    with chainer.no_backprop_mode():
        y = x * 2
        assert chainer.config.enable_backprop is False
        with chainer.force_backprop_mode():
            z = x * 2
    assert y.creator is None and not y.requires_grad
    assert z.creator is not None
    assert chainer.config.enable_backprop is True


def test_requires_grad_false_gets_no_gradient():
    x = chainer.Variable(f32(1, 2), requires_grad=False)
    w = chainer.Variable(f32(3, 4))
    F.sum(x * w).backward()
    assert x.grad is None
    numpy.testing.assert_array_equal(w.grad, [1, 2])


def test_unchain_backward_stops_backprop():
    x = chainer.Variable(f32(2))
    h = x * x
    y = h * 3
    h.unchain_backward()
    F.sum(y).backward()
    assert x.grad is None
    assert h.creator is None


def test_unchain_makes_a_root():
    x = chainer.Variable(f32(2))
    h = x * 5
    h.unchain()
    assert h.creator is None
    F.sum(h * h).backward()
    assert h.grad.tolist() == [20.0] and x.grad is None


def test_array_attributes_and_len():
    x = chainer.Variable(numpy.zeros((2, 3), numpy.float32), name="x")
    assert (x.shape, x.ndim, x.size, x.dtype, len(x)) == ((2, 3), 2, 6, numpy.float32, 2)
    assert x.T.shape == (3, 2)
    assert x.reshape(3, 2).shape == (3, 2) and x.reshape((6,)).shape == (6,)
    assert x.transpose(1, 0).shape == (3, 2)
    assert x.label == "(2, 3), float32"
    assert chainer.Variable(numpy.float32(1) * numpy.ones((), numpy.float32)).label == "float32"
    assert x.xp is numpy and str(x.device) == "@numpy"
    assert repr(x).startswith("variable x(")
    with pytest.raises(TypeError):
        len(chainer.Variable(numpy.zeros((), numpy.float32)))


def test_data_and_array_are_one_and_settable():
    x = chainer.Variable(f32(1))
    x.data = f32(7)
    assert x.array.tolist() == [7.0]
    F.sum(x * x).backward()
    assert x.grad.tolist() == [14.0]


def test_array_of_another_shape_while_a_grad_is_held_is_refused():
    x = chainer.Variable(f32(1, 2))
    F.sum(x).backward()
    with pytest.raises(ValueError, match=r"cleargrad\(\)"):
        x.array = f32(1, 2, 3)
    x.cleargrad()
    x.array = f32(1, 2, 3)
    assert x.shape == (3,)


def test_grad_of_wrong_shape_or_dtype_is_refused():
    x = chainer.Variable(f32(1, 2))
    with pytest.raises(ValueError, match="shape"):
        x.grad = f32(1)
    with pytest.raises(TypeError, match="dtype"):
        x.grad = numpy.ones(2, numpy.float64)


def test_data_must_be_an_array():
    with pytest.raises(TypeError, match="NumPy or CuPy array"):
        chainer.Variable([1.0, 2.0])


def test_comparisons_truth_and_hash_raise_type_errors_as_in_chainer():
    x = chainer.Variable(f32(1))
    with pytest.raises(TypeError, match="comparison operators"):
        x == x  # noqa: B015
    with pytest.raises(TypeError, match="comparison operators"):
        x < 1  # noqa: B015
    with pytest.raises(TypeError, match="truth testing"):
        bool(x)
    with pytest.raises(TypeError, match="^unhashable type"):
        hash(x)


def test_operators_follow_numpy_broadcasting_and_reflect():
    x = chainer.Variable(f32(1, 2))
    a = numpy.float32(3)
    numpy.testing.assert_array_equal((a - x).array, [2, 1])
    numpy.testing.assert_array_equal((1 / x).array, [1, 0.5])
    numpy.testing.assert_array_equal((-x).array, [-1, -2])
    numpy.testing.assert_array_equal(abs(-x).array, [1, 2])
    numpy.testing.assert_array_equal(x[1:].array, [2])
    m = chainer.Variable(numpy.eye(2, dtype=numpy.float32))
    numpy.testing.assert_array_equal((m @ x).array, [1, 2])


@pytest.mark.parametrize("constant", [[3.0, 4.0], (3.0, 4.0)])
@pytest.mark.parametrize(
    "op", [lambda x, c: x + c, lambda x, c: c - x, lambda x, c: x * c, lambda x, c: c**x, lambda x, c: x @ c]
)
def test_a_list_or_tuple_operand_is_a_type_error_as_in_chainer(op, constant):
    with pytest.raises(TypeError, match="must be a Variable, an array or a scalar, got"):
        op(chainer.Variable(f32(1, 2)), constant)


def test_addgrad_and_copydata():
    x, y = chainer.Variable(f32(1, 2)), chainer.Variable(f32(5, 6))
    y.grad = f32(1, 1)
    x.addgrad(y)
    x.addgrad(y)
    numpy.testing.assert_array_equal(x.grad, [2, 2])
    x.copydata(y)
    numpy.testing.assert_array_equal(x.array, [5, 6])


def test_item_mean_and_debug_print():
    x = chainer.Variable(f32(1, 3))
    assert x.mean().item() == 2.0
    assert "- shape: (2,)" in x.debug_print()


def test_parameter_initializes_lazily():
    p = chainer.Parameter(chainer.initializers.Constant(2.0))
    assert p.array is None and not p.is_initialized
    p.initialize((2, 3))
    numpy.testing.assert_array_equal(p.array, numpy.full((2, 3), 2, numpy.float32))
    assert numpy.isnan(p.grad).all()  # as Chainer's: a forgotten cleargrad shows
    p.cleargrad()
    F.sum(p * p).backward()
    numpy.testing.assert_array_equal(p.grad, numpy.full((2, 3), 4, numpy.float32))


def test_parameter_from_an_array_and_nan_default():
    p = chainer.Parameter(f32(1, 2))
    numpy.testing.assert_array_equal(p.array, [1, 2])
    assert p.grad is None
    q = chainer.Parameter(shape=(2,))
    assert numpy.isnan(q.array).all()


def test_as_variable_and_as_array():
    a = f32(1)
    v = chainer.as_variable(a)
    assert isinstance(v, chainer.Variable) and not v.requires_grad
    assert chainer.as_variable(v) is v
    assert chainer.as_array(v) is a and chainer.as_array(a) is a


def test_a_raw_array_operand_takes_the_variable_dtype_as_in_chainer():
    x = chainer.Variable(f32(1, 2))
    assert (x + 0.5 * numpy.ones(2)).dtype == numpy.float32
    assert (numpy.ones(2) - x).dtype == numpy.float32
    assert (x * numpy.arange(2)).dtype == numpy.float32


def test_unchain_backward_leaves_no_creator_behind():
    x = chainer.Variable(f32(2))
    h1 = x * 2
    h2 = h1 * 3
    h2.unchain_backward()
    assert h2.creator is None and h1.creator is None


def test_variables_and_parameters_pickle_as_leaves():
    import pickle

    x = chainer.Variable(f32(1, 2), name="x")
    y = x * 2
    y.grad = f32(1, 1)
    z = pickle.loads(pickle.dumps(y))
    numpy.testing.assert_array_equal(z.array, [2, 4])
    numpy.testing.assert_array_equal(z.grad, [1, 1])
    assert z.creator is None and z.requires_grad
    p = chainer.Parameter(f32(3), name="p")
    q = pickle.loads(pickle.dumps(p))
    assert isinstance(q, chainer.Parameter) and q.name == "p" and q.array.tolist() == [3.0]


@pytest.mark.parametrize("requires_grad", [True, False])
def test_a_grad_set_as_an_array_is_a_variable_that_requires_grad(requires_grad):
    v = chainer.Variable(numpy.zeros(3, numpy.float32), requires_grad=requires_grad)
    v.grad = numpy.ones(3, numpy.float32)
    assert v.grad_var.requires_grad is True and v.requires_grad is requires_grad  # as Chainer's
    numpy.testing.assert_array_equal(v.grad, numpy.ones(3))


def test_deprecated_uses_warn_as_in_chainer():
    v = chainer.Variable(numpy.ones(1, numpy.float32))
    with pytest.warns(DeprecationWarning, match="Variable.zerograd is deprecated"):
        v.zerograd()
    y = v * 2  # one element but not 0-d: treated as a scalar, with Chainer's warning
    with pytest.warns(DeprecationWarning, match="only one element as a scalar"):
        y.backward()
    numpy.testing.assert_array_equal(v.grad, [2.0])


def test_an_uninitialized_parameter_keeps_what_zerograd_or_cleargrad_asked():
    fresh, cleared, zeroed = chainer.Parameter(), chainer.Parameter(), chainer.Parameter()
    cleared.cleargrad()
    with pytest.warns(DeprecationWarning):
        zeroed.zerograd()
    for p in (fresh, cleared, zeroed):
        p.initialize((2,))
    assert numpy.isnan(fresh.grad).all()  # Chainer's NaN: a forgotten cleargrads() shows
    assert cleared.grad is None
    numpy.testing.assert_array_equal(zeroed.grad, [0.0, 0.0])


def test_an_uninitialized_parameters_grad_cannot_be_read_until_set_as_in_chainer():
    fresh = chainer.Parameter()
    with pytest.raises(RuntimeError, match="Variable.grad: cannot retrieve the gradient"):
        _ = fresh.grad
    with pytest.raises(RuntimeError):  # copies keep the flag
        _ = copy.deepcopy(fresh).grad
    for make_readable in (
        lambda p: p.cleargrad(),
        lambda p: setattr(p, "grad", None),
        lambda p: p.initialize((2,)),
    ):
        p = chainer.Parameter()
        make_readable(p)
        for q in (p, copy.deepcopy(p)):
            assert q.grad is None or numpy.isnan(q.grad).all()


def test_a_parameter_made_with_a_shape_has_a_nan_grad_and_redraws_without_one():
    p = chainer.Parameter(shape=(2,))
    assert numpy.isnan(p.grad).all()
    p.initialize((2,))  # Chainer draws no grad again for a parameter that was made initialized
    assert p.grad is None


class _Scale(chainer.FunctionNode):
    def forward(self, inputs):
        return (inputs[0] * 2,)

    def backward(self, indexes, grad_outputs):
        return (grad_outputs[0] * 2,)


def test_a_variable_keeps_one_node_whose_rank_can_be_pinned():
    x = chainer.Variable(f32(1, 2))
    assert x.node is x.node and x._node is x.node
    x.node._rank = 3  # as Chainer's tests set it
    node = _Scale()
    (y,) = node.apply((x,))
    assert node.rank == 3 and y.rank == 4 and y.node.rank == 4 and x.node.rank == 3


def test_unchain_keeps_the_rank_and_a_function_nodes_unchain_cuts_live_outputs():
    x = chainer.Variable(f32(1, 2))
    y = (x * 2) * 3
    rank = y.rank
    y.unchain()
    assert y.creator is None and y.rank == rank == 2
    node = _Scale()
    (z,) = node.apply((x,))
    ref = node.outputs[0]
    assert ref() is z.node
    node.unchain()
    assert z.creator is None and node.inputs is None and node.outputs is None


def test_backward_uses_up_the_outputs_grad_unless_retain_grad():
    x = chainer.Variable(f32(1, 2))
    y = x * 3
    y.grad = f32(1, 1)
    y.backward()
    assert y.grad is None
    numpy.testing.assert_array_equal(x.grad, [3, 3])
    y = x * 3
    g = chainer.Variable(f32(1, 1))
    y.grad_var = g
    y.backward(retain_grad=True)
    assert y.grad_var is g


def test_chainers_private_constructor_and_chainerx_flag():
    x = chainer.Variable._init_unchecked(f32(1, 2), name="x", requires_grad=False)
    assert type(x) is chainer.Variable and x.name == "x" and not x.requires_grad
    assert x._has_chainerx_array is False and chainer.Variable()._has_chainerx_array is False
    chx = chainer.Variable._init_unchecked(chainer.backend.to_chx(f32(1)), is_chainerx_array=True)
    assert chx._has_chainerx_array is True


def test_grad_inputs_flow_on_to_the_inputs_before_them_and_retain_grad_fills_the_way():
    # x2 = 2 * x1, y = 3 * x2: the gradient given for x2 reaches x1 through x2 (Chainer's rule)
    x1 = chainer.Variable(f32(1))
    h = x1 * 2
    x2 = h * 1
    y = x2 * 3
    gx1, gx2 = chainer.grad([y], [x1, x2], grad_inputs=[f32(100), f32(10)], retain_grad=True)
    numpy.testing.assert_array_equal(gx2.array, [13])
    numpy.testing.assert_array_equal(gx1.array, [126])
    numpy.testing.assert_array_equal(h.grad, [13])
    with pytest.raises(TypeError, match="grad_inputs must be a tuple or a list"):
        chainer.grad([y], [x1], grad_inputs=f32(1))
    with pytest.raises(ValueError, match="grad_inputs must be as long as inputs"):
        chainer.grad([y], [x1], grad_inputs=[None, None])


def test_copydata_initializes_an_uninitialized_parameter_on_either_side():
    dst, src = chainer.Parameter(f32(1, 2)), chainer.Parameter(chainer.initializers.Zero())
    kept = dst.array
    dst.copydata(src)  # src takes dst's shape, then its zeros are copied in place
    assert dst.array is kept and src.shape == (2,)
    numpy.testing.assert_array_equal(dst.array, [0, 0])
    fresh = chainer.Parameter(chainer.initializers.One())
    fresh.copydata(chainer.Variable(f32(3, 4)))
    numpy.testing.assert_array_equal(fresh.array, [3, 4])
    a, b = chainer.Parameter(), chainer.Parameter()
    a.copydata(b)
    assert a.array is None and b.array is None


def test_an_empty_variable_shows_its_shape_and_an_unknown_dtype_is_an_error():
    assert repr(chainer.Variable(numpy.zeros((0, 0), numpy.float32))) == "variable([], shape=(0, 0))"
    x = chainer.Variable(numpy.zeros((2, 0), numpy.float32), name="x")
    assert repr(x) == "variable x([], shape=(2, 0))" and str(x) == "variable x([])"
    assert repr(chainer.Variable(numpy.zeros(0, numpy.float32))) == "variable([])"

    class NoDtype:
        def __call__(self, array):
            array[...] = 0

    with pytest.raises(RuntimeError, match="Dtype of the parameter is not determined yet"):
        _ = chainer.Parameter(NoDtype()).dtype


def test_an_unchained_variable_is_the_leaf_of_what_was_computed_from_it():
    x = chainer.Variable(f32(1, 2))
    h0, h1 = F.split_axis(x * 1, [1], axis=0)
    w = F.sum(h0 * 3) + F.sum(h1 * 5)
    h0.unchain()
    assert h0.creator is None
    w.backward()
    numpy.testing.assert_array_equal(h0.grad, [3])  # the graph from h0 on still reaches h0
    numpy.testing.assert_array_equal(x.grad, [0, 5])  # but nothing goes past it
    (g,) = chainer.grad([F.sum(h0 * 3) + F.sum(h1 * 5)], [h0])
    numpy.testing.assert_array_equal(g.array, [3])
    y = x * 2
    z = y * 4
    y.unchain_backward()
    z.grad = f32(1, 1)
    z.backward()
    numpy.testing.assert_array_equal(y.grad, [4, 4])


def test_setting_the_creator_cuts_joins_again_or_names_a_new_one():
    x = chainer.Variable(f32(1, 2))
    y = _Scale().apply((x,))[0]
    z = y * 3
    maker, rank = y.creator_node, y.rank
    y.creator = None
    assert y.creator is None and y.rank == rank
    y.node._rank = -1
    y.creator_node = maker  # the node that made it: the graph is whole again
    assert y.creator_node is maker and y.rank == maker.rank + 1
    z.grad = f32(1, 1)
    z.backward()
    numpy.testing.assert_array_equal(x.grad, [6, 6])
    v, f = chainer.Variable(), chainer.Function()
    v.creator = f
    assert v.creator is f and v.creator_node is f.node and v.rank == 1
    w, node = chainer.Variable(f32(1)), chainer.FunctionNode()
    node.rank = 10
    w.set_creator_node(node)
    assert w.creator_node is node and w.rank == 11


def test_variable_node_takes_chainers_arguments_and_refuses_a_grad():
    from fnet.compat.variable import VariableNode

    x = chainer.Variable(f32(1), name="x")
    assert VariableNode(x, "x").name == "x"
    with pytest.raises(ValueError, match="pass the gradient to the Variable instead"):
        VariableNode(x, "", grad=None)
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        VariableNode(x, "", other=1)


def test_chainers_private_grad_is_the_gradient_array():
    p = chainer.Parameter(shape=(2,))  # Chainer code and tests read p._grad
    assert type(p._grad) is numpy.ndarray and numpy.isnan(p._grad).all()
    p._grad = numpy.ones(2, numpy.float32)
    numpy.testing.assert_array_equal(p.grad, [1, 1])
    assert chainer.Parameter()._grad is None  # no validity check, as in Chainer


def test_shallow_copies_of_a_parameter_share_the_array_initialize_draws_as_in_chainer():
    x = chainer.Parameter()
    y = copy.copy(x)
    x.initialize((3, 2))
    assert y.array is x.array and numpy.isnan(x.grad).all()
    z = copy.copy(x)
    z.initializer = chainer.initializers.Constant(2.0)
    z.initialize((3, 2))  # an initialized parameter drawn again: the copies see the new array
    assert x.array is z.array and y.array is z.array and (z.array == 2).all()
    deep = copy.deepcopy(x)
    x.initialize((3, 2))
    assert deep.array is not x.array


def test_a_numpy_scalar_grad_is_refused_as_in_chainer():
    v = chainer.Variable(numpy.array(1.0, numpy.float32))
    with pytest.raises(TypeError, match="must be an array, got the NumPy scalar float32"):
        v.grad = numpy.float32(1)
    v.grad = numpy.array(1.0, numpy.float32)


def test_addgrad_initializes_an_uninitialized_parameter_as_in_chainer():
    x, y = chainer.Parameter(), chainer.Parameter(numpy.ones((3, 2), numpy.float32))
    y.grad = numpy.full((3, 2), 2.0, numpy.float32)
    x.cleargrad()
    x.addgrad(y)
    assert x.shape == (3, 2)
    numpy.testing.assert_array_equal(x.grad, y.grad)


def test_as_layout_keeps_the_values_and_gradients_as_chainers_channel_last_round_trip_does():
    # Chainer's ImageNet example (resnet50_nhwc) calls h.as_layout(CUDNN_CHANNEL_LAST_X) and back
    x = chainer.Variable(numpy.arange(24, dtype=numpy.float32).reshape(1, 2, 3, 4))
    y = x.as_layout(chainer.memory_layouts.CUDNN_CHANNEL_LAST_X)
    assert y.shape == (1, 2, 3, 4)
    z = F.sum(y.as_layout(None) * 2.0)
    z.backward()
    numpy.testing.assert_array_equal(y.array, x.array)
    numpy.testing.assert_array_equal(x.grad, numpy.full((1, 2, 3, 4), 2.0, numpy.float32))
    assert x.as_layout(None) is x


@pytest.mark.parametrize(
    ("layout", "shape", "words"),
    [("nhwc", (1, 2, 3, 4), "unknown layout 'nhwc'"), ("CUDNN_CHANNEL_LAST_X", (2, 3), "3 or more axes")],
)
def test_as_layout_refuses_a_layout_chainer_refuses(layout, shape, words):
    with pytest.raises(ValueError, match=words) as caught:
        chainer.Variable(numpy.zeros(shape, numpy.float32)).as_layout(layout)
    assert "Variable.as_layout" in str(caught.value) and "hint:" in str(caught.value)
