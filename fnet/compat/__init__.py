"""Chainer's public API on fnet's functional core: ``import fnet.compat as chainer``."""

from . import configuration, function_hooks, functions, initializers
from .configuration import (
    DebugMode,
    config,
    get_dtype,
    global_config,
    is_debug,
    set_debug,
    using_config,
)
from .function_hooks import FunctionHook, get_function_hooks
from .function_node import Function, FunctionAdapter, FunctionNode
from .variable import (
    Parameter,
    Variable,
    as_array,
    as_variable,
    backward,
    force_backprop_mode,
    grad,
    no_backprop_mode,
)

from . import _operators

_operators.install()
