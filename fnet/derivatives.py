"""Derivatives as arrays: the Jacobian and the Hessian, built on ``fnet.vjp`` and ``fnet.grad``.

They stand above ``fnet.ops`` because they assemble their rows with array operations
(``stack``, ``reshape``), which keeps them differentiable in turn.

>>> import numpy, fnet
>>> A = numpy.array([[2.0, 1.0], [1.0, 3.0]])
>>> fnet.hessian(lambda x: x @ A @ x / 2)(numpy.ones(2))
array([[2., 1.],
       [1., 3.]])
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy

from . import backend, ops
from .autodiff import unbox_all
from .transforms import grad, vjp

__all__ = ["jacobian", "hessian"]


def jacobian(f: Callable, argnums: int = 0) -> Callable:
    """Transform ``f`` (array to array) into its Jacobian, of shape ``out.shape + in.shape``.

    Computed in reverse mode, one pullback per output element.

    >>> import numpy, fnet
    >>> fnet.jacobian(lambda x: x * x)(numpy.array([1.0, 2.0]))
    array([[2., 0.],
           [0., 4.]])
    """

    @functools.wraps(f)
    def jacobian_f(*args, **kwargs):
        def partial(x):
            full = list(args)
            full[argnums] = x
            return f(*full, **kwargs)

        x = args[argnums]
        out, pullback = vjp(partial, x)
        raw_out = unbox_all(out)
        xp = backend.xp(raw_out)
        raw_out = xp.asarray(raw_out)  # a Python float output is a 0-d array here
        rows = []
        for i in range(raw_out.size):
            seed = xp.zeros(raw_out.size, dtype=raw_out.dtype)
            seed[i] = 1
            rows.append(pullback(seed.reshape(raw_out.shape))[0])
        in_shape = numpy.shape(unbox_all(x))
        if not rows:
            return xp.zeros(raw_out.shape + in_shape, dtype=raw_out.dtype)
        return ops.reshape(ops.stack(rows), raw_out.shape + in_shape)

    return jacobian_f


def hessian(f: Callable, argnums: int = 0) -> Callable:
    """The Hessian of a scalar function, as the Jacobian of its gradient (reverse over reverse).

    >>> import numpy, fnet
    >>> A = numpy.array([[2.0, 1.0], [1.0, 3.0]])
    >>> fnet.hessian(lambda x: x @ A @ x / 2)(numpy.ones(2))
    array([[2., 1.],
           [1., 3.]])
    """
    return jacobian(grad(f, argnums), argnums)
