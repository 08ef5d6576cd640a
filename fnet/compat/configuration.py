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
]


def _show(config, keys, file) -> None:
    width = max(len(k) for k in keys)
    for key in keys:
        file.write(f"{key.ljust(width)} {getattr(config, key)}\n")


class GlobalConfig:
    """The process-wide configuration: a plain object whose attributes are the keys."""

    def show(self, file=sys.stdout) -> None:
        """Print every key and its value, sorted by key."""
        _show(self, sorted(k for k in vars(self) if not k.startswith("_")), file)


class LocalConfig:
    """The configuration of the current thread; keys not set here come from ``global_config``."""

    def __init__(self, global_config: GlobalConfig):
        object.__setattr__(self, "_global", global_config)
        object.__setattr__(self, "_local", threading.local())

    def __getattr__(self, name):
        local = self._local.__dict__
        if name in local:
            return local[name]
        return getattr(self._global, name)

    def __setattr__(self, name, value):
        setattr(self._local, name, value)

    def __delattr__(self, name):
        delattr(self._local, name)

    def show(self, file=sys.stdout) -> None:
        """Print every key visible from this thread and its value, sorted by key."""
        keys = set(vars(self._global)) | set(self._local.__dict__)
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


global_config = GlobalConfig()
global_config.autotune = False
global_config.compute_mode = None
global_config.cudnn_deterministic = False
global_config.cudnn_fast_batch_normalization = _env_flag("CHAINER_CUDNN_FAST_BATCH_NORMALIZATION", "0")
global_config.debug = _env_flag("CHAINER_DEBUG", "0")
global_config.dtype = _env_dtype()
global_config.enable_backprop = True
global_config.in_recomputing = False
global_config.keep_graph_on_report = _env_flag("CHAINER_KEEP_GRAPH_ON_REPORT", "0")
global_config.lazy_grad_sum = _env_flag("CHAINER_LAZY_GRAD_SUM", "0")
global_config.schedule_func = None
global_config.train = True
global_config.type_check = _env_flag("CHAINER_TYPE_CHECK", "1")
global_config.use_cudnn = os.environ.get("CHAINER_USE_CUDNN", "auto")
global_config.use_cudnn_tensor_core = "auto"
global_config.use_ideep = os.environ.get("CHAINER_USE_IDEEP", "never")
global_config.use_static_graph = True
global_config.warn_nondeterministic = False

config = LocalConfig(global_config)


@contextlib.contextmanager
def using_config(name: str, value, config: LocalConfig = config):
    """Set ``config.<name>`` to ``value`` in this thread within the block, then restore it."""
    local = config._local.__dict__
    had, old = name in local, local.get(name)
    setattr(config, name, value)
    try:
        yield
    finally:
        if had:
            setattr(config, name, old)
        else:
            delattr(config, name)


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


def get_dtype(dtype=None, map_mixed16=None):
    """``dtype`` as a NumPy dtype, or ``config.dtype`` when it is None; ``mixed16`` is float16,
    or ``map_mixed16`` when that is given."""
    if dtype is None:
        dtype = config.dtype
    if dtype is mixed16 and map_mixed16 is not None:
        dtype = map_mixed16
    return numpy.dtype(dtype)
