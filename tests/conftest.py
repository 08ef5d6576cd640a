"""Shared test setup: the device of the ``gpu`` tests (``--gpu-device``; skipped without CuPy and a
CUDA device when it is a GPU), and scratch primitives."""

from __future__ import annotations

import importlib
import importlib.util

import pytest

import fnet

from . import _device_double


def pytest_addoption(parser):
    parser.addoption(
        "--gpu-device",
        default="@cupy:0",
        help="the device that the tests marked gpu run on (fixture gpu_device): '@cupy:N' (the "
        "default, @cupy:0; skipped without CuPy and a CUDA device), '@numpy' (the same tests on "
        "the CPU, to check their logic), or '@double' (a stand-in device that refuses to mix with "
        "host arrays, as CuPy does)",
    )
    parser.addoption(
        "--backend",
        default="numpy",
        choices=("numpy", "strict", "strict-compat"),
        help="'strict': run the tests with the arrays that test code gives fnet's functions, ops and "
        "transforms on the stand-in device (tests/_strict_backend.py); fnet's own code may not mix "
        "host arrays with them. 'strict-compat': the same, and fnet.compat sees the stand-in as "
        "its GPU (what test code gives Variables, chainer.functions, links and optimizers is sent)",
    )


def pytest_configure(config):
    if config.getoption("--backend").startswith("strict"):
        from . import _strict_backend

        _strict_backend.install(compat=config.getoption("--backend") == "strict-compat")


def pytest_collection_modifyitems(config, items):
    if config.getoption("--backend").startswith("strict"):
        from . import _strict_backend

        for item in items:
            reason = _strict_backend.reason_not_run(item.nodeid)
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=f"--backend=strict: {reason}"))


def pytest_runtest_setup(item):
    if item.get_closest_marker("gpu") is not None and not fnet.backend.cupy_available():
        # a test that takes its device from gpu_device runs on the CPU too (--gpu-device=@numpy)
        if "gpu_device" not in getattr(item, "fixturenames", ()):
            pytest.skip("needs CuPy and a CUDA device")
        if item.config.getoption("--gpu-device").startswith("@cupy"):
            pytest.skip("needs CuPy and a CUDA device (or run with --gpu-device=@numpy)")
    if item.get_closest_marker("mpi") is not None and importlib.util.find_spec("mpi4py") is None:
        pytest.skip("needs mpi4py")


@pytest.fixture
def gpu_device(request):
    """The fnet Device that the gpu tests send their inputs to (``--gpu-device``)."""
    spec = request.config.getoption("--gpu-device")
    if spec == "@double":
        with _device_double.installed():
            yield fnet.backend.get_device("@cupy:0")
    else:
        yield fnet.backend.get_device(spec)


@pytest.fixture
def scratch_primitive():
    """Make test-only primitives that are removed from the registry afterwards.

    ``scratch_primitive(impl, *vjps)`` returns a Primitive named ``test_<impl name>`` whose VJPs
    are ``vjps``; the completeness test of the primitive table never sees it.
    """
    made = []

    def make(impl, *vjps, differentiable: bool = True):
        prim = fnet.autodiff.Primitive(impl, f"test_{impl.__name__}", differentiable=differentiable)
        if vjps:
            prim.defvjp(*vjps)
        made.append(prim.name)
        return prim

    yield make
    registry = importlib.import_module("fnet.autodiff.primitive")._registry
    for key in [k for k, p in registry.items() if p.name in made]:
        registry.pop(key)
