"""chainer.functions: the pure catalogue lifted to Variables, with Chainer's global state."""

import inspect

import numpy
import pytest

import fnet
import fnet.compat as chainer
from fnet.compat import functions as F
from fnet.compat.utils import type_check


def test_every_pure_function_is_lifted_with_its_signature():
    for name in fnet.functions.__all__:
        pure, lifted = getattr(fnet.functions, name), getattr(F, name)
        if inspect.isfunction(pure) or isinstance(pure, fnet.autodiff.Primitive):
            assert inspect.signature(lifted) == inspect.signature(pure), name
    assert "forget" in F.__all__


def test_results_are_variables_and_match_the_pure_function():
    x = numpy.random.RandomState(0).randn(3, 4).astype(numpy.float32)
    y = F.relu(chainer.Variable(x))
    assert isinstance(y, chainer.Variable)
    numpy.testing.assert_array_equal(y.array, fnet.functions.relu(x))
    parts = F.split_axis(chainer.Variable(x), 2, axis=1)
    assert isinstance(parts, tuple) and all(isinstance(p, chainer.Variable) for p in parts)
    assert isinstance(F.accuracy(chainer.Variable(x), numpy.array([0, 1, 2], numpy.int32)), chainer.Variable)


def test_lists_of_variables_are_unwrapped_and_gradients_flow():
    a, b = chainer.Variable(numpy.ones(2)), chainer.Variable(numpy.full(2, 2.0))
    y = F.concat([a, b], axis=0)
    F.sum(y * y).backward()
    numpy.testing.assert_array_equal(a.grad, [2, 2])
    numpy.testing.assert_array_equal(b.grad, [4, 4])


def test_dropout_reads_config_train():
    x = numpy.ones((4, 5), numpy.float32)
    with chainer.using_config("train", False):
        numpy.testing.assert_array_equal(F.dropout(x).array, x)
    y = F.dropout(x, 0.5).array
    assert set(numpy.unique(y).tolist()) <= {0.0, 2.0} and (y == 0).any()


def test_numpy_seed_repeats_the_noise():
    x = numpy.ones((10, 10), numpy.float32)
    numpy.random.seed(3)
    first = F.dropout(x).array
    numpy.random.seed(3)
    numpy.testing.assert_array_equal(F.dropout(x).array, first)


def test_batch_normalization_updates_running_statistics_in_place():
    x = numpy.random.RandomState(0).randn(8, 3).astype(numpy.float32)
    gamma, beta = numpy.ones(3, numpy.float32), numpy.zeros(3, numpy.float32)
    mean, var = numpy.zeros(3, numpy.float32), numpy.ones(3, numpy.float32)
    y = F.batch_normalization(x, gamma, beta, running_mean=mean, running_var=var, decay=0.9)
    assert isinstance(y, chainer.Variable)
    numpy.testing.assert_allclose(mean, 0.1 * x.mean(axis=0), rtol=1e-5)
    numpy.testing.assert_allclose(var, 0.9 + 0.1 * x.var(axis=0, ddof=1), rtol=1e-5)


def test_batch_renormalization_updates_the_statistics_given_only_when_asked():
    x = numpy.random.RandomState(0).randn(8, 3).astype(numpy.float32)
    gamma, beta = numpy.ones(3, numpy.float32), numpy.zeros(3, numpy.float32)
    mean, var = numpy.zeros(3, numpy.float32), numpy.ones(3, numpy.float32)
    y = F.batch_renormalization(x, gamma, beta, 2.0, 1.0, running_mean=mean, running_var=var)
    assert isinstance(y, chainer.Variable)
    assert mean.tolist() == [0, 0, 0] and var.tolist() == [1, 1, 1]
    # the statistics given by position, with update_statistics: updated in place
    y = F.batch_renormalization(x, gamma, beta, 2.0, 1.0, 2e-5, mean, var, 0.9, True)
    assert isinstance(y, chainer.Variable)
    numpy.testing.assert_allclose(mean, 0.1 * x.mean(axis=0), rtol=1e-5)
    numpy.testing.assert_allclose(var, 0.9 + 0.1 * x.var(axis=0, ddof=1), rtol=1e-5)


def test_argmax_crf1d_gives_the_score_as_a_variable_and_the_path_as_arrays():
    cost = numpy.zeros((3, 3), numpy.float32)
    xs = [numpy.eye(3, dtype=numpy.float32)[[i, 2 - i]] for i in range(3)]  # batch of 2, 3 steps
    score, path = F.argmax_crf1d(cost, xs)
    assert isinstance(score, chainer.Variable) and score.array.tolist() == [3.0, 3.0]
    assert all(type(p) is numpy.ndarray for p in path)
    assert [p.tolist() for p in path] == [[0, 2], [1, 1], [2, 0]]


def test_zoneout_draws_its_flag_with_numpy_random_rand(monkeypatch):
    """As Chainer's: one call of ``xp.random.rand(*x.shape)`` (which Chainer's tests mock); the
    node keeps the boolean flags."""
    drawn = numpy.array([[0.1, 0.9, 0.4], [0.6, 0.2, 0.8]])
    calls = []

    def rand(*shape):
        calls.append(shape)
        return drawn

    monkeypatch.setattr(numpy.random, "rand", rand)
    h, x = numpy.zeros((2, 3), numpy.float32), numpy.ones((2, 3), numpy.float32)
    y = F.zoneout(h, x, 0.5)
    assert calls == [(2, 3)]
    numpy.testing.assert_array_equal(y.array, drawn >= 0.5)
    numpy.testing.assert_array_equal(y.creator.flag_x, drawn >= 0.5)
    numpy.testing.assert_array_equal(y.creator.flag_h, drawn < 0.5)
    with chainer.using_config("train", False):
        assert F.zoneout(h, x, 0.5).array is x and len(calls) == 1


def test_input_errors_come_as_invalid_type():
    with pytest.raises(type_check.InvalidType):
        F.linear(numpy.ones((2, 3), numpy.float32), numpy.ones((4, 5), numpy.float32))


def test_where_chainer_raises_another_type_than_invalid_type():
    x, t = numpy.zeros((4, 3), numpy.float32), numpy.zeros(4, numpy.int32)
    with pytest.raises(NotImplementedError, match="hinge: expected norm to be one of 'L1', 'L2'"):
        F.hinge(x, t, "L3")
    x1, w1 = numpy.ones((2, 3, 4), numpy.float32), numpy.ones((3, 2, 2), numpy.float32)
    with pytest.raises(AssertionError, match=r"deconvolution_nd: the output size \(-15,\) is not positive"):
        F.deconvolution_nd(x1, w1, pad=10)
    x, y = numpy.zeros((3, 2, 3), numpy.float32), numpy.zeros(2, numpy.float32)
    for f in (F.bias, F.scale):
        with pytest.raises(type_check.InvalidType):  # out of debug mode, Chainer's broadcast fails
            f(x, y, 0)
        with chainer.using_config("debug", True), pytest.raises(AssertionError, match=r"y.shape =="):
            f(x, y, 0)


def test_copy_to_chainers_dummy_device_is_a_copy_to_the_cpu():
    from fnet.compat.backends import cuda

    y = F.copy(numpy.zeros((2, 3), numpy.float32), cuda.DummyDevice)
    assert isinstance(y, chainer.Variable) and y.device == chainer.get_device("@numpy")


def test_calls_that_change_nothing_give_x_back_as_chainer_does():
    x = numpy.ones((2, 3), numpy.float32)
    v = chainer.Variable(x)
    assert F.reshape(v, (2, 3)) is v and F.reshape(x, (2, 3)).array is x
    with chainer.using_config("enable_backprop", False):
        assert F.cast(v, numpy.float32) is v and F.cast(x, "float32").array is x
    y = F.cast(v, numpy.float32)  # with backprop: a node of its own (its own gradient)
    assert y is not v and y.creator.label == "Cast"


def test_chainers_stride_array_views_the_buffer_under_an_array():
    from fnet.compat.functions.array.as_strided import _stride_array

    x = numpy.arange(8, dtype=numpy.float32)
    assert _stride_array(x, (3, 3), (-1, 2), 3).tolist() == [[3, 5, 7], [2, 4, 6], [1, 3, 5]]
    flipped = numpy.arange(12, dtype=numpy.int32).reshape(3, 4)[::-1]
    assert _stride_array(flipped, (12,), (1,), 0).tolist() == list(range(12))  # the buffer's order
    with pytest.raises(
        ValueError, match=r"_stride_array: expected the view to stay in the 8 elements.*got elements -1..5"
    ):
        _stride_array(x, (3, 3), (-1, 2), 1)
    with pytest.raises(ValueError, match=r"got elements 0..8"):
        _stride_array(x, (9,), (1,), 0)


def test_zero_dim_results_are_arrays_and_extras_stay_arrays():
    y = F.relu(numpy.float32(2) * numpy.ones((), numpy.float32))
    assert type(y.array) is numpy.ndarray and y.shape == ()
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    y, mask = F.dropout(x, 0.5, return_mask=True)
    assert isinstance(y, chainer.Variable) and type(mask) is numpy.ndarray
    y, r = F.rrelu(x, return_r=True)
    assert type(r) is numpy.ndarray


def test_connections_take_weights_of_another_dtype_and_compute_in_x_dtype():
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    W = chainer.Variable(numpy.full((4, 3), 0.5, numpy.float16))
    b = chainer.Variable(numpy.ones(4, numpy.float64))
    y = F.linear(x, W, b)
    assert y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, numpy.full((2, 4), 2.5, numpy.float32))
    F.sum(y).backward()
    assert (x.grad.dtype, W.grad.dtype, b.grad.dtype) == (numpy.float32, numpy.float16, numpy.float64)
    numpy.testing.assert_array_equal(W.grad, numpy.full((4, 3), 2, numpy.float16))


def test_products_promote_mixed_dtypes_as_numpy():
    a = numpy.ones((2, 3), numpy.float16)
    b = numpy.ones((3, 2), numpy.float64)
    assert F.matmul(a, b).dtype == numpy.float64
    assert F.tensordot(a, b, axes=1).dtype == numpy.float64


def test_fixed_decorrelated_bn_promotes_mixed_dtypes_only_without_type_checks():
    x = numpy.ones((3, 4), numpy.float64)
    mean = numpy.zeros((1, 4), numpy.float32)
    projection = numpy.eye(4, dtype=numpy.float32)[None]
    with pytest.raises(type_check.InvalidType):
        F.fixed_decorrelated_batch_normalization(x, mean, projection, groups=1)
    with chainer.using_config("type_check", False):
        y = F.fixed_decorrelated_batch_normalization(x, mean, projection, groups=1)
    assert y.dtype == numpy.float64
    numpy.testing.assert_array_equal(y.array, x)


def test_fixed_batch_normalization_mixes_dtypes_only_with_type_checking_off():
    x = numpy.ones((2, 3), numpy.float32)
    gamma, beta = numpy.full(3, 2.0, numpy.float32), numpy.zeros(3, numpy.float32)
    mean, var = numpy.zeros(3, numpy.float64), numpy.ones(3, numpy.float64)
    with pytest.raises(type_check.InvalidType):
        F.fixed_batch_normalization(x, gamma, beta, mean, var, eps=0.0)
    with chainer.using_config("type_check", False):
        y = F.fixed_batch_normalization(x, gamma, beta, mean, var, eps=0.0)
    assert y.dtype == numpy.float32
    numpy.testing.assert_array_equal(y.array, 2 * x)


def test_a_batch_normalization_link_mixes_dtypes_only_with_type_checking_off():
    bn = chainer.links.BatchNormalization(3, dtype=numpy.float64)
    bn.gamma.array = bn.gamma.array.astype(numpy.float32)  # as numerical gradient checks cast it
    x = numpy.ones((2, 3), numpy.float32)
    with chainer.using_config("train", False):
        with pytest.raises(type_check.InvalidType):
            bn(x)
        with chainer.using_config("type_check", False):
            y = bn(x)
    numpy.testing.assert_allclose(y.array, x / numpy.sqrt(1 + 2e-5), rtol=1e-6)
    assert bn.avg_mean.dtype == numpy.float64


def test_coo_matrices_hold_a_variable_and_get_its_gradient():
    a = numpy.array([[1, 0, 2], [0, 3, 0]], numpy.float32)
    sa = chainer.utils.to_coo(a, requires_grad=True)
    assert isinstance(sa.data, chainer.Variable) and sa.shape == (2, 3) and sa.order == "C"
    b = chainer.Variable(numpy.ones((3, 2), numpy.float32))
    y = F.sparse_matmul(sa, b)
    numpy.testing.assert_array_equal(y.array, a @ b.array)
    F.sum(y).backward()
    numpy.testing.assert_array_equal(sa.data.grad[:3], [2, 2, 2])
    numpy.testing.assert_array_equal(sa.to_dense(), a)
    made = chainer.utils.CooMatrix(
        numpy.array([5.0], numpy.float32), numpy.array([1]), numpy.array([0]), (2, 2)
    )
    numpy.testing.assert_array_equal(made.to_dense(), [[0, 0], [5, 0]])


def test_no_op_reshape_broadcast_to_and_cast_give_x_itself_as_in_chainer():
    x = chainer.Variable(numpy.ones((2, 3), numpy.float32))
    assert F.reshape(x, (2, 3)) is x and F.broadcast_to(x, (2, 3)) is x
    assert F.broadcast_to(x, (4, 2, 3)) is not x
    cast = F.cast(x, numpy.float32)  # a node of its own while backprop is on
    assert cast is not x and cast.array is x.array and cast.creator is not None
    with chainer.no_backprop_mode():
        assert F.cast(x, numpy.float32) is x and F.cast(x, numpy.float64) is not x


def test_check_backward_of_a_function_that_returns_its_input():
    from fnet.compat import gradient_check

    x = numpy.random.RandomState(0).uniform(-1, 1, (2, 3))
    gradient_check.check_backward(lambda v: F.broadcast_to(v, (2, 3)), x, numpy.ones((2, 3)))
