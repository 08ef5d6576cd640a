"""Tests of fnet.backend: array modules, devices, moving trees; GPU tests run where CuPy sees one."""

from __future__ import annotations

import importlib.abc
import importlib.util
import os
import platform
import subprocess
import sys
import types

import numpy
import pytest

import fnet
import fnet.testing
from fnet import backend, ops
from fnet.autodiff import Tracer, new_level


def test_xp_of_numpy_arrays_scalars_and_nothing():
    assert backend.xp(numpy.ones(2)) is numpy
    assert backend.xp(numpy.float32(1.0), 2.0, None) is numpy
    assert backend.xp() is numpy


def test_xp_of_tracers_is_numpy():
    seen = []

    def f(x):
        seen.append(backend.xp(x))
        return ops.sum(x)

    fnet.grad(f)(numpy.ones(3))
    fnet.grad(lambda x: fnet.grad(f)(x * 2.0)[0])(numpy.ones(3))  # a tracer of a tracer
    assert seen and all(m is numpy for m in seen)


class _FakeGpuArray:
    """Looks like a CuPy array to ``xp`` (its class lives in a ``cupy`` module)."""


_FakeGpuArray.__module__ = "cupy._core.core"


def test_xp_looks_through_tracers_of_every_level(monkeypatch):
    marker = object()
    monkeypatch.setattr(backend, "_load_cupy", lambda: marker)
    fake = _FakeGpuArray()
    one = Tracer.input(fake, new_level())
    two = Tracer.input(one, new_level())
    assert backend.xp(fake) is marker
    assert backend.xp(one) is marker
    assert backend.xp(two) is marker
    assert backend.xp(numpy.ones(1), two) is marker


def test_is_array():
    assert backend.is_array(numpy.ones(2))
    assert backend.is_array(numpy.float32(1))
    assert not backend.is_array(1.0)
    assert not backend.is_array([1.0])


def test_import_fnet_without_cupy():
    code = (
        "import sys, importlib.abc\n"
        "class Block(importlib.abc.MetaPathFinder):\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name == 'cupy' or name.startswith('cupy.') or name.startswith('cupyx'):\n"
        "            raise ImportError('blocked')\n"
        "sys.meta_path.insert(0, Block())\n"
        "import fnet, numpy\n"
        "assert 'cupy' not in sys.modules\n"
        "assert fnet.backend.xp(numpy.ones(1)) is numpy\n"
        "assert float(fnet.grad(lambda x: x * x)(3.0)) == 6.0\n"
        "assert 'cupy' not in sys.modules\n"
        "print('ok')\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_cupy_available_is_a_bool():
    assert isinstance(backend.cupy_available(), bool)


@pytest.mark.parametrize(
    "spec, expected",
    [
        ("@numpy", backend.CpuDevice()),
        ("cpu", backend.CpuDevice()),
        ("numpy", backend.CpuDevice()),
        (-1, backend.CpuDevice()),
        (None, backend.CpuDevice()),
        ("@cupy:0", backend.GpuDevice(0)),
        ("@cupy:1", backend.GpuDevice(1)),
        ("@cupy", backend.GpuDevice(0)),
        (0, backend.GpuDevice(0)),
        (2, backend.GpuDevice(2)),
    ],
)
def test_get_device_specs(spec, expected):
    device = backend.get_device(spec)
    assert device == expected
    assert backend.get_device(device) is device


def test_device_names():
    assert str(backend.get_device("cpu")) == "@numpy"
    assert str(backend.get_device(3)) == "@cupy:3"
    assert backend.get_device("@numpy").xp is numpy


def test_get_device_accepts_numpy_integers():
    assert backend.get_device(numpy.int64(1)) == backend.GpuDevice(1)
    assert backend.get_device(numpy.int32(-1)) == backend.CPU


@pytest.mark.parametrize("spec", ["gpu", "@cupy:x", "@cupyfoo", "@cupy:-1", 1.5, numpy.ones(2)])
def test_get_device_rejects_unknown_specs(spec):
    with pytest.raises(ValueError, match=r"get_device: unknown device spec .*; use '@numpy', '@cupy:N'"):
        backend.get_device(spec)


def test_get_device_rejects_bools():
    with pytest.raises(TypeError, match="get_device: a device spec cannot be a bool, got True"):
        backend.get_device(True)


@pytest.mark.skipif(backend.cupy_available(), reason="checks the message shown without a GPU")
def test_gpu_device_without_cupy_says_how_to_get_it():
    with pytest.raises(
        RuntimeError, match=r"@cupy:0: CuPy with a CUDA device is not available(.|\n)*fnet-chainer\[cuda\]"
    ):
        backend.GpuDevice(0).send(numpy.ones(2))


# -- CuPy installed but unusable: its own reason is kept ------------------------------------------
class _CudaDriverError(RuntimeError):
    """Stands for cupy_backends.cuda.api.runtime.CUDARuntimeError."""


_DRIVER = "cudaErrorInsufficientDriver: CUDA driver version is insufficient for CUDA runtime version"


def _fake_cupy(device_count):
    """A module named cupy whose ``cuda.runtime.getDeviceCount`` returns or raises ``device_count``."""

    def get_device_count():
        if isinstance(device_count, BaseException):
            raise device_count
        return device_count

    module = types.ModuleType("cupy")
    module.cuda = types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=get_device_count))
    return module


class _FailingImport(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Makes ``import cupy`` raise ``error`` (as a CuPy built for another CUDA does)."""

    def __init__(self, error):
        self.error = error

    def find_spec(self, fullname, path, target=None):
        return importlib.util.spec_from_loader(fullname, self) if fullname == "cupy" else None

    def exec_module(self, module):
        raise self.error


@pytest.fixture
def probe(monkeypatch):
    """Probe CuPy afresh with ``import cupy`` giving ``fake`` (a module, or an error to raise)."""

    def install(fake):
        monkeypatch.setattr(backend, "_cupy_state", None)
        monkeypatch.delitem(sys.modules, "cupy", raising=False)
        if isinstance(fake, BaseException):
            monkeypatch.setattr(sys, "meta_path", [_FailingImport(fake), *sys.meta_path])
        else:
            monkeypatch.setitem(sys.modules, "cupy", fake)

    yield install
    backend._cupy_state = None  # probe the real environment again after the test


def _gpu_error(where=lambda: backend.GpuDevice(0).xp):
    with pytest.raises(RuntimeError) as info:
        where()
    return info.value


def test_a_cuda_driver_error_is_reported_as_cupys_own(probe):
    error = _CudaDriverError(_DRIVER)
    probe(_fake_cupy(error))
    assert not backend.cupy_available()
    assert backend.cupy_problem().error is error
    raised = _gpu_error()
    assert str(raised).startswith("@cupy:0: CuPy with a CUDA device is not available: CuPy could not count")
    assert f"_CudaDriverError: {_DRIVER}" in str(raised) and "nvidia-smi" in str(raised)
    assert "pip install" not in str(raised)  # not told to install what is installed
    assert raised.__cause__ is error


@pytest.mark.parametrize(
    "error",
    [
        ImportError("libcudart.so.12: cannot open shared object file: No such file or directory"),
        ModuleNotFoundError("No module named 'fastrlock'", name="fastrlock"),  # a broken install
    ],
)
def test_a_failing_import_of_cupy_keeps_its_text(probe, error):
    probe(error)
    raised = _gpu_error()
    assert f"import cupy failed: {type(error).__name__}: {error}" in str(raised)
    assert "pip install" not in str(raised) and raised.__cause__ is error


def test_without_cupy_the_hint_is_to_install_it(probe):
    probe(None)  # sys.modules["cupy"] = None: "import cupy" finds no module named cupy
    raised = _gpu_error()
    assert "CuPy is not installed" in str(raised) and "pip install 'fnet-chainer[cuda]'" in str(raised)


def test_cupy_that_sees_no_device_says_so(probe):
    probe(_fake_cupy(0))
    assert "CuPy sees no CUDA device" in str(_gpu_error())


def test_a_working_cupy_is_used(probe):
    fake = _fake_cupy(2)
    probe(fake)
    assert backend.cupy_available() and backend.cupy_problem() is None
    assert backend.GpuDevice(1).xp is fake


def test_chainers_check_cuda_available_keeps_cupys_reason(probe):
    from fnet.compat.backends import cuda

    error = _CudaDriverError(_DRIVER)
    probe(_fake_cupy(error))
    raised = _gpu_error(cuda.check_cuda_available)
    assert str(raised).startswith("CUDA environment is not correctly set up: CuPy could not count")
    assert _DRIVER in str(raised) and raised.__cause__ is error


def test_to_device_and_to_cpu_over_a_tree():
    tree = {"a": numpy.ones((2, 2)), "b": [numpy.float32(3.0), "name", None, 4]}
    moved = backend.to_device(tree, "@numpy")
    assert fnet.tree.structure(moved) == fnet.tree.structure(tree)
    assert moved["a"] is tree["a"]  # nothing to copy on the host
    assert moved["b"][1:] == ["name", None, 4]
    back = backend.to_cpu(tree)
    assert isinstance(back["a"], numpy.ndarray) and back["b"][0] == 3.0


def test_device_of_an_array_and_current_device():
    assert backend.get_device_from_array(numpy.ones(1)) == backend.CPU
    assert backend.current_device() == backend.CPU
    with backend.using_device("@numpy") as device:
        assert device == backend.CPU and backend.current_device() == backend.CPU
    assert backend.current_device() == backend.CPU


# -- on a GPU -----------------------------------------------------------------------------------


@pytest.mark.gpu
def test_gpu_roundtrip():
    import cupy

    tree = {"W": numpy.arange(6.0).reshape(2, 3), "n": 3}
    on_gpu = backend.to_device(tree, "@cupy:0")
    assert isinstance(on_gpu["W"], cupy.ndarray) and on_gpu["n"] == 3
    assert backend.xp(on_gpu["W"]) is cupy
    assert backend.get_device_from_array(on_gpu["W"]) == backend.GpuDevice(0)
    back = backend.to_cpu(on_gpu)
    assert isinstance(back["W"], numpy.ndarray)
    numpy.testing.assert_array_equal(back["W"], tree["W"])


@pytest.mark.gpu
def test_gpu_grad():
    import cupy

    def loss(params, x):
        return ops.sum(ops.tanh(x @ params["W"]) * params["b"])

    r = numpy.random.RandomState(0)
    params = {"W": r.randn(3, 2), "b": r.randn(2)}
    x = r.randn(4, 3)
    expected = fnet.grad(loss)(params, x)
    grads = fnet.grad(loss)(backend.to_device(params, "@cupy:0"), cupy.asarray(x))
    assert isinstance(grads["W"], cupy.ndarray)
    fnet.testing.assert_allclose(grads["W"], expected["W"], rtol=1e-10)
    fnet.testing.assert_allclose(grads["b"], expected["b"], rtol=1e-10)
    # second order on the GPU
    h = fnet.hessian(lambda v: ops.sum(ops.sin(v) * v))(cupy.asarray([0.3, 1.2]))
    assert isinstance(h, cupy.ndarray)


# Records every mallopt call that importing fnet makes, through a CDLL that wraps glibc's.
_PROBE = """
import ctypes
calls = []
real_cdll = ctypes.CDLL
class Recording(real_cdll):
    def __getattr__(self, name):
        fn = super().__getattr__(name)
        if name == "mallopt":
            real = fn
            fn = lambda *args: calls.append(args) or real(*args)
            setattr(self, name, fn)  # CDLL caches looked-up functions as attributes
        return fn
ctypes.CDLL = Recording
import fnet
print(len(calls))
"""


@pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's"
)
@pytest.mark.parametrize(
    "env, calls",
    [
        ({}, "0"),  # import fnet changes no process-wide setting by itself
        ({"FNET_TUNE_MALLOC": "0"}, "0"),
        ({"FNET_TUNE_MALLOC": "1"}, "2"),  # opted in: both thresholds
        ({"FNET_TUNE_MALLOC": "1", "MALLOC_TRIM_THRESHOLD_": "1"}, "0"),  # glibc's own settings win
    ],
)
def test_import_tunes_the_host_allocator_only_when_asked(env, calls):
    assert backend.tune_host_allocator() is True
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("FNET_", "MALLOC_"))}
    out = subprocess.run([sys.executable, "-c", _PROBE], env={**clean, **env}, capture_output=True, text=True)
    assert out.stdout.strip() == calls, out.stderr
