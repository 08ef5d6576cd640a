"""Host arrays must not meet device arrays: the places where fnet once built host constants into
values that may live on a GPU, run on a stand-in device that refuses host operands as CuPy does."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import ops
from fnet.errors import DeviceError

from .._device_double import DeviceArray, installed

CASES = {
    "cumprod with zeros": lambda x: ops.sum(ops.cumprod(x, axis=1)),
    "repeat": lambda x: ops.sum(ops.repeat(x, 2, axis=1)),
    "pad, edge mode": lambda x: ops.sum(ops.pad(x, 1, mode="edge")),
    "diagonal": lambda x: ops.sum(ops.diagonal(x)),
    "take with a list": lambda x: ops.sum(ops.take(x, [0, 2], axis=1)),
}
X = [[1.0, 0.0, 2.0], [3.0, 4.0, 0.5]]


@pytest.mark.parametrize("name", CASES)
def test_gradient_stays_on_the_device(name):
    f = CASES[name]
    expected = fnet.grad(f)(numpy.array(X))
    with installed() as device:
        grad = fnet.grad(f)(device.asarray(X))
    assert type(grad) is DeviceArray
    numpy.testing.assert_array_max_ulp(grad.get(), expected, maxulp=0)  # the same NumPy arithmetic


def test_mixing_host_and_device_arrays_names_both_devices():
    with installed() as device, pytest.raises(DeviceError) as info:
        ops.add(numpy.ones(3), device.asarray([1.0, 2.0, 3.0]))
    text = str(info.value)
    assert text.startswith("add: operands live on different devices")
    assert "@numpy" in text and "@cupy:0" in text and "to_device" in text


def test_matmul_of_host_and_device_arrays_names_both_devices():
    # a device array refuses a host operand with a TypeError, which matmul once explained as a
    # shape mismatch ("the batch shapes () and () cannot be broadcast together")
    with installed() as device, pytest.raises(DeviceError, match="a on @numpy, b on @cupy:0"):
        ops.matmul(numpy.ones(3), device.asarray(numpy.ones((3, 4))))


MIXED = {  # a host operand and a device one: the device's TypeError came out as it was
    "concatenate": (
        lambda h, d: ops.concatenate([h, d]),
        r"concatenate: .*xs\[0\] on @numpy, xs\[1\] on @cupy:0",
    ),
    "stack": (lambda h, d: ops.stack([h, d]), r"concatenate: .*xs\[0\] on @numpy, xs\[1\] on @cupy:0"),
    "einsum": (
        lambda h, d: ops.einsum("i,i->", h, d),
        r"einsum: .*operands\[0\] on @numpy, operands\[1\] on @cupy",
    ),
}


@pytest.mark.parametrize("name", MIXED)
def test_ops_mixing_host_and_device_operands_name_both_devices(name):
    f, expected = MIXED[name]
    with installed() as device, pytest.raises(DeviceError, match=expected):
        f(numpy.ones(2), device.asarray([1.0, 2.0]))


def test_scalars_go_with_any_device():
    with installed() as device:
        y = ops.multiply(device.asarray([1.0, 2.0]), numpy.float64(2.0))
        z = ops.add(3, device.asarray([1.0]))
    assert type(y) is DeviceArray and type(z) is DeviceArray


def test_where_with_a_host_condition_names_both_devices():
    with installed() as device, pytest.raises(DeviceError, match="condition on @numpy, x on @cupy:0"):
        ops.where(numpy.array([True, False]), device.asarray([1.0, 2.0]), 0.0)


def test_a_device_array_operator_with_a_traced_value_is_recorded():
    # CuPy's ufuncs hand a traced operand to its __cupy_override_elementwise_kernel__ (the LSTM
    # cell's VJP and user code such as x * params["w"] take this path)
    def f(w, x):
        return ops.sum(x * w + x / w - x**w)

    x, w = numpy.array([1.0, 2.0, 3.0]), numpy.array([0.5, 1.5, 2.5])
    expected = fnet.grad(f)(w, x)
    with installed() as device:
        grad = fnet.grad(f)(device.asarray(w), device.asarray(x))
    assert type(grad) is DeviceArray
    numpy.testing.assert_array_max_ulp(grad.get(), expected, maxulp=0)


def test_a_device_scalar_is_weak_like_a_numpy_scalar():
    """CuPy's reductions give 0-d arrays where NumPy's give scalars: both take the other
    operand's float dtype, so a step gives the same dtypes on both."""
    x = numpy.array([1.0, 2.0], numpy.float32)
    on_host = ops.multiply(ops.sum(x.astype(numpy.float64)), x)
    with installed() as device:
        on_device = ops.multiply(ops.sum(device.asarray(x, numpy.float64)), device.asarray(x))
    assert on_host.dtype == on_device.dtype == numpy.float32
    assert type(on_device) is DeviceArray
    numpy.testing.assert_array_equal(on_device.get(), on_host)
