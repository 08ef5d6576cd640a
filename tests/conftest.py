"""Shared test setup: skip ``gpu`` tests without CuPy and a device, and scratch primitives."""

from __future__ import annotations

import importlib
import importlib.util

import pytest

import fnet


def pytest_runtest_setup(item):
    if item.get_closest_marker("gpu") is not None and not fnet.backend.cupy_available():
        pytest.skip("needs CuPy and a CUDA device")
    if item.get_closest_marker("mpi") is not None and importlib.util.find_spec("mpi4py") is None:
        pytest.skip("needs mpi4py")


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
