"""Recording a step whose arrays live on a GPU (CuPy, or a stand-in that behaves like it).

fnet's code picks its array module with ``backend.xp(x)``: for a captured array on a device
that is a ``RecordingModule`` over the device's module (``cupy``), whose functions record each
call as an op of the active recording, creations (``xp.zeros``) included, so that a replay
makes them anew on the device. Everything else works as on the host: NumPy hands the ufuncs
and array functions called on captured arrays to the device's own implementations, and the
methods of a captured array are those of its device value.
"""

from __future__ import annotations

import functools
import types

import numpy

from .. import backend
from ._record import CapturedArray, active_recorder, record_call

__all__ = ["RecordingModule", "module_of"]

# Functions that read only shapes, dtypes and modules: called, not recorded.
_UNRECORDED = frozenset(
    {
        "shape",
        "ndim",
        "size",
        "result_type",
        "promote_types",
        "can_cast",
        "isscalar",
        "iinfo",
        "finfo",
        "issubdtype",
        "get_default_memory_pool",
        "get_default_pinned_memory_pool",
    }
)


class RecordingModule(types.ModuleType):
    """An array module (or one of its submodules) whose functions are recorded while a step
    is captured: the stand-in for ``cupy`` that ``backend.xp`` gives for captured device arrays."""

    def __init__(self, module):
        super().__init__(getattr(module, "__name__", "device"))
        self._module = module

    def __getattr__(self, name):
        attr = getattr(self._module, name)
        if isinstance(attr, types.ModuleType):
            proxy = RecordingModule(attr)
        elif name == "get_array_module":
            proxy = lambda *arrays: backend.xp(*arrays)  # noqa: E731  (answers this module)
        elif not callable(attr) or isinstance(attr, type) or name in _UNRECORDED:
            return attr
        else:
            proxy = _recorded(attr)
        setattr(self, name, proxy)  # made once per name
        return proxy


def _recorded(fn):
    """``fn`` with each call recorded while a step is (``record_call``)."""

    def call(*args, **kwargs):
        if active_recorder() is None:
            return fn(*args, **kwargs)
        return record_call(fn, args, kwargs)

    call.__name__ = getattr(fn, "__name__", "call")
    call.__wrapped__ = fn
    return call


def module_of(x: CapturedArray):
    """The array module that ``backend.xp`` answers for captured ``x``: numpy for a host value,
    the recording form of the device's module for a device value."""
    module = backend.xp(x.value)
    return numpy if module is numpy else _recording_form(module)


@functools.cache
def _recording_form(module) -> RecordingModule:
    """One ``RecordingModule`` per device module (its functions' recorded forms are kept)."""
    return RecordingModule(module)


backend.register_array_module(CapturedArray, module_of)


def on_device(captured: list) -> bool:
    """Whether the values of a recording's inputs live on a device."""
    return any(backend.xp(c.value) is not numpy for c in captured)
