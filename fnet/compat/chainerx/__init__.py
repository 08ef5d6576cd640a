"""ChainerX's Python API on fnet: ``chainerx.ndarray`` over NumPy (``native``) or CuPy (``cuda``).

An ndarray holds its data and, per backprop ID (graph), the node fnet's tape records for it; its
routines are fnet's ops on the unwrapped data. ``backward`` and ``grad`` run fnet's one backward
engine. ``install_alias()`` (and ``python -m fnet.compat``) make ``import chainerx`` find this
package when no real ChainerX is installed.
"""

import builtins as _builtins

import numpy as _numpy

from . import creation, indexing, linalg, logic, manipulation, math, nn, random, rnn, sorting
from ._array import AnyGraph, anygraph, ndarray
from ._backprop import (
    BackpropScope,
    ForceBackpropMode,
    NoBackpropMode,
    backprop_scope,
    backward,
    force_backprop_mode,
    grad,
    is_backprop_required,
    no_backprop_mode,
)
from ._check import check_backward, check_double_backward
from ._device import (
    Backend,
    BackpropId,
    Context,
    ContextScope,
    Device,
    DeviceScope,
    context_scope,
    get_backend,
    get_default_context,
    get_default_device,
    get_device,
    get_global_default_context,
    set_default_context,
    set_default_device,
    set_global_default_context,
    using_device,
)
from ._errors import (
    BackendError,
    ChainerxError,
    ContextError,
    DeviceError,
    DimensionError,
    DtypeError,
    GradientCheckError,
    GradientError,
    NotImplementedError,  # noqa: A004 (ChainerX's name)
)
from .creation import *  # noqa: F403
from .indexing import *  # noqa: F403
from .logic import *  # noqa: F403
from .manipulation import *  # noqa: F403
from .math import *  # noqa: F403
from .nn import *  # noqa: F403
from .rnn import *  # noqa: F403
from .sorting import *  # noqa: F403

dtype = _numpy.dtype
bool_, int8, int16, int32, int64, uint8 = (
    _numpy.bool_,
    _numpy.int8,
    _numpy.int16,
    _numpy.int32,
    _numpy.int64,
    _numpy.uint8,
)
float16, float32, float64 = _numpy.float16, _numpy.float32, _numpy.float64
all_dtypes = (bool_, int8, int16, int32, int64, uint8, float16, float32, float64)
bool, int, float = _builtins.bool, _builtins.int, _builtins.float  # noqa: A001 (ChainerX re-exports them)
e, euler_gamma, pi, inf, nan, newaxis = (
    _numpy.e,
    _numpy.euler_gamma,
    _numpy.pi,
    _numpy.inf,
    _numpy.nan,
    _numpy.newaxis,
)
# NumPy 2 dropped the aliases; ChainerX's names stay, as NumPy 1 has them where it has them
Inf = getattr(_numpy, "Inf", _numpy.inf)
Infinity = getattr(_numpy, "Infinity", _numpy.inf)
infty = getattr(_numpy, "infty", _numpy.inf)
PINF = getattr(_numpy, "PINF", _numpy.inf)
NINF = getattr(_numpy, "NINF", -_numpy.inf)
NAN = getattr(_numpy, "NAN", _numpy.nan)
NaN = getattr(_numpy, "NaN", _numpy.nan)
PZERO = getattr(_numpy, "PZERO", 0.0)
NZERO = getattr(_numpy, "NZERO", -0.0)


def is_available() -> _builtins.bool:
    """Whether ChainerX can be used: always, in fnet (``native`` is NumPy)."""
    return True


_global_context = Context._sharing_chainer_graph()  # its default graph is chainer.Variable's
set_global_default_context(_global_context)

__all__ = [
    "is_available",
    "linalg",
    "random",
    "ndarray",
    "dtype",
    "all_dtypes",
    "bool_", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64",
    "bool", "int", "float",
    "e", "euler_gamma", "pi", "inf", "nan", "newaxis", "Inf", "Infinity", "infty", "PINF", "NINF",
    "NAN", "NaN", "PZERO", "NZERO",
    "AnyGraph", "anygraph", "BackpropId", "BackpropScope", "backprop_scope", "backward", "grad",
    "no_backprop_mode", "force_backprop_mode", "is_backprop_required", "NoBackpropMode",
    "ForceBackpropMode", "Context", "Backend", "Device", "ContextScope", "DeviceScope", "context_scope",
    "get_backend", "get_device",
    "get_default_context", "set_default_context", "get_global_default_context", "set_global_default_context",
    "get_default_device", "set_default_device", "using_device",
    "ChainerxError", "BackendError", "ContextError", "DeviceError", "DimensionError", "DtypeError",
    "GradientError", "GradientCheckError", "NotImplementedError", "check_backward", "check_double_backward",
    *creation.__all__, *indexing.__all__, *logic.__all__, *manipulation.__all__, *math.__all__,
    *sorting.__all__, *nn.__all__, *rnn.__all__,
]  # fmt: skip
