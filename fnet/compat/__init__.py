"""Chainer's public API on fnet's functional core: ``import fnet.compat as chainer``.

The modules mirror Chainer's (``functions``, ``links``, ``optimizers``, ``serializers``, ...),
so Chainer v7 programs run with one import changed, or unchanged after ``install_alias()``.
The layer holds state and translates calls; every formula is fnet's pure one.
"""

import sys

from . import (
    _modules,  # noqa: F401  (installs the finder of the declared module tree)
    _operators,
    configuration,
    function_hooks,
    function_node,
    functions,
    initializers,
    variable,
)

_operators.install()

from . import (  # noqa: E402  (the operators are installed before anything uses Variables)
    _migration,  # noqa: E402
    _tree,
    backend,
    backends,
    computational_graph,
    dataset,
    datasets,
    device_resident,
    distribution,
    distributions,
    gradient_check,
    graph_optimizations,
    iterators,
    link,
    link_hooks,
    links,
    memory_layouts,
    optimizer,
    optimizer_hooks,
    optimizers,
    reporter,
    runtime_info,
    sequential,
    serializer,
    serializers,
    training,
    utils,
    warnings,
)
from . import function_hooks as function_hook  # noqa: E402  (Chainer's module path of FunctionHook)
from ._alias import install_alias  # noqa: E402
from ._version import __version__ as __version__  # noqa: E402  (the Chainer API this layer follows)
from .backend import (  # noqa: E402
    get_array_types,
    get_cpu_array_types,
    get_device,
    is_arrays_compatible,
    using_device,
)
from .backends import cuda  # noqa: E402  (chainer.cuda, the old path of chainer.backends.cuda)
from .backends.cuda import should_use_cudnn, should_use_cudnn_tensor_core  # noqa: E402
from .configuration import (  # noqa: E402
    DebugMode,
    config,
    get_compute_mode,
    get_dtype,
    global_config,
    is_debug,
    mixed16,
    set_debug,
    using_config,
)
from .device_resident import DeviceResident  # noqa: E402
from .distribution import Distribution, cross_entropy, kl_divergence, register_kl  # noqa: E402
from .function_hooks import FunctionHook, get_function_hooks  # noqa: E402
from .function_node import Fallback, Function, FunctionAdapter, FunctionNode  # noqa: E402
from .functions.math import basic_math  # noqa: E402, F401  (Chainer exports it as chainer.basic_math)
from .graph_optimizations import static_code, static_graph  # noqa: E402
from .initializers import Initializer  # noqa: E402
from .link import Chain, ChainList, Link  # noqa: E402
from .link_hooks import LinkHook, link_hook  # noqa: E402
from .link_hooks.link_hook import get_link_hooks as _get_link_hooks  # noqa: E402, F401
from .optimizer import GradientMethod, Optimizer, UpdateRule  # noqa: E402
from .reporter import DictSummary, Reporter, Summary, get_current_reporter, report, report_scope  # noqa: E402
from .runtime_info import print_runtime_info  # noqa: E402
from .sequential import Sequential  # noqa: E402
from .serializer import AbstractSerializer, Deserializer, Serializer  # noqa: E402
from .variable import (  # noqa: E402
    Parameter,
    Variable,
    as_array,
    as_variable,
    backward,
    force_backprop_mode,
    grad,
    no_backprop_mode,
)

disable_experimental_feature_warning = False
utils._switches = sys.modules[__name__]  # where utils.experimental reads the switch above

__all__ = [
    # modules
    "backend",
    "backends",
    "basic_math",
    "computational_graph",
    "graph_optimizations",
    "static_code",
    "static_graph",
    "configuration",
    "cuda",
    "device_resident",
    "distribution",
    "distributions",
    "dataset",
    "datasets",
    "function_hook",
    "function_hooks",
    "function_node",
    "functions",
    "gradient_check",
    "initializers",
    "iterators",
    "link",
    "link_hook",
    "link_hooks",
    "links",
    "memory_layouts",
    "optimizer",
    "optimizer_hooks",
    "optimizers",
    "reporter",
    "runtime_info",
    "sequential",
    "serializer",
    "serializers",
    "training",
    "utils",
    "variable",
    "warnings",
    # variables and functions
    "Variable",
    "Parameter",
    "as_variable",
    "as_array",
    "grad",
    "backward",
    "no_backprop_mode",
    "force_backprop_mode",
    "FunctionNode",
    "Function",
    "FunctionAdapter",
    "FunctionHook",
    "get_function_hooks",
    "Initializer",
    "Fallback",
    "DeviceResident",
    # links and optimizers
    "Link",
    "Chain",
    "ChainList",
    "Sequential",
    "LinkHook",
    "Optimizer",
    "GradientMethod",
    "UpdateRule",
    # reporting and serialization
    "Reporter",
    "report",
    "report_scope",
    "get_current_reporter",
    "Summary",
    "DictSummary",
    "AbstractSerializer",
    "Serializer",
    "Deserializer",
    # distributions
    "Distribution",
    "register_kl",
    "kl_divergence",
    "cross_entropy",
    # configuration and devices
    "config",
    "global_config",
    "using_config",
    "get_dtype",
    "get_compute_mode",
    "mixed16",
    "is_debug",
    "set_debug",
    "DebugMode",
    "get_device",
    "using_device",
    "get_array_types",
    "get_cpu_array_types",
    "is_arrays_compatible",
    "should_use_cudnn",
    "should_use_cudnn_tensor_core",
    "print_runtime_info",
    "install_alias",
    "disable_experimental_feature_warning",
]

_tree.install()  # Chainer's module paths outside chainer.functions (chainer.links.connection.linear...)
_migration.install()  # removed v1 names (chainer.FunctionSet...) explain what replaces them
