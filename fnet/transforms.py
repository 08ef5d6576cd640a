"""Function transforms over pytrees: vjp, grad, value_and_grad, stop_gradient.

The Jacobian and the Hessian, built from these with array operations, are in ``fnet.derivatives``.

>>> import fnet
>>> float(fnet.grad(lambda x: x * fnet.grad(lambda y: x * y)(1.0))(2.0))
4.0
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence

import numpy

from . import backend
from . import tree as _tree
from .autodiff import Tracer, backward, new_level, unbox, unbox_all
from .errors import DTypeError, NonDifferentiableError, ShapeError, message

__all__ = ["vjp", "grad", "value_and_grad", "stop_gradient"]


def _as_input(x, op: str, path):
    """Check and convert one leaf that will be differentiated (``path()`` names it in errors)."""
    value = unbox_all(x)
    if not backend.is_array(value):
        if isinstance(value, bool) or not isinstance(value, (int, float, complex)):
            raise NonDifferentiableError(
                message(
                    op,
                    f"cannot differentiate with respect to {_where(path())}: expected a float array, "
                    f"got {type(value).__name__}",
                    hint="pass arrays (or Python floats) as the differentiated arguments; "
                    "move other values to arguments outside argnums",
                )
            )
        x = value = numpy.asarray(value, dtype=numpy.float64 if isinstance(value, int) else None)
    if value.dtype.kind not in "fc":
        raise NonDifferentiableError(
            message(
                op,
                f"cannot differentiate with respect to {_where(path())} of dtype {value.dtype}: "
                "only float (and complex) arrays have gradients",
                {"argument": value},
                hint="cast it first, e.g. x.astype(numpy.float32), or move it out of argnums",
            )
        )
    return x


def _where(path: tuple) -> str:
    return f"argument '{_tree.path_str(path)}'" if path else "the argument"


def vjp(f: Callable, *primals, has_aux: bool = False):
    """Evaluate ``f(*primals)`` and return its value with a function pulling cotangents back.

    Returns:
        ``(out, pullback)`` or, with ``has_aux``, ``(out, pullback, aux)``. ``pullback(ct)``
        takes a cotangent shaped like ``out`` and returns a tuple shaped like ``primals``.

    >>> import numpy, fnet
    >>> y, pullback = fnet.vjp(fnet.ops.sin, numpy.zeros(2))
    >>> pullback(numpy.ones(2))
    (array([1., 1.]),)
    """
    return _vjp(f, primals, has_aux, "vjp")


def _vjp(f: Callable, primals: tuple, has_aux: bool, op: str):
    """``vjp``, with the name of the calling transform for error messages."""
    level = new_level()
    leaves, structure = _tree.flatten(primals)

    def path(i: int):
        return lambda: _tree.flatten_with_paths(primals)[i][0][1:]

    inputs = [Tracer.input(_as_input(x, op, path(i)), level) for i, x in enumerate(leaves)]
    result = f(*_tree.unflatten(structure, inputs))
    if has_aux:
        if not (isinstance(result, tuple) and len(result) == 2):
            got = "a single value" if type(result) is Tracer else type(result).__name__
            raise TypeError(
                f"{op}: with has_aux=True the function must return a pair (output, aux), got {got}\n"
                "  hint: return (loss, aux), or leave has_aux False"
            )
        result, aux = result
    # None is a leaf here: a None cotangent is a symbolic zero for its output
    out_leaves, out_structure = _tree.flatten(result, _is_none)
    out_values = [unbox(o, level) for o in out_leaves]
    out = _tree.unflatten(out_structure, out_values)

    def pullback(cotangent):
        ct_leaves, ct_structure = _tree.flatten(cotangent, _is_none)
        if ct_structure != out_structure:
            raise _tree.structure_mismatch(
                "vjp pullback", result, cotangent, ("output", "cotangent"), _is_none
            )
        roots = [
            (o, _check_cotangent(o, ct, result, i))
            for i, (o, ct) in enumerate(zip(out_leaves, ct_leaves))
            if type(o) is Tracer and o.level == level and ct is not None
        ]
        grads = backward(roots)
        return _tree.unflatten(
            structure,
            [_zero_if_none(grads.get(t.record), t.value) for t in inputs],
        )

    if has_aux:
        return out, pullback, _tree.map(lambda a: unbox(a, level), aux)
    return out, pullback


def _check_cotangent(output, cotangent, result, index: int):
    """A cotangent must have its output's shape and float dtype (``index``: the output leaf)."""
    value, ct = unbox_all(output), unbox_all(cotangent)
    ct_dtype = getattr(ct, "dtype", None)
    shape_ok = numpy.shape(ct) == numpy.shape(value)
    if shape_ok and (ct_dtype is None or ct_dtype == value.dtype or ct_dtype.kind not in "fc"):
        return cotangent
    path = _tree.flatten_with_paths(result, _is_none)[index][0]
    where = f" for output '{_tree.path_str(path)}'" if path else ""
    if not shape_ok:
        raise ShapeError(
            message(
                "vjp pullback",
                f"the cotangent{where} must have the output's shape {numpy.shape(value)}, "
                f"got {numpy.shape(ct)}",
                {"output": value, "cotangent": ct},
                "pass one cotangent per output, shaped like it (e.g. numpy.ones_like(y))",
            )
        )
    raise DTypeError(
        message(
            "vjp pullback",
            f"the cotangent{where} must have the output's dtype {value.dtype}, got {ct_dtype}",
            {"output": value, "cotangent": ct},
            f"cast it, e.g. ct.astype(numpy.{value.dtype})",
        )
    )


def _is_none(x) -> bool:
    return x is None


def _zero_if_none(ct, like):
    if ct is not None:
        return ct
    return backend.xp(like).zeros_like(unbox_all(like))


def _argnums(argnums, nargs: int, op: str) -> tuple[int, ...]:
    nums = (argnums,) if isinstance(argnums, int) else tuple(argnums)
    for n in nums:
        if not -nargs <= n < nargs:
            raise ValueError(f"{op}: argnums {argnums!r} out of range for {nargs} positional arguments")
    return nums


def value_and_grad(f: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Callable:
    """Transform ``f`` into a function returning ``(value, gradient)``.

    ``f`` must return a real scalar (or ``(scalar, aux)`` with ``has_aux``; then the result
    is ``((value, aux), gradient)``). The gradient has the structure of the argument at
    ``argnums`` (a tuple of them when ``argnums`` is a tuple).

    >>> import fnet
    >>> value, g = fnet.value_and_grad(lambda x: x ** 3)(2.0)
    >>> float(value), float(g)
    (8.0, 12.0)
    """

    @functools.wraps(f)
    def value_and_grad_f(*args, **kwargs):
        nums = _argnums(argnums, len(args), "grad")

        def partial(*diff_args):
            full = list(args)
            for n, a in zip(nums, diff_args):
                full[n] = a
            return f(*full, **kwargs)

        results = _vjp(partial, tuple(args[n] for n in nums), has_aux, "grad")
        out, pullback = results[0], results[1]
        _check_scalar(out, f)
        grads = pullback(backend.xp(out).ones_like(unbox_all(out)))
        grads = grads[0] if isinstance(argnums, int) else grads
        if has_aux:
            return (out, results[2]), grads
        return out, grads

    return value_and_grad_f


def _check_scalar(out, f):
    value = unbox_all(out)
    if type(value) is float:  # a Python float is a real scalar too (e.g. a constant output)
        return
    if backend.is_array(value) and value.shape == () and value.dtype.kind == "f":
        return
    name = getattr(f, "__name__", "function")
    if not backend.is_array(value):
        got, operands = f"a non-array {type(value).__name__}", None
    elif value.shape != ():
        got, operands = f"an array of shape {value.shape}", {"output": value}
    else:
        got, operands = f"a scalar of dtype {value.dtype}", {"output": value}
    raise NonDifferentiableError(
        message(
            "grad",
            f"the differentiated function ('{name}') must return a real scalar, got {got}",
            operands,
            "reduce it to a scalar first, e.g. fnet.ops.sum(y) or y.mean(); "
            "for non-scalar outputs use fnet.vjp or fnet.jacobian",
        )
    )


def grad(f: Callable, argnums: int | Sequence[int] = 0, has_aux: bool = False) -> Callable:
    """Transform ``f`` into a function returning its gradient (see ``value_and_grad``).

    >>> import fnet
    >>> float(fnet.grad(fnet.ops.tanh)(0.0))
    1.0
    """
    vg = value_and_grad(f, argnums, has_aux)

    @functools.wraps(f)
    def grad_f(*args, **kwargs):
        value, g = vg(*args, **kwargs)
        return (g, value[1]) if has_aux else g

    return grad_f


def stop_gradient(x):
    """The value of ``x`` (any pytree) with no gradient flowing through it.

    >>> import fnet
    >>> float(fnet.grad(lambda x: x * fnet.stop_gradient(x))(3.0))
    3.0
    """
    return _tree.map(unbox_all, x)
