"""``chainer.backend``, ``chainer.backends.cuda``/``intel64`` and ``print_runtime_info``.

Without CuPy, every call of ``tests/golden/make_backend.py`` must give what Chainer 7.8.1 gives
on a machine without CuPy and iDeep; the GPU tests run where CuPy sees a device.
"""

from __future__ import annotations

import io
import json
import types

import numpy
import pytest

import fnet
import fnet.compat as chainer
from fnet.compat import backend, backends
from fnet.compat.backends import cuda, intel64
from fnet.compat.runtime_info import print_runtime_info

from .._scripts import GOLDEN, load_golden

needs_no_cupy = pytest.mark.skipif(fnet.backend.cupy_available(), reason="checks the CPU-only behaviour")


def _chainer_namespace():
    """The names ``make_backend.outcomes`` reads from ``chainer``, from fnet's modules."""
    return types.SimpleNamespace(
        backend=backend,
        backends=backends,
        Variable=chainer.Variable,
        get_device=backend.get_device,
        using_device=backend.using_device,
        get_array_types=backend.get_array_types,
        get_cpu_array_types=backend.get_cpu_array_types,
        is_arrays_compatible=backend.is_arrays_compatible,
    )


@needs_no_cupy
def test_calls_match_chainer_without_cupy():
    module = load_golden("make_backend")
    expected = json.loads((GOLDEN / "backend.json").read_text())
    # the golden data comes from Chainer built without ChainerX; fnet has ChainerX, so a name
    # without '@' is a ChainerX device, as in a Chainer build with it (chainer/backend.py)
    for spec in ("native:0", "native"):
        expected[f"get_device('{spec}')"] = {
            "value": {"repr": "<ChainerxDevice native:0>", "str": "native:0"}
        }
    for call in ("get_array_types()", "get_cpu_array_types()"):  # chainer/__init__.py adds chainerx.ndarray
        expected[call] = {"value": {"list": ["ndarray", "ndarray"]}}
    got = json.loads(json.dumps(module.outcomes(_chainer_namespace())))
    assert sorted(got) == sorted(expected)
    for call in expected:
        assert got[call] == expected[call], call


# -- devices and fnet's devices -----------------------------------------------------------------
def test_chainer_devices_are_fnet_devices():
    cpu = backend.CpuDevice()
    assert isinstance(cpu, fnet.backend.Device)
    assert cpu == fnet.backend.CPU and fnet.backend.CPU == cpu
    assert hash(cpu) == hash(fnet.backend.CPU)
    assert fnet.backend.get_device(cpu) is cpu
    tree = fnet.backend.to_device({"W": numpy.ones(2)}, cpu)
    assert isinstance(tree["W"], numpy.ndarray)
    assert backend.get_device(fnet.backend.CPU) == cpu
    assert isinstance(backend.get_device(fnet.backend.CPU), backend.CpuDevice)


def test_variables_move_to_chainer_devices():
    x = chainer.Variable(numpy.ones(3, numpy.float32))
    assert x.to_device(backend.get_device("@numpy")) is x
    assert backend.get_device_from_array(x.array) == x.device


def test_device_errors_are_clear():
    with pytest.raises(RuntimeError, match="not a context manager"):
        with backend.CpuDevice():
            pass
    with pytest.raises(chainer.chainerx.BackendError, match="expected 'native' or 'cuda'"):
        backend.get_device("tpu:0")
    with pytest.raises(ValueError, match="unknown device '@numpy:0'"):
        backend.get_device("@numpy:0")
    with pytest.raises(TypeError, match="got float"):
        backend.get_device(1.5)
    with pytest.raises(TypeError):
        backend.Device()  # abstract


def test_using_device_makes_the_device_current():
    with backend.using_device("@numpy"):
        assert fnet.backend.current_device() == backend.CpuDevice()


def test_get_array_module_looks_into_variables():
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    assert backend.get_array_module(x, 1.0, None) is numpy
    assert cuda.get_array_module(x) is numpy


def test_copyto_between_arrays():
    dst = numpy.zeros((2, 2), numpy.float32)
    backend.copyto(dst, numpy.arange(4, dtype=numpy.float64).reshape(2, 2))
    numpy.testing.assert_array_equal(dst, [[0, 1], [2, 3]])
    with pytest.raises(TypeError, match="dst must be a NumPy, CuPy or ChainerX array"):
        backend.copyto(chainer.Variable(dst), dst)


# -- cuda without CuPy --------------------------------------------------------------------------
@needs_no_cupy
def test_cuda_without_cupy():
    assert not cuda.available and not cuda.cudnn_enabled
    with pytest.raises(RuntimeError, match="CUDA environment is not correctly set up"):
        cuda.to_gpu(numpy.ones(2))
    with pytest.raises(RuntimeError, match="CUDA environment is not correctly set up"):
        cuda.Device(0)
    with pytest.raises(RuntimeError, match="CUDA environment is not correctly set up"):
        backend.get_device("@cupy:0")
    with cuda.get_device_from_id(-1) as device:  # the old examples' `with cuda.get_device_from_id(args.gpu)`
        assert device is cuda.DummyDevice
    cuda.get_device_from_id(None).use()
    assert cuda.get_max_workspace_size() == 0
    assert not cuda.should_use_cudnn_tensor_core(numpy.float16)


def test_cuda_get_device_is_deprecated():
    with pytest.warns(DeprecationWarning, match="get_device_from_id"):
        assert cuda.get_device(numpy.ones(1)) is cuda.DummyDevice


def test_cuda_to_cpu_keeps_numpy_arrays():
    a = numpy.ones(3)
    converted = cuda.to_cpu((a, None, a))
    assert type(converted) is tuple and converted[0] is a and converted[1] is None and converted[2] is a


def test_should_use_cudnn_checks_its_level():
    with pytest.raises(ValueError, match="level must be"):
        cuda.should_use_cudnn("sometimes")


def test_intel64_is_never_available():
    assert not intel64.is_ideep_available()
    with pytest.raises(RuntimeError, match="iDeep is not available"):
        backend.get_device("@intel64")
    with pytest.raises(ValueError, match="level must be"):
        intel64.should_use_ideep("sometimes")


# -- runtime information ------------------------------------------------------------------------
def test_print_runtime_info_in_chainers_format():
    out = io.StringIO()
    print_runtime_info(out)
    lines = out.getvalue().splitlines()
    assert [line.split(":")[0] for line in lines[:4]] == ["Platform", "Chainer", "ChainerX", "NumPy"]
    assert lines[1] == f"Chainer: fnet {fnet.__version__} (Chainer {chainer.__version__} API)"
    assert lines[2] == "ChainerX: Not Available"
    assert lines[3] == f"NumPy: {numpy.__version__}"
    assert lines[-1] == "iDeep: Not Available"
    if not cuda.available:
        assert lines[4] == "CuPy: Not Available"
    else:
        assert lines[4] == "CuPy:" and all(line.startswith("  ") for line in lines[5:-1])


def test_print_runtime_info_to_stdout(capsys):
    print_runtime_info()
    assert capsys.readouterr().out.startswith("Platform: ")


# -- GPU ----------------------------------------------------------------------------------------
@pytest.mark.gpu
def test_copyto_and_to_cpu_move_between_host_and_gpu():
    """A GPU array is copied into as a GPU array, and to_cpu gives a NumPy array (not the GPU
    array itself), whatever types the GPU's arrays derive from."""
    device = backend.get_device("@cupy:0")
    a = numpy.arange(4, dtype=numpy.float32)
    dst = device.send(numpy.zeros(4, numpy.float32))
    backend.copyto(dst, a)
    host = cuda.to_cpu(dst)
    assert isinstance(dst, cuda.ndarray) and type(host) is numpy.ndarray
    numpy.testing.assert_array_equal(host, a)
    v = chainer.Variable(device.send(a))
    assert v.to_device("@numpy").device == backend.CpuDevice() and type(v.array) is numpy.ndarray


@pytest.mark.gpu
def test_gpu_device_round_trip():
    import cupy

    device = backend.get_device("@cupy:0")
    assert isinstance(device, backend.GpuDevice) and device.xp is cupy
    assert device == fnet.backend.GpuDevice(0) and hash(device) == hash(fnet.backend.GpuDevice(0))
    assert repr(device) == "<GpuDevice (cupy):0>" and str(device) == "@cupy:0"
    a = numpy.arange(4, dtype=numpy.float32)
    g = device.send(a)
    assert isinstance(g, cupy.ndarray) and device.is_array_supported(g)
    assert backend.get_device_from_array(a, g) == device
    assert backend.get_array_module(chainer.Variable(g)) is cupy
    numpy.testing.assert_array_equal(cuda.to_cpu(cuda.to_gpu(a, 0)), a)
    copied = cuda.copy(g)
    assert copied is not g and int(copied.sum()) == 6
    dst = cupy.zeros(4, cupy.float32)
    backend.copyto(dst, a)
    numpy.testing.assert_array_equal(cuda.to_cpu(dst), a)
    with backend.using_device(device):
        assert cupy.cuda.Device().id == 0
    kernel = cuda.elementwise("T x", "T y", "y = 2 * x", "fnet_test_double")
    numpy.testing.assert_array_equal(cuda.to_cpu(kernel(g)), 2 * a)
    assert not backend.is_arrays_compatible([a, g])


def test_private_to_cpu_that_chainers_tests_use():
    from fnet.compat.backends import _cpu

    a = numpy.arange(3.0)
    assert _cpu._to_cpu(a) is a
    assert _cpu._to_cpu(None) is None
    converted = _cpu._to_cpu((a, None, numpy.float32(2)))
    assert type(converted) is tuple and converted[0] is a and converted[1] is None
    assert isinstance(converted[2], numpy.ndarray)


def test_a_device_class_written_as_in_chainer_can_be_made_and_keeps_attributes():
    class Named(backend.Device):
        xp = numpy
        supported_array_types = (numpy.ndarray,)

        def __init__(self, index):
            self.index = index

        def __str__(self):
            return f"@named:{self.index}"

        def send_array(self, array):
            return array.copy()

    device = Named(2)
    assert device.index == 2 and device.name == "@named:2"
    assert device.is_array_supported(numpy.zeros(1)) and not device.is_array_supported([0])
    with pytest.raises(AttributeError):  # attrs' FrozenInstanceError
        backend.CpuDevice().index = 1  # fnet's own devices stay immutable

    class Unnamed(backend.Device):
        xp = numpy

        def send_array(self, array):
            return array

    with pytest.raises(NotImplementedError, match="must define the property name"):
        Unnamed().name  # noqa: B018
