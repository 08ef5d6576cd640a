"""Chainer's public API on fnet's functional core: ``import fnet.compat as chainer``."""

from . import _operators, configuration, function_hooks, functions, initializers
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

_operators.install()
from . import reporter
from .reporter import DictSummary, Reporter, Summary, get_current_reporter, report, report_scope

__version__ = "7.8.1"  # the Chainer version whose documented API this layer follows
from . import link_hooks
from .link import Chain, ChainList, Link
from .link_hooks import LinkHook, link_hook
from .link_hooks.link_hook import get_link_hooks as _get_link_hooks
from .sequential import Sequential
from . import gradient_check, utils

disable_experimental_feature_warning = False  # read by utils.experimental
from . import serializer, serializers
from .serializer import AbstractSerializer, Deserializer, Serializer
from . import backend, backends, computational_graph, runtime_info
from . import function_hooks as function_hook  # Chainer's module path of FunctionHook
from ._alias import install_alias
from .backend import get_array_types, get_cpu_array_types, get_device, is_arrays_compatible, using_device
from .backends import cuda  # chainer.cuda, the old path of chainer.backends.cuda
from .backends.cuda import should_use_cudnn, should_use_cudnn_tensor_core
from .runtime_info import print_runtime_info
from . import links
from . import optimizer, optimizer_hooks, optimizers
from .optimizer import GradientMethod, Optimizer, UpdateRule
from . import dataset, datasets, iterators
