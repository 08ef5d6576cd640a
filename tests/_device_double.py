"""A stand-in for a CuPy device in tests that run without a GPU.

``DeviceArray`` is a NumPy array that ``fnet.backend`` takes for a CuPy array (its type's module
starts with ``cupy``) and that refuses, as CuPy does, to meet a plain NumPy array in one
operation; as in CuPy, host arrays are accepted as indices (CuPy sends them), and reductions
give 0-d arrays. ``module`` has CuPy's face where Chainer's device model reads it
(``cupy.cuda.Device``, ``Stream``, ``Event``, ``runtime``, memory pools, ``cupy.random``).
``installed()`` makes ``fnet.backend`` use ``module`` as its CuPy (and ``extras`` as its
cupyx), and ``import cupy`` find it, for a block, so a host constant leaking into device values fails here
as it would on a GPU; within it, ``numpy.asarray`` (and its kin) of a device array called by
fnet's code raises, as CuPy's does (NumPy itself would take the subclass silently).
``--gpu-device=@double`` runs the gpu tests on it.
"""

from __future__ import annotations

import contextlib
import functools
import sys
import time
import types

import numpy

from fnet import backend

__all__ = [
    "DeviceArray",
    "module",
    "extras",
    "installed",
    "lenient_outside_fnet",
    "transfers_as_views",
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


_views = [False]


def transfers_as_views(on: bool) -> None:
    """Make the host-to-device copies of ``module.asarray`` views of the host arrays (or copies
    again): ``--backend=strict`` moves test code's links so, and the test sees what fnet writes."""
    _views[0] = on


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

    def __getitem__(self, index):  # as CuPy's: an element is a 0-d array, not a NumPy scalar
        return _wrap(super().__getitem__(index))

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def get(self):
        return self.view(numpy.ndarray).copy()

    def __repr__(self) -> str:  # CuPy's: ``array([1., 2.], dtype=float32)``, as NumPy's
        return repr(self.view(numpy.ndarray))

    def __reduce__(self):  # pickled as a CuPy array is: its data comes back on the device
        return _on_the_device, (self.get(),)

    @property
    def flags(self):
        """CuPy's flags: contiguity and ownership, no ``writeable`` (a CuPy array always is)."""
        plain = self.view(numpy.ndarray).flags
        return types.SimpleNamespace(
            c_contiguous=plain.c_contiguous, f_contiguous=plain.f_contiguous, owndata=self.base is None
        )


DeviceArray.__module__ = "cupy._device_double"


def _on_the_device(host):
    return host.view(DeviceArray)


class _Module(types.ModuleType):
    """NumPy's functions (those of ``source``, a NumPy module), returning device arrays."""

    def __init__(self, name: str, source=numpy):
        super().__init__(name)
        self._source = source

    def __getattr__(self, name):
        attr = getattr(self._source, name)
        if not callable(attr) or isinstance(attr, type):
            return attr

        def call(*args, **kwargs):
            return _wrap(attr(*args, **kwargs))

        return call


class _Cupy(_Module):
    """CuPy's face: ``asarray`` sends host data to the device."""

    def asarray(self, a, dtype=None):
        if isinstance(a, DeviceArray):
            return a if dtype is None else a.astype(dtype)
        if _views[0] and type(a) is numpy.ndarray and dtype in (None, a.dtype):
            return a.view(DeviceArray)
        return numpy.array(a, dtype=dtype).view(DeviceArray)

    def get_array_module(self, *arrays):
        return backend.xp(*arrays)


class _Device:
    """``cupy.cuda.Device``: the pretend GPU numbered ``device`` (the current one, 0, for None)."""

    def __init__(self, device=None):
        self.id = 0 if device is None else int(device)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        """Leave the device's context (nothing to restore: there is one device)."""

    def use(self) -> None:
        """Make the device current (it always is)."""

    def synchronize(self) -> None:
        """Wait for the device's work (done already: it runs on the host)."""

    def __int__(self) -> int:
        return self.id

    def __eq__(self, other) -> bool:
        return isinstance(other, _Device) and other.id == self.id

    def __hash__(self) -> int:
        return hash((_Device, self.id))

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"


class _Stream:
    """``cupy.cuda.Stream``: work on the pretend device is done when it is asked for."""

    def __init__(self, null: bool = False, non_blocking: bool = False):
        self.null, self.non_blocking = null, non_blocking

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        """Stop using the stream."""

    def use(self) -> _Stream:
        return self

    def synchronize(self) -> None:
        """Wait for the stream's work (done already)."""


class _Event:
    """``cupy.cuda.Event``: records the host's clock."""

    def __init__(self, block: bool = False, disable_timing: bool = False, interprocess: bool = False):
        self.time = None

    def record(self, stream=None) -> None:
        self.time = time.perf_counter()

    def synchronize(self) -> None:
        """Wait for the event (it has happened)."""


def _elapsed_time(start: _Event, end: _Event) -> float:
    """``cupy.cuda.get_elapsed_time``: milliseconds from ``start`` to ``end``."""
    return (end.time - start.time) * 1000


class _MemoryPool:
    """CuPy's memory pools, as far as Chainer's code asks them: the pretend device holds no blocks."""

    def used_bytes(self) -> int:
        return 0

    def total_bytes(self) -> int:
        return 0

    def n_free_blocks(self) -> int:
        return 0

    def free_all_blocks(self, stream=None) -> None:
        """Release the cached blocks (there are none)."""


def _unchanged(f=None, **kwargs):
    """``cupy.fuse``, usable bare or with arguments: the function as it is."""
    return f if f is not None else (lambda g: g)


module = _Cupy("cupy")
module.random = _Module("cupy.random", numpy.random)  # draws on the device, from NumPy's global state
module.random.reset_states = lambda: None  # one state: NumPy's, which numpy.random.seed resets
module.__path__ = []  # a package: ``import cupy.cuda`` finds the submodule registered below
module.ndarray = DeviceArray
module.cuda = types.ModuleType("cupy.cuda")
module.cuda.__path__ = []
module.cuda.Device, module.cuda.Stream, module.cuda.Event = _Device, _Stream, _Event
module.cuda.get_elapsed_time = _elapsed_time
module.cuda.get_device_id = lambda: 0  # the current device: the one there is
module.cuda.runtime = types.SimpleNamespace(getDeviceCount=lambda: 1, getDevice=lambda: 0)
module.cuda.cublas = types.ModuleType("cupy.cuda.cublas")
_pools = (_MemoryPool(), _MemoryPool())
module.get_default_memory_pool = lambda: _pools[0]
module.get_default_pinned_memory_pool = lambda: _pools[1]
module.memoize = lambda for_each_device=False: _unchanged
module.clear_memo = lambda: None
module.asnumpy = lambda a, stream=None: a.get() if isinstance(a, DeviceArray) else numpy.asarray(a)
module.fuse = _unchanged
DeviceArray.device = _Device(0)


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

        if name.startswith("__"):  # a module's own attributes (__file__...), which it has none of
            raise AttributeError(name)
        attr = getattr(scipy.special, name)
        return lambda *args: _wrap(attr(*_plain(list(args))))


extras = types.ModuleType("cupyx")  # the part of cupyx that fnet calls
extras.__path__ = []
extras.scatter_add = _scatter_add
extras.get_runtime_info = lambda: "CuPy Version          : the stand-in of tests/_device_double.py\n"
extras.scipy = types.ModuleType("cupyx.scipy")
extras.scipy.__path__ = []
extras.scipy.special = _Special("cupyx.scipy.special")
_EXTRAS = {
    "cupy": module,
    "cupy.cuda": module.cuda,
    "cupy.random": module.random,
    "cupyx": extras,
    "cupyx.scipy": extras.scipy,
    "cupyx.scipy.special": extras.scipy.special,
}


@contextlib.contextmanager
def installed():
    """``fnet.backend`` sees ``module`` as an installed CuPy within the block, and ``import
    cupy`` (``cupy.cuda``, ``cupyx``) imports this module's faces."""
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
