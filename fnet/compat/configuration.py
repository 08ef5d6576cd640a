"""Chainer's configuration: ``config`` (per thread) falling back on ``global_config``.

The pure API takes such choices as arguments (``train=``, ``key=``); the Chainer layer reads
them from here, so ``with chainer.using_config('train', False):`` works as in Chainer.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

import numpy

from .. import autodiff

__all__ = [
    "GlobalConfig",
    "LocalConfig",
    "global_config",
    "config",
    "using_config",
    "is_debug",
    "set_debug",
    "DebugMode",
    "get_dtype",
    "mixed16",
    "get_compute_mode",
]


def _show(config, keys, file) -> None:
    width = max(len(k) for k in keys)
    for key in keys:
        file.write(f"{key.ljust(width)} {getattr(config, key)}\n")


class _BackpropSwitch:
    """``enable_backprop``, kept where the tape reads it: the core's ``grad_enabled`` switch.

    Setting the key (``config.enable_backprop = False``, ``using_config``, ``no_backprop_mode``)
    sets the switch of this thread; setting it on ``global_config`` sets the default of the
    threads that set none. The value read is the switch's, so the key and the recording agree.
    """

    get = staticmethod(autodiff.grad_enabled)
    set = staticmethod(autodiff.set_grad_enabled)  # returns a token for ``restore``
    restore = staticmethod(autodiff.restore_grad_enabled)
    get_default = staticmethod(autodiff.default_grad_enabled)
    set_default = staticmethod(autodiff.set_default_grad_enabled)


class GlobalConfig:
    """The process-wide configuration: a plain object whose attributes are the keys.

    ``switches`` maps keys to objects that keep their value elsewhere (``enable_backprop`` in
    the tape); ``chainer.global_config`` has them, a ``GlobalConfig()`` made by hand has none.
    """

    def __init__(self, switches: dict | None = None):
        object.__setattr__(self, "_switches", dict(switches or {}))

    def __getattr__(self, name):
        switch = self.__dict__.get("_switches", {}).get(name)
        if switch is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return bool(switch.get_default())

    def __setattr__(self, name, value):
        switch = self._switches.get(name)
        if switch is None:
            object.__setattr__(self, name, value)
        else:
            switch.set_default(bool(value))

    def _keys(self) -> set:
        return {k for k in vars(self) if not k.startswith("_")} | set(self._switches)

    def show(self, file=sys.stdout) -> None:
        """Print every key and its value, sorted by key."""
        _show(self, sorted(self._keys()), file)


class LocalConfig:
    """The configuration of the current thread; keys not set here come from ``global_config``."""

    def __init__(self, global_config: GlobalConfig):
        object.__setattr__(self, "_global", global_config)
        object.__setattr__(self, "_local", threading.local())
        object.__setattr__(self, "_switches", getattr(global_config, "_switches", {}))

    def __getattr__(self, name):
        local = self._local.__dict__
        if name in local:
            return local[name]
        switch = self._switches.get(name)
        if switch is not None:
            return switch.get()
        return getattr(self._global, name)

    def __setattr__(self, name, value):
        switch = self._switches.get(name)
        if switch is None:
            setattr(self._local, name, value)
        else:
            switch.set(bool(value))

    def __delattr__(self, name):
        switch = self._switches.get(name)
        if switch is None:
            delattr(self._local, name)
        else:  # back to the process-wide value
            switch.set(switch.get_default())

    def _set_within(self, name, value):
        """Set ``name`` to ``value``; returns a function that puts back what was there."""
        switch = self._switches.get(name)
        if switch is not None:
            token = switch.set(bool(value))
            return lambda: switch.restore(token)
        local = self._local.__dict__
        had, old = name in local, local.get(name)
        setattr(self._local, name, value)
        if had:
            return lambda: setattr(self._local, name, old)
        return lambda: delattr(self._local, name)

    def show(self, file=sys.stdout) -> None:
        """Print every key visible from this thread and its value, sorted by key."""
        keys = self._global._keys() | set(self._local.__dict__)
        _show(self, sorted(k for k in keys if not k.startswith("_")), file)


def _env_flag(name: str, default: str) -> bool:
    return bool(int(os.environ.get(name, default)))


class _Mixed16:
    """The type of ``mixed16``."""

    dtype = numpy.dtype(numpy.float16)  # what numpy.dtype(mixed16) gives

    def __repr__(self):
        return "dtype('mixed16')"


mixed16 = _Mixed16()
"""A ``config.dtype`` for mixed precision: float16 arrays and parameters, but float32 where a
link asks ``get_dtype(map_mixed16=numpy.float32)`` (the normalization links' parameters and
statistics), as in Chainer."""


def _env_dtype():
    name = os.environ.get("CHAINER_DTYPE", "float32")
    if name == "mixed16":
        return mixed16
    if name not in ("float16", "float32", "float64"):
        raise TypeError(
            f'incorrect dtype name in CHAINER_DTYPE: "{name}". Only float16/32/64 and mixed16 are allowed.'
        )
    return numpy.dtype(name)


global_config = GlobalConfig({"enable_backprop": _BackpropSwitch})
global_config.autotune = False
global_config.compute_mode = None
global_config.cudnn_deterministic = False
global_config.cudnn_fast_batch_normalization = _env_flag("CHAINER_CUDNN_FAST_BATCH_NORMALIZATION", "0")
global_config.debug = _env_flag("CHAINER_DEBUG", "0")
global_config.dtype = _env_dtype()
global_config.in_recomputing = False
global_config.keep_graph_on_report = _env_flag("CHAINER_KEEP_GRAPH_ON_REPORT", "0")
global_config.lazy_grad_sum = _env_flag("CHAINER_LAZY_GRAD_SUM", "0")
global_config.schedule_func = None
global_config.train = True
global_config._will_recompute = False
global_config.type_check = _env_flag("CHAINER_TYPE_CHECK", "1")
global_config.use_cudnn = os.environ.get("CHAINER_USE_CUDNN", "auto")
global_config.use_cudnn_tensor_core = "auto"
global_config.use_ideep = os.environ.get("CHAINER_USE_IDEEP", "never")
global_config.use_static_graph = True
global_config.warn_nondeterministic = False

config = LocalConfig(global_config)


@contextlib.contextmanager
def using_config(name: str, value, config: LocalConfig = config):
    """Set ``config.<name>`` to ``value`` in this thread within the block, then restore it.

    ``using_config('enable_backprop', False)`` is ``no_backprop_mode()``: nothing is recorded.
    """
    restore = config._set_within(name, value)
    try:
        yield
    finally:
        restore()


def is_debug() -> bool:
    """Whether debug mode (NaN checks in forward and backward) is on in this thread."""
    return bool(config.debug)


def set_debug(debug: bool) -> None:
    """Turn debug mode on or off in this thread."""
    config.debug = debug


class DebugMode:
    """A context in which debug mode is ``debug`` (kept for Chainer v1-v3 code)."""

    def __init__(self, debug: bool):
        self._context = using_config("debug", debug)

    def __enter__(self):
        self._context.__enter__()

    def __exit__(self, *exc):
        return self._context.__exit__(*exc)


def get_compute_mode():
    """``config.compute_mode``: the compute mode Chainer asks of cuDNN/ChainerX (None by default)."""
    return config.compute_mode


def get_dtype(dtype=None, map_mixed16=None):
    """``dtype`` as a NumPy dtype, or ``config.dtype`` when it is None; ``mixed16`` is float16,
    or ``map_mixed16`` when that is given."""
    if dtype is None:
        dtype = config.dtype
    if dtype is mixed16 and map_mixed16 is not None:
        dtype = map_mixed16
    return numpy.dtype(dtype)
