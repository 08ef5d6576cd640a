"""fnet: Chainer's define-by-run deep learning, rebuilt on pure functions and immutable pytrees.

>>> import fnet
>>> float(fnet.grad(lambda x: x ** 2)(3.0))
6.0
"""

from . import backend, errors, functions, initializers, io, nn, ops, optim, random, testing, tree
from .autodiff import grad, hessian, jacobian, no_grad, stop_gradient, value_and_grad, vjp
from .autodiff.tracer import Tracer

__version__ = "0.1.0"

backend._tune_host_allocator_on_import()

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
    "testing",
    "tree",
    "grad",
    "value_and_grad",
    "vjp",
    "jacobian",
    "hessian",
    "stop_gradient",
    "no_grad",
    "Tracer",
]
