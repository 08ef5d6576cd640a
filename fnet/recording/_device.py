"""Recording a step whose arrays live on a GPU (CuPy, or a stand-in that behaves like it).

fnet's code picks its array module with ``backend.xp(x)``: for a captured array on a device
that is a ``RecordingModule`` over the device's module (``cupy``), whose functions record each
call as an op of the active recording, creations (``xp.zeros``) included, so that a replay
makes them anew on the device. Everything else works as on the host: NumPy hands the ufuncs
and array functions called on captured arrays to the device's own implementations, and the
methods of a captured array are those of its device value.
"""

from __future__ import annotations

import types

import numpy

from .. import backend
from ._record import CapturedArray, Op, _captured_in, _raw, active_recorder

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
    """``fn`` with each call recorded (arrays written through ``out=`` as written in place)."""

    def call(*args, **kwargs):
        recorder = active_recorder()
        if recorder is None:
            return fn(*args, **kwargs)
        out = kwargs.get("out")
        written = tuple(_captured_in(out)) if out is not None else ()
        raw = fn(*_raw(args, recorder), **_raw(kwargs, recorder))
        result = recorder.wrap(raw, {id(t.value): t for t in written})
        effect = not _captured_in(result) and not written
        return recorder.record(Op("call", fn, args, kwargs, result, mutates=written, effect=effect))

    call.__name__ = getattr(fn, "__name__", "call")
    call.__wrapped__ = fn
    return call


_modules: dict = {}


def module_of(x: CapturedArray):
    """The array module that ``backend.xp`` answers for captured ``x``: numpy for a host value,
    the recording form of the device's module for a device value."""
    module = backend.xp(x.value)
    if module is numpy:
        return numpy
    proxy = _modules.get(id(module))
    if proxy is None or proxy._module is not module:
        proxy = _modules[id(module)] = RecordingModule(module)
    return proxy


backend.register_array_module(CapturedArray, module_of)


def on_device(captured: list) -> bool:
    """Whether the values of a recording's inputs live on a device."""
    return any(backend.xp(c.value) is not numpy for c in captured)
