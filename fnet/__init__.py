"""fnet: Chainer's define-by-run deep learning, rebuilt on pure functions and immutable pytrees.

>>> import fnet
>>> float(fnet.grad(lambda x: x ** 2)(3.0))
6.0
"""

import importlib

from . import backend, errors, functions, initializers, io, nn, ops, optim, random, recording, testing, tree
from .autodiff import no_grad
from .autodiff.tracer import Tracer
from .derivatives import hessian, jacobian
from .recording import capture
from .transforms import grad, stop_gradient, value_and_grad, vjp

__version__ = "0.1.0"  # the one source of the version: pyproject.toml reads it from here

backend._tune_host_allocator_if_asked()  # only with FNET_TUNE_MALLOC=1: a process-wide setting

# Imported on first use, so that ``import fnet`` stays quick: ``fnet.data``, ``fnet.training``,
# ``fnet.distributions`` and ``fnet.compat`` (Chainer's API) are attributes all the same.
_LAZY_SUBPACKAGES = ("compat", "data", "distributions", "training")


def __getattr__(name: str):
    if name in _LAZY_SUBPACKAGES:
        return importlib.import_module(f"{__name__}.{name}")  # also binds it on this module
    raise AttributeError(f"module 'fnet' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_SUBPACKAGES})


__all__ = [
    "backend",
    "errors",
    "functions",
    "initializers",
    "io",
    "nn",
    "ops",
    "optim",
    "random",
    "recording",
    "testing",
    "tree",
    "grad",
    "value_and_grad",
    "vjp",
    "jacobian",
    "hessian",
    "stop_gradient",
    "capture",
    "no_grad",
    "Tracer",
]
