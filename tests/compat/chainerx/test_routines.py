"""ChainerX's dtype rules and errors on the routines (fnet's own ops refuse to mix floats)."""

from __future__ import annotations

import numpy
import pytest

import fnet.compat.chainerx as chx


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("float16", "float32", "float32"),
        ("int64", "float16", "float16"),
        ("uint8", "int8", "int16"),
        ("bool", "int8", "int8"),
    ],
)
def test_two_arrays_promote_as_chainerx_does(a, b, expected):
    assert (chx.ones((2,), a) * chx.ones((2,), b)).dtype == numpy.dtype(expected)


@pytest.mark.parametrize(
    ("a", "scalar", "expected"), [("int8", 1, "int8"), ("int8", 1.5, "float32"), ("float16", 2.0, "float16")]
)
def test_scalars_are_weak_unless_of_a_higher_kind(a, scalar, expected):
    assert (chx.ones((2,), a) + scalar).dtype == numpy.dtype(expected)


def test_integer_division_is_float32():
    assert (chx.arange(3) / chx.arange(1, 4)).dtype == numpy.float32


def test_arithmetic_on_bool_arrays_is_a_dtype_error():
    with pytest.raises(chx.DtypeError, match="numeric"):
        chx.ones((2,), "bool") + chx.ones((2,), "bool")


def test_shapes_that_do_not_broadcast_are_a_dimension_error():
    with pytest.raises(chx.DimensionError):
        chx.less(chx.ones((2,), "float32"), chx.ones((3,), "float32"))


def test_reductions_check_their_axes():
    a = chx.ones((2, 3), "float32")
    assert a.sum(axis=1)._debug_flat_data == [3.0, 3.0] and chx.amax(a, axis=(0, 1)).item() == 1.0
    with pytest.raises(chx.DimensionError, match="axes"):
        a.sum(axis=2)
    with pytest.raises(chx.DimensionError, match="nonempty"):
        chx.amax(chx.ones((0,), "float32"))


def test_creation_defaults_follow_chainerx():
    assert chx.zeros((2,)).dtype == numpy.float32
    assert chx.full((2,), 3).dtype == numpy.int32 and chx.arange(3).dtype == numpy.int32
    assert chx.diag(chx.array([1.0, 2.0]), 1)._debug_flat_data == [0, 1, 0, 0, 0, 2, 0, 0, 0]


def test_unknown_backends_and_devices_are_errors():
    with pytest.raises(chx.BackendError, match="native"):
        chx.get_device("tpu:0")
    with pytest.raises(chx.DeviceError, match="index"):
        chx.get_device("native:9")


def test_power_refuses_bool_scalars_too():
    with pytest.raises(chx.DtypeError, match="numeric"):
        chx.power(chx.ones((2,), "float32"), True)
    assert (chx.ones((2,), "int8") + 1).dtype == numpy.int8


def test_shifts_keep_the_shifted_arrays_dtype_and_a_shifted_scalar_is_int64():
    a = chx.array(numpy.array([1, 2, 3], numpy.int8))
    by = chx.array(numpy.array([1, 2, 3], numpy.int16))
    assert (a << by).dtype == numpy.int8 and chx.right_shift(a, by).dtype == numpy.int8
    numpy.testing.assert_array_equal(chx.to_numpy(a << by), [2, 8, 24])
    shifted = chx.left_shift(1, chx.array(numpy.array([0, 3], numpy.uint8)))
    assert shifted.dtype == numpy.int64
    numpy.testing.assert_array_equal(chx.to_numpy(shifted), [1, 8])
    with pytest.raises(chx.DtypeError, match="expected integer operands"):
        chx.left_shift(chx.ones((2,), "bool"), 1)


def test_in_place_operators_cast_within_a_kind_and_refuse_to_change_it():
    a = chx.array(numpy.array([3, 5], numpy.uint8))
    a &= chx.array(numpy.array([1, 4], numpy.int16))  # the int16 result is written back as uint8
    assert a.dtype == numpy.uint8
    numpy.testing.assert_array_equal(chx.to_numpy(a), [1, 4])
    with pytest.raises(chx.DtypeError, match="assigns no floats into an integer array"):
        a += chx.ones((2,), "float32")
    flags = chx.ones((2,), "bool")
    with pytest.raises(chx.DtypeError, match="nor numbers into a bool array"):
        flags *= chx.ones((2,), "int8")


def test_sums_and_cumsums_of_integers_and_bools_are_int64():
    small = chx.array(numpy.array([[200, 100], [50, 3]], numpy.uint8))
    assert chx.sum(small).dtype == numpy.int64 and int(chx.sum(small)) == 353
    cumulative = chx.cumsum(small, axis=1)
    assert cumulative.dtype == numpy.int64
    numpy.testing.assert_array_equal(chx.to_numpy(cumulative), [[200, 300], [50, 53]])
    assert chx.cumsum(chx.ones((3,), "bool")).dtype == numpy.int64


def test_softmax_and_log_softmax_default_to_axis_1():
    x = numpy.array([[[0.0, 1.0], [2.0, 0.5]]])  # softmax over axis 1, not over all axes
    expected = numpy.exp(x) / numpy.exp(x).sum(axis=1, keepdims=True)
    numpy.testing.assert_allclose(chx.to_numpy(chx.softmax(chx.array(x))), expected, rtol=1e-14)
    numpy.testing.assert_allclose(
        chx.to_numpy(chx.log_softmax(chx.array(x))), numpy.log(expected), rtol=1e-14
    )


def test_argmax_over_a_nonempty_axis_of_an_empty_array_is_empty():
    empty = chx.zeros((2, 0, 3), "float32")
    assert chx.argmax(empty, axis=2).shape == (2, 0) and chx.argmin(empty, axis=0).shape == (0, 3)
    with pytest.raises(chx.DimensionError, match="expected a nonempty array"):
        chx.argmax(empty, axis=1)


def test_tril_and_triu_of_a_vector_are_of_its_square_and_diag_of_a_matrix_is_a_view():
    v = numpy.array([1.0, 2.0, 3.0])
    numpy.testing.assert_array_equal(chx.to_numpy(chx.tril(chx.array(v))), numpy.tril(v))
    numpy.testing.assert_array_equal(chx.to_numpy(chx.triu(chx.array(v), 1)), numpy.triu(v, 1))
    m = numpy.arange(6, dtype=numpy.int32).reshape(2, 3)
    d = chx.diag(chx.array(m), 1)
    assert d.strides == numpy.diag(m, 1).strides
    numpy.testing.assert_array_equal(chx.to_numpy(d), [1, 5])


def test_in_place_operators_compute_in_the_arrays_dtype():
    a = chx.array(numpy.array([1.0, 2.5], numpy.float16))
    b = numpy.array([0.3, 0.7], numpy.float32)
    a %= chx.array(b)
    expected = numpy.array([1.0, 2.5], numpy.float16) % b.astype(numpy.float16)
    numpy.testing.assert_array_equal(chx.to_numpy(a), expected)


def test_take_with_mode_raise_checks_the_indices_and_counts_negative_ones_from_the_end():
    a = chx.array(numpy.arange(6.0).reshape(2, 3))
    numpy.testing.assert_array_equal(chx.to_numpy(chx.take(a, [-1, 0], 1, mode="raise")), [[2, 0], [5, 3]])
    with pytest.raises(IndexError, match="expected indices in \\[-3, 3\\) with mode 'raise'"):
        chx.take(a, [3], 1, mode="raise")
    with pytest.raises(chx.DimensionError, match="expected an axis of 2 dimensions"):
        chx.take(a, [0], 2)


def test_indexing_after_an_ellipsis_counts_axes_from_the_end_and_too_many_is_an_index_error():
    a = chx.array(numpy.arange(24.0).reshape(2, 3, 4))
    assert a[1, ..., None, 3].shape == (3, 1)
    with pytest.raises(IndexError):
        a[0, 0, 0, 0]
    with pytest.raises(IndexError, match="out of bounds"):
        a[..., 4]


def test_concatenate_with_no_axis_joins_the_flattened_arrays():
    a, b = numpy.arange(4.0).reshape(2, 2), numpy.arange(3.0)
    joined = chx.concatenate([chx.array(a), chx.array(b)], axis=None)
    numpy.testing.assert_array_equal(chx.to_numpy(joined), numpy.concatenate([a, b], axis=None))


def test_repeat_gives_a_c_contiguous_array():
    a = numpy.arange(8.0).reshape(4, 2)
    y = chx.repeat(chx.array(a), 2, 1)
    assert y.is_contiguous and y.strides == numpy.repeat(a, 2, 1).strides
    numpy.testing.assert_array_equal(chx.to_numpy(y), numpy.repeat(a, 2, 1))


def test_atleast_and_squeeze_give_numpys_views():
    v = numpy.arange(3.0)
    for name in ("atleast_2d", "atleast_3d"):
        y = getattr(chx, name)(chx.array(v))
        assert y.shape == getattr(numpy, name)(v).shape and y.strides == getattr(numpy, name)(v).strides
    m = numpy.arange(6.0).reshape(1, 2, 1, 3)
    reversed_view = chx.array(m)[:, ::-1]  # negative strides
    assert chx.squeeze(reversed_view, (0, 2)).strides == m[:, ::-1].squeeze((0, 2)).strides


def test_reshape_takes_any_negative_length_as_the_one_that_fits_and_needs_a_shape():
    a = chx.array(numpy.arange(24.0).reshape(2, 3, 4))
    assert chx.reshape(a, (3, -3, 2)).shape == (3, 4, 2)
    with pytest.raises(TypeError, match="expected a new shape"):
        a.reshape()


def test_split_takes_a_number_of_sections_in_any_numeric_form_and_transpose_one_axis():
    a = chx.array(numpy.arange(6.0))
    for sections in (2, 2.0, numpy.array(2), numpy.array(2.0)):
        assert [p.shape for p in chx.split(a, sections)] == [(3,), (3,)]
    assert chx.transpose(a, 0).shape == (6,)


@pytest.mark.parametrize("name", ["normal", "uniform"])
def test_random_draws_numpys_samples_on_the_device(name):
    numpy.random.seed(5)
    drawn = getattr(chx.random, name)(0.0, 1.0, (2, 3), device="native:1")
    numpy.random.seed(5)
    numpy.testing.assert_array_equal(chx.to_numpy(drawn), getattr(numpy.random, name)(0.0, 1.0, (2, 3)))
    assert drawn.device is chx.get_device("native:1") and drawn.dtype == numpy.float64


def test_eye_is_float64_by_default_as_chainerxs_binding_declares():
    assert chx.eye(3).dtype == numpy.float64
    assert chx.eye(2, 3, 1, dtype="float32").dtype == numpy.float32
    numpy.testing.assert_array_equal(chx.to_numpy(chx.eye(2, 3, 1)), numpy.eye(2, 3, 1))
