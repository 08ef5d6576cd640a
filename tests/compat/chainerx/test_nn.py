"""The neural-network routines: values against NumPy formulas, gradients with check_backward
(float64; central differences at eps=1e-3 agree within the default atol 1e-5, rtol 1e-4)."""

from __future__ import annotations

import numpy
import pytest

import fnet.compat.chainerx as chx

_RNG = numpy.random.default_rng(0)


def _data(*shape):
    return _RNG.uniform(-1, 1, shape)


def test_activations_match_their_formulas():
    x = _data(7)
    out = {
        "relu": (chx.relu, numpy.maximum(x, 0)),
        "sigmoid": (chx.sigmoid, 1 / (1 + numpy.exp(-x))),
        "leaky_relu": (lambda a: chx.leaky_relu(a, 0.1), numpy.where(x > 0, x, 0.1 * x)),
        "softplus": (chx.softplus, numpy.log1p(numpy.exp(x))),
        "clipped_relu": (lambda a: chx.clipped_relu(a, 0.5), numpy.clip(x, 0, 0.5)),
    }
    for name, (routine, expected) in out.items():
        numpy.testing.assert_allclose(chx.to_numpy(routine(chx.array(x))), expected, rtol=1e-12, err_msg=name)


def test_linear_and_dot_are_matrix_products():
    x, w, b = _data(2, 3), _data(4, 3), _data(4)
    y = chx.linear(chx.array(x), chx.array(w), chx.array(b))
    numpy.testing.assert_allclose(chx.to_numpy(y), x @ w.T + b, rtol=1e-12)
    numpy.testing.assert_allclose(chx.to_numpy(chx.dot(chx.array(x), chx.array(w.T))), x @ w.T, rtol=1e-12)


def test_losses_are_per_element_or_per_sample():
    x, t = _data(4, 3), numpy.array([0, 2, 1, 1])
    loss = chx.to_numpy(chx.softmax_cross_entropy(chx.array(x), chx.array(t)))
    log_p = x - numpy.log(numpy.exp(x).sum(axis=1, keepdims=True))
    numpy.testing.assert_allclose(loss, -log_p[numpy.arange(4), t], rtol=1e-12)
    numpy.testing.assert_allclose(
        chx.to_numpy(chx.squared_error(chx.array(x), chx.zeros((4, 3), "float64"))), x * x, rtol=1e-12
    )


def test_batch_norm_updates_the_running_statistics_in_place():
    x = _data(5, 3)
    mean, var = chx.zeros((3,), "float64"), chx.ones((3,), "float64")
    chx.batch_norm(chx.array(x), chx.ones((3,), "float64"), chx.zeros((3,), "float64"), mean, var, decay=0.9)
    numpy.testing.assert_allclose(chx.to_numpy(mean), 0.1 * x.mean(axis=0), rtol=1e-12)
    numpy.testing.assert_allclose(chx.to_numpy(var), 0.9 + 0.1 * x.var(axis=0, ddof=1), rtol=1e-12)


@pytest.mark.parametrize(
    ("name", "f", "shapes"),
    [
        ("conv", lambda xs: (chx.conv(xs[0], xs[1], xs[2], 1, 1),), [(1, 2, 4, 4), (3, 2, 3, 3), (3,)]),
        ("deconv", lambda xs: (chx.conv_transpose(xs[0], xs[1], None, 2),), [(1, 3, 2, 2), (3, 2, 2, 2)]),
        ("average_pool", lambda xs: (chx.average_pool(xs[0], 2, 1, 1, "ignore"),), [(1, 2, 3, 3)]),
        ("linear", lambda xs: (chx.linear(xs[0], xs[1]),), [(2, 3), (4, 3)]),
        ("fixed_bn", lambda xs: (chx.fixed_batch_norm(xs[0], xs[1], xs[2], xs[3], xs[4] * xs[4] + 1),),
         [(4, 3), (3,), (3,), (3,), (3,)]),
        ("elu", lambda xs: (chx.elu(xs[0]),), [(5,)]),
    ],
    ids=lambda v: v if isinstance(v, str) else "",
)  # fmt: skip
def test_gradients_match_central_differences(name, f, shapes):
    xs = [chx.array(_data(*s)).require_grad() for s in shapes]
    ys = f(xs)
    gys = [chx.array(_data(*y.shape)) for y in ys]
    chx.check_backward(f, xs, gys, [chx.full(s, 1e-3, "float64") for s in shapes])


def test_accuracy_counts_the_right_argmaxes_and_checks_its_operands():
    y = chx.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]], "float32")
    assert chx.accuracy(y, chx.array([1, 1, 1], "int32")).item() == pytest.approx(2 / 3)
    assert chx.accuracy(y, chx.array([1, 0, 0], "int32"), ignore_label=0).item() == 1.0
    with pytest.raises(chx.DtypeError, match="integer labels"):
        chx.accuracy(y, chx.array([1.0, 0.0, 0.0], "float32"))
    with pytest.raises(chx.DimensionError, match="one label per sample"):
        chx.accuracy(y, chx.array([1, 0], "int32"))


def test_operand_errors_are_chainerxs():
    with pytest.raises(chx.DimensionError, match="conv"):
        chx.conv(chx.ones((1, 3, 4, 3)), chx.ones((5, 4, 2, 2)))
    with pytest.raises(chx.DtypeError, match="one float dtype"):
        chx.lstm(chx.ones((2, 3), "float16"), chx.ones((2, 12), "float32"))
    with pytest.raises(chx.DimensionError, match=r"gamma of shape \(3, 4, 5\)"):
        chx.fixed_batch_norm(*(chx.ones(s) for s in [(2, 3, 4, 5), (3,), (3,), (3,), (3,)]))


def test_integer_and_bool_convolutions_and_linear_keep_their_dtype():
    x = numpy.arange(12, dtype=numpy.int16).reshape(1, 3, 4)
    w = numpy.arange(6, dtype=numpy.int8).reshape(2, 3, 1)
    y = chx.conv(chx.array(x), chx.array(w))
    assert y.dtype == numpy.int16
    numpy.testing.assert_array_equal(chx.to_numpy(y), numpy.einsum("nct,oc->not", x, w[..., 0]))
    lin = chx.linear(chx.array(x[0]), chx.array(numpy.ones((5, 4), numpy.int16)))
    assert lin.dtype == numpy.int16
    numpy.testing.assert_array_equal(chx.to_numpy(lin), x[0] @ numpy.ones((4, 5), numpy.int16))
    bools = chx.linear(
        chx.array(numpy.array([[True, False]])), chx.array(numpy.array([[False, True], [True, False]]))
    )
    assert bools.dtype == numpy.bool_
    numpy.testing.assert_array_equal(chx.to_numpy(bools), [[False, True]])


def test_convolutions_without_spatial_axes_are_matrix_products():
    x = numpy.array([[1.0, 2.0, 3.0]])
    w = numpy.arange(15.0).reshape(5, 3)
    numpy.testing.assert_allclose(chx.to_numpy(chx.conv(chx.array(x), chx.array(w))), x @ w.T, rtol=1e-15)
    wt = numpy.arange(15.0).reshape(3, 5)
    numpy.testing.assert_allclose(
        chx.to_numpy(chx.conv_transpose(chx.array(x), chx.array(wt))), x @ wt, rtol=1e-15
    )


@pytest.mark.parametrize("fixed", [True, False])
def test_batch_norm_gives_xs_dtype_whatever_its_parameters(fixed):
    x = chx.array(numpy.random.default_rng(0).uniform(-1, 1, (4, 3)).astype(numpy.float16))
    gamma, beta, mean, var = (chx.array(numpy.full(3, v, numpy.float64)) for v in (1.0, 0.0, 0.0, 1.0))
    y = (
        chx.fixed_batch_norm(x, gamma, beta, mean, var)
        if fixed
        else chx.batch_norm(x, gamma, beta, mean, var)
    )
    assert y.dtype == numpy.float16


@pytest.mark.parametrize(
    ("a_shape", "b_shape"), [((2, 3), (3, 4)), ((2, 0, 3), (4, 3, 5)), ((1, 2, 0), (2, 0, 3)), ((3,), (3,))]
)
def test_dot_is_numpys_including_empty_and_integer_operands(a_shape, b_shape):
    rng = numpy.random.default_rng(1)
    a, b = rng.uniform(-1, 1, a_shape), rng.uniform(-1, 1, b_shape)
    y = chx.dot(chx.array(a), chx.array(b))
    expected = numpy.dot(a, b)
    assert y.shape == expected.shape and y.strides == expected.strides
    numpy.testing.assert_allclose(chx.to_numpy(y), expected, rtol=1e-14)
    ints = chx.dot(chx.array(a.astype(numpy.int16)), chx.array(b.astype(numpy.int8)))
    assert ints.dtype == numpy.int16
    numpy.testing.assert_array_equal(
        chx.to_numpy(ints), numpy.dot(a.astype(numpy.int16), b.astype(numpy.int16))
    )


def test_sigmoid_cross_entropy_is_chainerxs_formula_for_any_label():
    x = numpy.array([[-1.5, 0.5], [2.0, 0.0]])
    t = numpy.array([[0, 1], [-1, 3]], numpy.int32)  # -1 ignored; 3 is taken as it is
    expected = -(x * (t - (x >= 0)) - numpy.log1p(numpy.exp(-numpy.abs(x)))) * (t != -1)
    y = chx.sigmoid_cross_entropy(chx.array(x), chx.array(t))
    numpy.testing.assert_allclose(chx.to_numpy(y), expected, rtol=1e-14)


def test_gaussian_kl_divergence_is_per_element():
    mean, ln_var = numpy.array([0.5, -1.0]), numpy.array([0.1, -0.3])
    expected = (mean**2 + numpy.exp(ln_var) - ln_var - 1) / 2
    y = chx.gaussian_kl_divergence(chx.array(mean), chx.array(ln_var))
    numpy.testing.assert_allclose(chx.to_numpy(y), expected, rtol=1e-14)


def test_accuracy_reshapes_the_argmaxes_to_the_labels():
    y = numpy.zeros((4, 3, 1), numpy.float32)
    y[numpy.arange(4), [0, 2, 1, 1], 0] = 1
    t = numpy.array([0, 2, 0, 1], numpy.int32)  # (N,) labels for (N, C, 1) scores, as ChainerX takes them
    assert float(chx.accuracy(chx.array(y), chx.array(t))) == 0.75
    assert float(chx.accuracy(chx.array(y), chx.array(t), ignore_label=0)) == 1.0
