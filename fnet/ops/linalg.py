"""Linear algebra: matmul (NumPy's batched semantics), tensordot, einsum, inv, det, solve, the
triangles of matrices (tril, triu) and solve_triangular."""

from __future__ import annotations

import string

import numpy

from .. import backend
from ..autodiff import primitive
from ..autodiff.tracer import unbox_all
from ..errors import InvalidInputError, ShapeError, message
from ._dtypes import strict_float_operands
from .broadcast import broadcast_to, sum_to
from .elementwise import multiply, negative
from .shape import (
    _shape,
    expand_dims,
    reshape,
    squeeze,
    swapaxes,
    transpose,
)

__all__ = ["matmul", "dot", "tensordot", "einsum", "inv", "det", "solve", "tril", "triu", "solve_triangular"]


def raw_matmul(a, b):
    """``a @ b`` on raw arrays. NumPy multiplies float16 matrices without BLAS, accumulating in
    float32 (tens of times slower than float32); here they go through float32 BLAS and are
    rounded once, which keeps that precision at float32's speed. CuPy's are left to cuBLAS."""
    if getattr(a, "dtype", None) == numpy.float16 == getattr(b, "dtype", None) and backend.xp(a, b) is numpy:
        return numpy.matmul(a.astype(numpy.float32), b.astype(numpy.float32)).astype(numpy.float16)
    return a @ b


@primitive
def matmul(a, b):
    """Matrix product with NumPy's semantics: batched over leading axes, 1-D operands as vectors."""
    if getattr(a, "dtype", None) is not getattr(b, "dtype", None):
        strict_float_operands("matmul", ("a", "b"), a, b)
    return raw_matmul(a, b)


@matmul.defexplain
def _explain_matmul(error, a, b):
    sa, sb = numpy.shape(a), numpy.shape(b)
    if len(sa) == 0 or len(sb) == 0:
        problem = "operands must have at least one dimension"
        hint = "use multiply for scalars"
    elif sa[-1] != (k_b := sb[-2] if len(sb) > 1 else sb[0]):
        problem = f"expected a.shape[-1] == b.shape[{-2 if len(sb) > 1 else 0}], got {sa[-1]} != {k_b}"
        hint = "the contracted axes must match; did you mean to transpose one operand (e.g. b.T)?"
    else:
        problem = f"the batch shapes {sa[:-2]} and {sb[:-2]} cannot be broadcast together"
        hint = "aligned from the right, each batch axis must match or be 1"
    return ShapeError(message("matmul", problem, {"a": a, "b": b}, hint))


def _matmul_vjp_a(g, ans, a, b):
    a_shape, b_shape = _shape(a), _shape(b)
    if len(b_shape) == 1:  # (..., k) @ (k,) -> (...)
        return sum_to(multiply(expand_dims(g, -1), b), a_shape)
    if len(a_shape) == 1:  # (k,) @ (..., k, n) -> (..., n)
        return sum_to(squeeze(matmul(b, expand_dims(g, -1)), -1), a_shape)
    return sum_to(matmul(g, swapaxes(b, -1, -2)), a_shape)


def _matmul_vjp_b(g, ans, a, b):
    a_shape, b_shape = _shape(a), _shape(b)
    if len(a_shape) == 1 and len(b_shape) == 1:
        return multiply(a, g)
    if len(a_shape) == 1:  # gb[..., k, n] = a[k] g[..., n]
        return sum_to(multiply(expand_dims(a, -1), expand_dims(g, -2)), b_shape)
    if len(b_shape) == 1:  # gb[k] = sum a[..., m, k] g[..., m]
        return sum_to(squeeze(matmul(expand_dims(g, -2), a), -2), b_shape)
    return sum_to(matmul(swapaxes(a, -1, -2), g), b_shape)


matmul.defvjp(_matmul_vjp_a, _matmul_vjp_b)


def dot(a, b):
    """``a @ b`` for operands of at most two dimensions (NumPy's ``dot`` on vectors and matrices)."""
    if len(_shape(a)) > 2 or len(_shape(b)) > 2:
        raise ShapeError("dot: operands of more than two dimensions are ambiguous; use matmul or tensordot")
    if len(_shape(a)) == 0 or len(_shape(b)) == 0:
        return multiply(a, b)
    return matmul(a, b)


def tensordot(a, b, axes=2):
    """Sum of products over the given axes of ``a`` and ``b`` (NumPy's semantics)."""
    sa, sb = _shape(a), _shape(b)
    if isinstance(axes, int):
        axes_a, axes_b = list(range(len(sa) - axes, len(sa))), list(range(axes))
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, int) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, int) else list(axes_b)
    axes_a = [x % len(sa) for x in axes_a]
    axes_b = [x % len(sb) for x in axes_b]
    if len(axes_a) != len(axes_b) or any(sa[i] != sb[j] for i, j in zip(axes_a, axes_b)):
        raise ShapeError(
            message(
                "tensordot",
                f"contracted axes {axes_a} of a and {axes_b} of b do not match",
                {"a": a, "b": b},
                "each pair of contracted axes must have the same length",
            )
        )
    free_a = [i for i in range(len(sa)) if i not in axes_a]
    free_b = [j for j in range(len(sb)) if j not in axes_b]
    size = int(numpy.prod([sa[i] for i in axes_a]))
    left = reshape(transpose(a, free_a + axes_a), (-1, size))
    right = reshape(transpose(b, axes_b + free_b), (size, -1))
    return reshape(matmul(left, right), [sa[i] for i in free_a] + [sb[j] for j in free_b])


def _parse_einsum(subscripts: str, shapes: list[tuple]) -> tuple[tuple[str, ...], str]:
    """Explicit terms for each operand and the output, with ``...`` spelled out in letters."""
    subscripts = subscripts.replace(" ", "")
    inputs, arrow, output = subscripts.partition("->")
    terms = inputs.split(",")
    if len(terms) != len(shapes):
        raise ValueError(f"einsum: {len(terms)} terms in {subscripts!r} but {len(shapes)} operands")
    spare = [c for c in string.ascii_letters if c not in subscripts]
    widths = [len(s) - (len(t) - 3) for t, s in zip(terms, shapes) if "..." in t]
    ellipsis = "".join(spare[: max(widths, default=0)])
    explicit = []
    for term, shape in zip(terms, shapes):
        if "..." in term:
            width = len(shape) - (len(term) - 3)
            term = term.replace("...", ellipsis[len(ellipsis) - width :] if width else "")
        if len(term) != len(shape):
            raise ShapeError(
                f"einsum: term {term!r} has {len(term)} letters but its operand has shape {shape}"
            )
        explicit.append(term)
    if arrow:
        output = output.replace("...", ellipsis)
    else:
        letters = "".join(explicit)
        output = ellipsis + "".join(
            sorted(c for c in set(letters) if letters.count(c) == 1 and c not in ellipsis)
        )
    return tuple(explicit), output


@primitive
def _einsum(*operands, terms, output):
    strict_float_operands("einsum", tuple(f"operands[{i}]" for i in range(len(operands))), *operands)
    return backend.xp(*operands).einsum(
        ",".join(terms) + "->" + output, *operands, optimize=len(operands) > 2
    )


def _einsum_vjp(index):
    def vjp(g, ans, *operands, terms, output):
        term = terms[index]
        shape = _shape(operands[index])
        others = [t for i, t in enumerate(terms) if i != index]
        other_ops = [o for i, o in enumerate(operands) if i != index]
        unique = "".join(dict.fromkeys(term))
        reachable = set(output).union(*others) if others else set(output)
        kept = "".join(c for c in unique if c in reachable)
        grad = einsum(",".join([output, *others]) + "->" + kept, g, *other_ops)
        sizes = {c: d for c, d in zip(term, shape)}
        # axes of length 1 in this operand that broadcast against the others: sum them back
        grad = sum_to(grad, [sizes[c] for c in kept])
        # letters summed only inside this operand: the gradient is constant along them
        grad = broadcast_to(
            reshape(grad, [sizes[c] if c in kept else 1 for c in unique]), [sizes[c] for c in unique]
        )
        if len(unique) < len(term):  # repeated letters: the gradient lives on the diagonal
            first = [term.index(c) == i for i, c in enumerate(term)]
            grad = broadcast_to(reshape(grad, [d if f else 1 for d, f in zip(shape, first)]), shape)
            index_grid = numpy.indices(shape)
            mask = numpy.ones(shape, dtype=bool)
            for i, c in enumerate(term):
                mask &= index_grid[i] == index_grid[term.index(c)]
            grad = multiply(grad, backend.xp(unbox_all(grad)).asarray(mask))
        return grad

    return vjp


_einsum.defvjp_variadic(_einsum_vjp)


def einsum(subscripts: str, *operands):
    """Einstein summation (NumPy's notation, with ``...`` and implicit output)."""
    terms, output = _parse_einsum(subscripts, [_shape(o) for o in operands])
    return _einsum(*operands, terms=terms, output=output)


def _swap(a):
    return swapaxes(a, -1, -2)


def in_linalg_precision(function):
    """``function`` of a (batch of) matrices, computed in float32 for float16 input (NumPy's
    and CuPy's linear algebra have no float16), with the result (or each of a tuple) cast back."""

    def run(a, *rest):
        if a.dtype == numpy.float16:
            out = function(a.astype(numpy.float32), *(r.astype(numpy.float32) for r in rest))
            return tuple(o.astype(a.dtype) for o in out) if type(out) is tuple else out.astype(a.dtype)
        return function(a, *rest)

    return run


def explain_lapack(name: str, what: str, hint: str):
    """An explainer for ``defexplain``: LAPACK's ``LinAlgError`` as an ``InvalidInputError``
    saying ``what`` of the operand ``a`` (``"...: {error}"``), with ``hint``."""

    def explain(error, a, *rest, **params):
        if not isinstance(error, numpy.linalg.LinAlgError):
            return None
        return InvalidInputError(message(name, f"{what}: {error}", {"a": a}, hint))

    return explain


def _explain_singular(name: str):
    return explain_lapack(name, "the matrix is singular or not square", "check a's rank")


@primitive
def inv(a):
    """Inverse of a (batch of) square matrices."""
    return in_linalg_precision(backend.xp(a).linalg.inv)(a)


inv.defexplain(_explain_singular("inv"))
inv.defvjp(lambda g, ans, a: negative(matmul(_swap(ans), matmul(g, _swap(ans)))))


@primitive
def det(a):
    """Determinant of a (batch of) square matrices."""
    return in_linalg_precision(backend.xp(a).linalg.det)(a)


det.defvjp(
    lambda g, ans, a: multiply(multiply(expand_dims(g, (-1, -2)), expand_dims(ans, (-1, -2))), _swap(inv(a)))
)


@primitive
def _solve(a, b):
    strict_float_operands("solve", ("a", "b"), a, b)
    xp = backend.xp(a, b)
    batch = numpy.broadcast_shapes(a.shape[:-2], b.shape[:-2] if b.ndim > 1 else ())
    a = xp.broadcast_to(a, batch + a.shape[-2:])
    if b.ndim == 1:
        rhs = xp.broadcast_to(b[:, None], batch + (b.shape[0], 1))
        return in_linalg_precision(xp.linalg.solve)(a, rhs)[..., 0]
    return in_linalg_precision(xp.linalg.solve)(a, xp.broadcast_to(b, batch + b.shape[-2:]))


_solve.defexplain(_explain_singular("solve"))


def _solve_transposed(a, g, b):
    """``solve(a.T, g)``: the cotangent of ``b`` before summing over broadcast batch axes."""
    if len(_shape(b)) == 1:  # g has shape (..., M): solve it as a batch of column vectors
        return squeeze(solve(_swap(a), expand_dims(g, -1)), -1)
    return solve(_swap(a), g)


def _solve_vjp_a(g, ans, a, b):
    gb = _solve_transposed(a, g, b)
    if len(_shape(b)) == 1:
        outer = multiply(expand_dims(gb, -1), expand_dims(ans, -2))
    else:
        outer = matmul(gb, _swap(ans))
    return sum_to(negative(outer), _shape(a))


_solve.defvjp(_solve_vjp_a, lambda g, ans, a, b: sum_to(_solve_transposed(a, g, b), _shape(b)))


def solve(a, b):
    """Solve ``a @ x = b`` for ``x``; ``b`` is a vector when 1-D, else a (batch of) matrices."""
    sa, sb = _shape(a), _shape(b)
    if len(sa) < 2 or sa[-1] != sa[-2] or (sb[-2] if len(sb) > 1 else sb[0]) != sa[-1]:
        raise ShapeError(
            message(
                "solve",
                f"expected square a of shape (..., M, M) and b of shape (M,) or (..., M, K), "
                f"got {sa} and {sb}",
                {"a": a, "b": b},
                "b's rows must match a's size",
            )
        )
    return _solve(a, b)


@primitive
def _triangle(x, *, k: int, lower: bool):
    xp = backend.xp(x)
    return xp.tril(x, k) if lower else xp.triu(x, k)


_triangle.defvjp(lambda g, ans, x, *, k, lower: _triangle(g, k=k, lower=lower))


def _check_matrices(op: str, x) -> None:
    if len(_shape(x)) < 2:
        raise ShapeError(
            message(
                op,
                f"expected a (batch of) matrices, got shape {_shape(x)}",
                {"x": x},
                "give x two axes or more",
            )
        )


def tril(x, k: int = 0):
    """The lower triangle of (a batch of) matrices: the entries on and below the ``k``-th diagonal,
    zeros above.

    >>> tril(numpy.ones((2, 2))).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    _check_matrices("tril", x)
    return _triangle(x, k=int(k), lower=True)


def triu(x, k: int = 0):
    """The upper triangle of (a batch of) matrices: the entries on and above the ``k``-th diagonal,
    zeros below."""
    _check_matrices("triu", x)
    return _triangle(x, k=int(k), lower=False)


def solve_triangular(a, b, lower: bool = True):
    """Solve ``t @ x = b`` where ``t`` is the lower (or, with ``lower=False``, upper) triangle of
    ``a``; the other triangle of ``a`` is not read, and its gradient is zero. ``b`` is as in
    :func:`solve`.

    >>> solve_triangular(numpy.array([[2.0, 9.0], [1.0, 1.0]]), numpy.array([2.0, 2.0])).tolist()
    [1.0, 1.0]
    """
    _check_matrices("solve_triangular", a)
    return solve(tril(a) if lower else triu(a), b)
