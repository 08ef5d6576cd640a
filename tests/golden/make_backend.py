"""Golden data for ``chainer.backend`` and ``chainer.backends`` on a machine without CuPy and
iDeep, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``backend.json`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_backend.py

``outcomes(chainer)`` calls the device functions with many arguments and records, for each,
what came back (a device's ``repr`` and ``str``, a module's name, a summary of arrays) or the
type of the error raised. ``chainer`` needs ``backend``, ``backends``, ``Variable``,
``get_device``, ``get_array_types``, ``get_cpu_array_types`` and ``is_arrays_compatible``:
the test passes fnet's. The golden data is only meaningful without CuPy.
"""

from __future__ import annotations

import json
import pathlib

import numpy

OUT = pathlib.Path(__file__).with_name("backend.json")

DEVICE_SPECS = {
    "'@numpy'": "@numpy",
    "-1": -1,
    "'-1'": "-1",
    "int64(-2)": numpy.int64(-2),
    "'@cupy:0'": "@cupy:0",
    "0": 0,
    "'0'": "0",
    "'native:0'": "native:0",
    "'native'": "native",
    "'@numpy:0'": "@numpy:0",
    "'@cupy'": "@cupy",
    "'@foo'": "@foo",
    "'@intel64'": "@intel64",
    "1.5": 1.5,
    "None": None,
}


def _shown(value):
    if isinstance(value, numpy.ndarray):
        return {"array": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, (list, tuple)):
        return {type(value).__name__: [_shown(v) for v in value]}
    if hasattr(value, "__name__"):
        return {"module": value.__name__}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return {"repr": repr(value), "str": str(value)}


def _runs_within(context) -> bool:
    with context:
        return True


def _outcome(call):
    try:
        return {"value": _shown(call())}
    except Exception as error:  # the error type is the outcome
        return {"error": type(error).__name__}


def outcomes(chainer) -> dict:
    """What each call gives, by a description of the call."""
    backend, cuda, intel64 = chainer.backend, chainer.backends.cuda, chainer.backends.intel64
    a = numpy.arange(3, dtype=numpy.float32)
    b = numpy.ones((2, 2))
    cpu = backend.CpuDevice()
    calls = {f"get_device({k})": (lambda s=s: chainer.get_device(s)) for k, s in DEVICE_SPECS.items()}
    calls.update(
        {
            "get_device(CpuDevice())": lambda: chainer.get_device(cpu) is cpu,
            "CpuDevice() == CpuDevice()": lambda: backend.CpuDevice() == cpu,
            "CpuDevice() != CpuDevice()": lambda: backend.CpuDevice() != cpu,
            "CpuDevice() == '@numpy'": lambda: cpu == "@numpy",
            "hash(CpuDevice()) == hash(CpuDevice())": lambda: hash(cpu) == hash(backend.CpuDevice()),
            "CpuDevice().name": lambda: cpu.name,
            "CpuDevice().xp": lambda: cpu.xp,
            "CpuDevice().supported_array_types": lambda: [t.__name__ for t in cpu.supported_array_types],
            "CpuDevice().is_array_supported(a)": lambda: cpu.is_array_supported(a),
            "CpuDevice().is_array_supported(1.0)": lambda: cpu.is_array_supported(1.0),
            "CpuDevice().send([a, None, a])": lambda: cpu.send([a, None, a]),
            "CpuDevice().send((a,))": lambda: cpu.send((a,)),
            "CpuDevice().send(float32(2))": lambda: cpu.send(numpy.float32(2)),
            "CpuDevice().send('x')": lambda: cpu.send("x"),
            "CpuDevice().use()": lambda: cpu.use(),
            "with CpuDevice()": lambda: cpu.__enter__(),
            "with using_device('@numpy')": lambda: _runs_within(chainer.using_device("@numpy")),
            "with using_device(-1)": lambda: _runs_within(chainer.using_device(-1)),
            "CpuDevice.from_array(a)": lambda: backend.CpuDevice.from_array(a),
            "CpuDevice.from_array(1.0)": lambda: backend.CpuDevice.from_array(1.0),
            "get_device_from_array(a, b)": lambda: backend.get_device_from_array(a, b),
            "get_device_from_array()": lambda: backend.get_device_from_array(),
            "get_array_module(a)": lambda: backend.get_array_module(a),
            "get_array_module(Variable(a))": lambda: backend.get_array_module(chainer.Variable(a)),
            "get_array_module()": lambda: backend.get_array_module(),
            "copyto(b, ones)": lambda: (backend.copyto(b, numpy.full((2, 2), 3.0)), b)[1],
            "copyto(list, a)": lambda: backend.copyto([0, 0, 0], a),
            "get_array_types()": lambda: [t.__name__ for t in chainer.get_array_types()],
            "get_cpu_array_types()": lambda: [t.__name__ for t in chainer.get_cpu_array_types()],
            "is_arrays_compatible([a, None, b])": lambda: chainer.is_arrays_compatible([a, None, b]),
            "is_arrays_compatible([])": lambda: chainer.is_arrays_compatible([]),
            "cuda.available": lambda: cuda.available,
            "cuda.cudnn_enabled": lambda: cuda.cudnn_enabled,
            "isinstance(a, cuda.ndarray)": lambda: isinstance(a, cuda.ndarray),
            "numpy is cuda.cupy": lambda: numpy is cuda.cupy,
            "cuda.check_cuda_available()": lambda: cuda.check_cuda_available(),
            "cuda.get_device_from_id(None) is DummyDevice": lambda: (
                cuda.get_device_from_id(None) is cuda.DummyDevice
            ),
            "cuda.get_device_from_id(-1) is DummyDevice": lambda: (
                cuda.get_device_from_id(-1) is cuda.DummyDevice
            ),
            "cuda.get_device_from_id(0)": lambda: cuda.get_device_from_id(0),
            "cuda.get_device_from_array(a) is DummyDevice": lambda: (
                cuda.get_device_from_array(a) is cuda.DummyDevice
            ),
            "int(DummyDevice)": lambda: int(cuda.DummyDevice),
            "DummyDevice.id": lambda: cuda.DummyDevice.id,
            "DummyDevice == DummyDeviceType()": lambda: cuda.DummyDevice == cuda.DummyDeviceType(),
            "with DummyDevice": lambda: cuda.DummyDevice.__enter__() is cuda.DummyDevice,
            "cuda.to_cpu(a) is a": lambda: cuda.to_cpu(a) is a,
            "cuda.to_cpu([a, None])": lambda: cuda.to_cpu([a, None]),
            "cuda.to_cpu(float32(3))": lambda: cuda.to_cpu(numpy.float32(3)),
            "cuda.to_cpu(None)": lambda: cuda.to_cpu(None),
            "cuda.to_cpu('x')": lambda: cuda.to_cpu("x"),
            "cuda.to_gpu(a)": lambda: cuda.to_gpu(a),
            "cuda.copy(a)": lambda: cuda.copy(a),
            "cuda.get_array_module(Variable(a))": lambda: cuda.get_array_module(chainer.Variable(a)),
            "cuda.memoize()(f)(2)": lambda: cuda.memoize()(lambda x: x + 1)(2),
            "cuda.fuse(f)(2)": lambda: cuda.fuse(lambda x: x * 3)(2),
            "cuda.fuse()(f)(2)": lambda: cuda.fuse(kernel_name="k")(lambda x: x * 3)(2),
            "cuda.clear_memo()": lambda: cuda.clear_memo(),
            "cuda.elementwise(...)": lambda: cuda.elementwise("T x", "T y", "y = x", "copy"),
            "cuda.get_max_workspace_size()": lambda: cuda.get_max_workspace_size(),
            "cuda.should_use_cudnn('>=auto')": lambda: cuda.should_use_cudnn(">=auto"),
            "cuda.should_use_cudnn('==always')": lambda: cuda.should_use_cudnn("==always"),
            "cuda.GpuDevice.from_device_id(0)": lambda: cuda.GpuDevice.from_device_id(0),
            "intel64.is_ideep_available()": lambda: intel64.is_ideep_available(),
            "intel64.check_ideep_available()": lambda: intel64.check_ideep_available(),
            "intel64.should_use_ideep('>=auto')": lambda: intel64.should_use_ideep(">=auto"),
            "intel64.inputs_all_ready([a])": lambda: intel64.inputs_all_ready([a]),
            "intel64.Intel64Device()": lambda: intel64.Intel64Device(),
        }
    )
    return {name: _outcome(call) for name, call in calls.items()}


def main() -> None:
    import chainer
    import chainer.backend  # noqa: F401

    OUT.write_text(json.dumps(outcomes(chainer), indent=1) + "\n")


if __name__ == "__main__":
    main()
