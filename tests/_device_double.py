"""A stand-in for a CuPy device in tests that run without a GPU.

``DeviceArray`` is a NumPy array that ``fnet.backend`` takes for a CuPy array (its type's module
starts with ``cupy``) and that refuses, as CuPy does, to meet a plain NumPy array in one
operation; as in CuPy, host arrays are accepted as indices (CuPy sends them), and reductions
give 0-d arrays. ``installed()`` makes ``fnet.backend`` use ``module`` as its CuPy (and
``extras`` as its cupyx) for a block, so a host constant leaking into device values fails here
as it would on a GPU; within it, ``numpy.asarray`` (and its kin) of a device array called by
fnet's code raises, as CuPy's does (NumPy itself would take the subclass silently).
``--gpu-device=@double`` runs the gpu tests on it.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import types

import numpy

from fnet import backend

__all__ = [
    "DeviceArray",
    "module",
    "extras",
    "installed",
    "lenient_outside_fnet",
    "refuse_implicit_conversion",
]


_lenient = [False]


def lenient_outside_fnet(on: bool) -> None:
    """Let code outside fnet (tests, numpy.testing) mix device and host arrays: ``--backend=strict``
    compares fnet's device results with host arrays. fnet's own code stays strict."""
    _lenient[0] = on


def _outside_fnet() -> bool:
    """Whether the code that started this operation (the first frame up that is neither NumPy's,
    nor this module's, nor ``fnet.tree``'s, which only applies its caller's function) is not
    fnet's."""
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__", "")
        if not (name.startswith("numpy") or name in (__name__, "fnet.tree")):
            return not name.startswith("fnet.")
        frame = frame.f_back
    return True


def _plain(x):
    if isinstance(x, DeviceArray):
        return x.view(numpy.ndarray)
    if isinstance(x, (list, tuple)):
        return type(x)(_plain(v) for v in x)
    if type(x) is numpy.ndarray and not (_lenient[0] and _outside_fnet()):
        raise TypeError(f"a device array cannot meet a host array ({x.dtype}{list(x.shape)}): use to_device")
    return x


def _wrap(x):
    if type(x) is numpy.ndarray:
        return x.view(DeviceArray)
    if isinstance(x, numpy.generic):  # CuPy's reductions give 0-d arrays, not scalars
        return numpy.asarray(x).view(DeviceArray)
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    if isinstance(x, list):
        return [_wrap(v) for v in x]
    return x


_CONVERTERS = ("asarray", "array", "asanyarray", "ascontiguousarray", "asfortranarray")
_numpy_converters: dict = {}


def refuse_implicit_conversion(on: bool) -> None:
    """Make ``numpy.asarray`` (and ``array``, ``asanyarray``...) of a device array raise, as CuPy's
    does, when fnet calls it (NumPy takes an ndarray subclass without asking it): the host copy
    of a device array is made with ``to_cpu`` or ``.get()``."""
    if on and not _numpy_converters:
        for name in _CONVERTERS:
            _numpy_converters[name] = getattr(numpy, name)
            setattr(numpy, name, _refusing(_numpy_converters[name]))
    elif not on:
        for name, converter in _numpy_converters.items():
            setattr(numpy, name, converter)
        _numpy_converters.clear()


def _refusing(convert):
    @functools.wraps(convert)
    def call(a, *args, **kwargs):
        by_the_device = sys._getframe(1).f_globals.get("__name__") == __name__  # xp.asarray and kin
        if isinstance(a, DeviceArray) and not by_the_device and not _outside_fnet():
            raise TypeError(
                f"Implicit conversion to a NumPy array is not allowed ({convert.__name__} of a device "
                "array): use to_cpu"
            )
        return convert(a, *args, **kwargs)

    return call


class _CupyUfunc:
    """What CuPy hands to ``__cupy_override_elementwise_kernel__``: a ufunc named ``cupy_<name>``."""

    def __init__(self, ufunc):
        self.name, self.nin = f"cupy_{ufunc.__name__}", ufunc.nin


class DeviceArray(numpy.ndarray):
    """An array on the pretend device 0."""

    device = types.SimpleNamespace(id=0)

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        for x in inputs:  # as CuPy's ufuncs do: an operand may take the operation over
            if hasattr(x, "__cupy_override_elementwise_kernel__") and method == "__call__":
                return x.__cupy_override_elementwise_kernel__(_CupyUfunc(ufunc), *inputs, **kwargs)
            if not isinstance(x, (numpy.ndarray, numpy.generic, bool, int, float, complex)):
                raise TypeError(f"Unsupported type {type(x)}")  # CuPy's words
        if "out" in kwargs:
            kwargs["out"] = tuple(_plain(o) for o in kwargs["out"])
        return _wrap(getattr(ufunc, method)(*(_plain(x) for x in inputs), **kwargs))

    def __array_function__(self, func, types_, args, kwargs):
        return _wrap(func(*_plain(list(args)), **{k: _plain(v) for k, v in kwargs.items()}))

    def get(self):
        return self.view(numpy.ndarray).copy()

    @property
    def flags(self):
        """CuPy's flags: contiguity and ownership, no ``writeable`` (a CuPy array always is)."""
        plain = self.view(numpy.ndarray).flags
        return types.SimpleNamespace(
            c_contiguous=plain.c_contiguous, f_contiguous=plain.f_contiguous, owndata=self.base is None
        )


DeviceArray.__module__ = "cupy._device_double"


class _Module(types.ModuleType):
    """NumPy's functions, returning device arrays; ``asarray`` sends host data to the device."""

    def __getattr__(self, name):
        attr = getattr(numpy, name)
        if not callable(attr) or isinstance(attr, type):
            return attr

        def call(*args, **kwargs):
            return _wrap(attr(*args, **kwargs))

        return call

    def asarray(self, a, dtype=None):
        if isinstance(a, DeviceArray):
            return a if dtype is None else a.astype(dtype)
        return numpy.array(a, dtype=dtype).view(DeviceArray)

    def get_array_module(self, *arrays):
        return backend.xp(*arrays)


module = _Module("cupy")
module.ndarray = DeviceArray
module.cuda = types.SimpleNamespace(Device=lambda id=0: contextlib.nullcontext())


def _index(index):
    """An index with its arrays on the host: CuPy, like this, takes host index arrays too."""
    items = index if isinstance(index, tuple) else (index,)
    return tuple(i.view(numpy.ndarray) if isinstance(i, DeviceArray) else i for i in items)


def _scatter_add(a, index, values):
    numpy.add.at(a.view(numpy.ndarray), _index(index), _plain(values))


class _Special(types.ModuleType):
    """``scipy.special`` on device arrays (CuPy's is ``cupyx.scipy.special``)."""

    def __getattr__(self, name):
        import scipy.special

        attr = getattr(scipy.special, name)
        return lambda *args: _wrap(attr(*_plain(list(args))))


extras = types.ModuleType("cupyx")  # the part of cupyx that fnet calls
extras.__path__ = []
extras.scatter_add = _scatter_add
extras.scipy = types.ModuleType("cupyx.scipy")
extras.scipy.__path__ = []
extras.scipy.special = _Special("cupyx.scipy.special")
_EXTRAS = {"cupyx": extras, "cupyx.scipy": extras.scipy, "cupyx.scipy.special": extras.scipy.special}


@contextlib.contextmanager
def installed():
    """``fnet.backend`` sees ``module`` as an installed CuPy within the block."""
    saved, saved_extras = backend._cupy_state, {name: sys.modules.get(name) for name in _EXTRAS}
    backend._cupy_state = (module, None)
    sys.modules.update(_EXTRAS)
    refusing = not _numpy_converters
    refuse_implicit_conversion(True)
    try:
        yield module
    finally:
        if refusing:
            refuse_implicit_conversion(False)
        backend._cupy_state = saved
        for name, old in saved_extras.items():
            if old is None:
                del sys.modules[name]
            else:
                sys.modules[name] = old
