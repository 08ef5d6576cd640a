"""The ndarray contract: data, devices, views and copies, gradients per backprop ID, repr."""

from __future__ import annotations

import copy

import numpy
import pytest

import fnet.compat.chainerx as chx


def test_an_array_holds_its_data_on_the_default_device():
    a = chx.array([[1, 2, 3], [4, 5, 6]], "float32")
    assert a.shape == (2, 3) and a.dtype == numpy.float32 and a.ndim == 2 and a.size == 6
    assert a.device is chx.get_default_device() and a.device.name == "native:0"
    assert a.is_contiguous and a.itemsize == 4 and a.nbytes == 24
    numpy.testing.assert_array_equal(chx.to_numpy(a), [[1, 2, 3], [4, 5, 6]])


def test_routines_give_arrays_never_numpy_scalars():
    s = chx.array([1.0, 2.0], "float32").sum()
    assert type(s) is chx.ndarray and s.shape == () and s.item() == 3.0


def test_views_share_data_and_copies_do_not():
    a = chx.arange(6, dtype="float32").reshape(2, 3)
    view, clone = a.view(), a.copy()
    a += 1
    assert view._debug_flat_data == a._debug_flat_data
    assert clone._debug_flat_data == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    assert a.T.shape == (3, 2) and a[1, 1:]._debug_flat_data == [5.0, 6.0]


def test_to_numpy_shares_native_data_unless_copied():
    a = chx.zeros((3,), "float32")
    chx.to_numpy(a, copy=False)[0] = 7
    chx.to_numpy(a, copy=True)[1] = 7
    assert a._debug_flat_data == [7.0, 0.0, 0.0]


def test_to_device_moves_between_native_devices():
    a = chx.ones((2,), "float32")
    b = a.to_device("native:1")
    assert b.device is chx.get_device("native", 1) and a.to_device(a.device) is a
    with pytest.raises(chx.DeviceError, match="one device"):
        a + b


def test_deepcopy_and_pickle_rebuild_the_array():
    import pickle

    a = chx.array([1.0, 2.0], "float64")
    for b in (copy.deepcopy(a), pickle.loads(pickle.dumps(a))):  # noqa: S301 (our own bytes)
        assert b.dtype == numpy.float64 and b._debug_flat_data == [1.0, 2.0] and b.device is a.device


def test_gradients_are_kept_per_backprop_id():
    x = chx.array([1.0, 2.0], "float32")
    with pytest.raises(chx.ChainerxError, match="require_grad"):
        x.get_grad()
    with chx.backprop_scope("bp1") as bp1:
        x.require_grad(bp1)
        assert x.is_grad_required(bp1) and not x.is_grad_required()
        chx.backward((x * x).sum(), bp1)
        assert x.get_grad(bp1)._debug_flat_data == [2.0, 4.0]
        with pytest.raises(chx.GradientError, match="shape"):
            x.set_grad(chx.zeros((3,), "float32"), bp1)
    assert repr(x).endswith("backprop_ids=['<expired>'])")


def test_in_place_updates_are_refused_in_a_graph():
    x = chx.array([1.0], "float32").require_grad()
    with pytest.raises(chx.ChainerxError, match="in-place"):
        x += 1


def test_only_float_arrays_require_grad():
    with pytest.raises(chx.DtypeError, match="float"):
        chx.array([1, 2], "int32").require_grad()


def test_one_element_arrays_convert_to_python_scalars():
    assert float(chx.array([2.5], "float32")) == 2.5 and int(chx.array(3)) == 3
    with pytest.raises(chx.DimensionError, match="one element"):
        float(chx.zeros((2,), "float32"))


def test_repr_names_shape_dtype_device_and_graphs():
    a = chx.array([3.0], "float32").require_grad()
    assert repr(a) == "array([3.], shape=(1,), dtype=float32, device='native:0', backprop_ids=['<default>'])"


def test_asarray_shares_what_it_can_and_converts_the_rest():
    data = numpy.zeros(2, numpy.float32)
    shared = chx.asarray(data)
    data[0] = 5
    assert shared._debug_flat_data == [5.0, 0.0]
    assert chx.asarray([1, 2], "float32").dtype == numpy.float32  # a list: converted, not refused
    assert chx.asarray(data, "float64").dtype == numpy.float64  # another dtype: a copy


def test_is_chained_tells_routine_outputs_from_inputs_of_a_graph():
    a = chx.array(numpy.array([1.0, 2.0], numpy.float32))
    with pytest.raises(chx.ChainerxError, match="expected an array in graph"):
        a._is_chained()
    a.require_grad()
    assert not a._is_chained() and (2 * a)._is_chained()


def test_item_assignment_writes_the_data_in_place_as_chainerxs_does():
    a = chx.zeros((2, 3), "float32")
    data = chx.to_numpy(a, copy=False)
    a[:] = 2
    a[0, 1:] = chx.array([5.0, 6.0], dtype="float32")
    a[chx.array([1])] = 7
    expected = numpy.array([[2, 5, 6], [7, 7, 7]], numpy.float32)
    numpy.testing.assert_array_equal(chx.to_numpy(a), expected)
    numpy.testing.assert_array_equal(data, expected)  # the same memory
    with pytest.raises(IndexError, match=r"ndarray.__setitem__: .*the array's shape is \(2, 3\)"):
        a[5] = 1


def test_item_assignment_is_refused_for_an_array_that_backprop_needs():
    b = chx.ones((2,), "float32").require_grad()
    with pytest.raises(RuntimeError, match="ndarray.__setitem__: expected an array that no graph needs"):
        b[0] = 3
    with chx.no_backprop_mode():
        b[0] = 3  # no backprop now: nothing needs it
    assert float(b[0]) == 3.0


@pytest.mark.parametrize(("op", "expected"), [("__iadd__", 5.0), ("__isub__", -1.0), ("__imul__", 6.0)])
def test_in_place_operators_of_one_dtype_write_the_arrays_own_memory(op, expected):
    a = chx.full((3,), 2.0, "float32")
    data = chx.to_numpy(a, copy=False)
    got = getattr(a, op)(chx.full((3,), 3.0, "float32"))
    assert got is a and a.dtype == numpy.float32
    numpy.testing.assert_array_equal(data, numpy.full(3, expected, numpy.float32))
    b = chx.full((3,), 2, "int32")
    b += chx.full((3,), 3, "int16")  # another dtype: the routine's rule, cast back into the array
    assert b.dtype == numpy.int32 and chx.to_numpy(b).tolist() == [5, 5, 5]
