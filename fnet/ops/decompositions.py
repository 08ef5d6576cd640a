"""Matrix decompositions with NumPy's semantics: svd, qr, eigh, eigvalsh and pinv, batched over
leading axes, float16 computed in float32.

Each is a primitive whose VJP is written in fnet ops, so it can be differentiated again. A
gradient exists where the decomposition is locally smooth; where it is not (repeated singular
values or eigenvalues with a cotangent on the vectors, QR of a wide matrix, QR's ``complete``
(non-square) and ``raw`` modes, a full svd's extra vectors), the VJP raises
``NonDifferentiableError`` instead of returning infinities or NaNs.
"""

from __future__ import annotations

import numpy

from .. import backend
from ..autodiff import primitive
from ..autodiff.primitive import take_output
from ..autodiff.tracer import unbox_all
from ..errors import InvalidInputError, NonDifferentiableError, ShapeError, aval, message
from ..recording._record import active_recorder, record_call
from .elementwise import add, divide, multiply, negative, reciprocal, subtract
from .linalg import _swap, explain_lapack, in_linalg_precision, matmul, solve_triangular, tril, triu
from .reduction import sum as _reduce_sum
from .shape import _shape, expand_dims

__all__ = ["svd", "qr", "eigh", "eigvalsh", "pinv"]

QR_MODES = ("reduced", "complete", "r", "raw")


def _matrices(name: str, a) -> tuple[int, int]:
    shape = _shape(a)
    if len(shape) < 2:
        raise ShapeError(
            message(
                name,
                f"expected a (batch of) matrices, got shape {shape}",
                {"a": a},
                "give a two axes or more",
            )
        )
    return shape[-2], shape[-1]


def _square(name: str, a) -> int:
    m, n = _matrices(name, a)
    if m != n:
        raise ShapeError(
            message(name, f"expected (a batch of) square matrices, got shape {_shape(a)}", {"a": a})
        )
    return n


def _eye(n: int, like):
    raw = unbox_all(like)
    return backend.xp(raw).eye(n, dtype=raw.dtype)


def _diag(v):
    """``(..., k) -> (..., k, k)``: the vectors on the diagonals of zero matrices."""
    return multiply(expand_dims(v, -1), _eye(_shape(v)[-1], v))


def _diagonal(x):
    """``(..., k, k) -> (..., k)``: the diagonals."""
    return _reduce_sum(multiply(x, _eye(_shape(x)[-1], x)), axis=-1)


def _checked(check, *arrays, **params) -> None:
    """``check(*raw arrays, **params)``, which raises on values it refuses; a captured step
    records the call, so that each replay checks its own values."""
    raw = [unbox_all(x) for x in arrays]
    if active_recorder() is None:
        check(*raw, **params)
    else:
        record_call(check, tuple(raw), params)


def _distinct(values, a, *, name: str, what: str) -> None:
    """Raise unless the last axis of ``values`` holds pairwise distinct numbers (relative to
    their magnitude); the gradient of the vectors divides by their differences."""
    k = values.shape[-1]
    if k < 2 or values.size == 0:
        return
    xp = backend.xp(values)
    scale = float(xp.abs(values).max())
    diff = xp.abs(values[..., :, None] - values[..., None, :]) + xp.eye(k) * (scale + 1)
    if float(diff.min()) <= numpy.finfo(values.dtype).eps * max(scale, numpy.finfo(values.dtype).tiny) * k:
        raise NonDifferentiableError(
            message(
                f"{name} (gradient)",
                f"the gradient of the {what}vectors is undefined where two {what}values are equal; "
                f"two of them are equal to rounding: {values.tolist() if values.size < 16 else aval(values)}",
                {"a": a},
                f"differentiate a function of the {what}values only, or of products that do not "
                "depend on the choice of basis of a repeated value's space",
            )
        )


def _nonzero(s, a) -> None:
    """Raise if a singular value in ``s`` is 0 to rounding (the gradient of u or vh of a
    non-square matrix divides by them)."""
    if s.size and float(backend.xp(s).abs(s).min()) <= numpy.finfo(s.dtype).eps * float(s.max()):
        raise NonDifferentiableError(
            message(
                "svd (gradient)",
                "the gradient of u (or vh) of a non-square a is undefined where a singular value is 0",
                {"a": a},
                "differentiate the singular values only, or a full-rank a",
            )
        )


def _reciprocal_gaps(values, squared: bool):
    """``F[..., i, j] = 1 / (v_j - v_i)`` off the diagonal, zero on it (``v**2`` if ``squared``)."""
    if squared:
        values = multiply(values, values)
    k = _shape(values)[-1]
    eye = _eye(k, values)
    gaps = subtract(expand_dims(values, -2), expand_dims(values, -1))
    return multiply(reciprocal(add(gaps, eye)), 1 - eye)


def _explain_lapack(name: str):
    return explain_lapack(name, "LAPACK could not decompose a", "check a for NaN or infinity")


# -- svd -------------------------------------------------------------------------------------
@primitive
def _svd(a, *, full_matrices: bool, compute_uv: bool):
    function = backend.xp(a).linalg.svd
    if not compute_uv:
        return in_linalg_precision(lambda x: function(x, compute_uv=False))(a)
    return tuple(in_linalg_precision(lambda x: tuple(function(x, full_matrices=full_matrices)))(a))


def _svd_vjp(g, ans, a, *, full_matrices, compute_uv):
    m, n = _shape(a)[-2:]
    k = min(m, n)
    gu, gs, gvh = g if compute_uv else (None, g, None)
    if gu is None and gvh is None:  # U diag(gs) V^T, with the reduced U and V
        u, _, vh = svd(a, full_matrices=False)
        return matmul(multiply(u, expand_dims(gs, -2)), vh)
    u, s, vh = (take_output(ans, index=i) for i in range(3))
    if full_matrices and m != n and (gu is not None or gvh is not None):
        raise NonDifferentiableError(
            message(
                "svd (gradient)",
                f"the gradient of u and vh with full_matrices=True is undefined for a non-square a "
                f"(the extra {max(m, n) - k} vectors are any basis of a complement)",
                {"a": a},
                "use full_matrices=False",
            )
        )
    _checked(_distinct, s, a, name="svd", what="singular ")
    if (gu is not None and m > k) or (gvh is not None and n > k):
        _checked(_nonzero, s, a)
    v = _swap(vh)
    f = _reciprocal_gaps(s, squared=True)
    inner = _diag(gs) if gs is not None else 0
    grad = 0
    if gu is not None:
        ut_gu = matmul(_swap(u), gu)
        inner = add(inner, multiply(multiply(f, subtract(ut_gu, _swap(ut_gu))), expand_dims(s, -2)))
        if m > k:  # (I - U U^T) gU S^-1 V^T
            outside = subtract(gu, matmul(u, ut_gu))
            grad = matmul(divide(outside, expand_dims(s, -2)), vh)
    if gvh is not None:
        gv = _swap(gvh)
        vt_gv = matmul(vh, gv)
        inner = add(inner, multiply(expand_dims(s, -1), multiply(f, subtract(vt_gv, _swap(vt_gv)))))
        if n > k:  # U S^-1 gV^T (I - V V^T)
            outside = subtract(gvh, matmul(_swap(vt_gv), vh))
            grad = add(grad, matmul(u, divide(outside, expand_dims(s, -1))))
    return add(matmul(u, matmul(inner, _swap(v))), grad)


_svd.defexplain(_explain_lapack("svd"))
_svd.defvjp(_svd_vjp)


def svd(a, full_matrices: bool = True, compute_uv: bool = True):
    """Singular value decomposition ``a = u @ (s[..., None] * vh)`` (NumPy's ``linalg.svd``):
    ``(u, s, vh)``, or ``s`` alone with ``compute_uv=False``; singular values in descending order.

    The gradient of ``s`` exists everywhere the singular values are distinct, that of ``u`` and
    ``vh`` where they are also nonzero (for a non-square ``a``) and ``full_matrices`` is False
    (or ``a`` is square); elsewhere it raises ``NonDifferentiableError``. The signs of the
    columns of ``u`` (and rows of ``vh``) are LAPACK's choice: differentiate functions that do
    not depend on them.
    """
    _matrices("svd", a)
    out = _svd(a, full_matrices=bool(full_matrices), compute_uv=bool(compute_uv))
    if not compute_uv:
        return out
    return tuple(take_output(out, index=i) for i in range(3))


# -- eigh, eigvalsh ----------------------------------------------------------------------------
def _uplo(name: str, UPLO) -> bool:
    """Whether ``UPLO`` names the lower triangle (NumPy's rule: 'L' or 'U', either case)."""
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U"):
        raise InvalidInputError(
            message(
                name, f"expected UPLO to be 'L' or 'U', got {UPLO!r}", hint="say which triangle of a to read"
            )
        )
    return UPLO.upper() == "L"


def _fold(grad, lower: bool):
    """The cotangent of the triangle of ``a`` that was read, from ``grad``, the cotangent of the
    symmetric matrix it stands for: each entry off the diagonal is read twice."""
    both = add(grad, _swap(grad))
    triangle = tril(both) if lower else triu(both)
    return subtract(triangle, multiply(grad, _eye(_shape(grad)[-1], grad)))


@primitive
def _eigh(a, *, lower: bool):
    function = backend.xp(a).linalg.eigh
    return tuple(in_linalg_precision(lambda x: tuple(function(x, UPLO="L" if lower else "U")))(a))


def _eigh_vjp(g, ans, a, *, lower):
    gw, gv = g
    w, v = take_output(ans, index=0), take_output(ans, index=1)
    inner = _diag(gw) if gw is not None else 0
    if gv is not None:
        _checked(_distinct, w, a, name="eigh", what="eigen")
        inner = add(inner, multiply(_reciprocal_gaps(w, squared=False), matmul(_swap(v), gv)))
    return _fold(matmul(v, matmul(inner, _swap(v))), lower)


_eigh.defexplain(_explain_lapack("eigh"))
_eigh.defvjp(_eigh_vjp)


def eigh(a, UPLO: str = "L"):
    """Eigenvalues (ascending) and eigenvectors (columns) of (a batch of) symmetric matrices, of
    which only the ``UPLO`` triangle is read (NumPy's ``linalg.eigh``): ``(w, v)``.

    The gradient is that of the triangle read. That of ``v`` is undefined where two eigenvalues
    are equal (``NonDifferentiableError``); an eigenvector's sign is LAPACK's choice, so
    differentiate functions that do not depend on it.
    """
    _square("eigh", a)
    out = _eigh(a, lower=_uplo("eigh", UPLO))
    return take_output(out, index=0), take_output(out, index=1)


@primitive
def _eigvalsh(a, *, lower: bool):
    function = backend.xp(a).linalg.eigvalsh
    return in_linalg_precision(lambda x: function(x, UPLO="L" if lower else "U"))(a)


def _eigvalsh_vjp(g, ans, a, *, lower):
    _, v = eigh(a, "L" if lower else "U")
    return _fold(matmul(multiply(v, expand_dims(g, -2)), _swap(v)), lower)


_eigvalsh.defexplain(_explain_lapack("eigvalsh"))
_eigvalsh.defvjp(_eigvalsh_vjp)


def eigvalsh(a, UPLO: str = "L"):
    """The eigenvalues (ascending) of (a batch of) symmetric matrices, of which only the ``UPLO``
    triangle is read (NumPy's ``linalg.eigvalsh``); differentiable twice where they are distinct."""
    _square("eigvalsh", a)
    return _eigvalsh(a, lower=_uplo("eigvalsh", UPLO))


# -- qr ----------------------------------------------------------------------------------------
@primitive
def _qr(a, *, mode: str):
    function = backend.xp(a).linalg.qr
    return tuple(in_linalg_precision(lambda x: tuple(function(x, mode=mode)))(a))


def _qr_vjp(g, ans, a, *, mode):
    m, n = _shape(a)[-2:]
    if 0 in _shape(a):  # nothing to differentiate, whatever the mode
        raw = unbox_all(a)
        return backend.xp(raw).zeros(raw.shape, raw.dtype)
    if mode == "raw" or m < n or (mode == "complete" and m != n):
        raise NonDifferentiableError(
            message(
                "qr (gradient)",
                f"the gradient of qr is defined for mode='reduced' (or 'r') with a.shape[-2] >= "
                f"a.shape[-1], and for mode='complete' of square matrices; got mode={mode!r} and a "
                f"of shape {_shape(a)}",
                {"a": a},
                "use mode='reduced' on a tall or square a (for a wide a, differentiate qr of a.T)",
            )
        )
    gq, gr = g
    q, r = take_output(ans, index=0), take_output(ans, index=1)
    # M = R gR^T - gQ^T Q; gA = (gQ + Q copyltu(M)) R^-T, copyltu(M) = tril(M) + tril(M, -1)^T
    inner = 0
    if gr is not None:
        inner = matmul(r, _swap(gr))
    if gq is not None:
        inner = subtract(inner, matmul(_swap(gq), q))
    if isinstance(inner, int):
        return None
    symmetric = add(tril(inner), _swap(tril(inner, -1)))
    total = matmul(q, symmetric)
    if gq is not None:
        total = add(gq, total)
    return _swap(solve_triangular(r, _swap(total), lower=False))


_qr.defexplain(_explain_lapack("qr"))
_qr.defvjp(_qr_vjp)


def qr(a, mode: str = "reduced"):
    """QR decomposition of (a batch of) matrices (NumPy's ``linalg.qr``): ``(q, r)`` for the
    modes 'reduced' and 'complete', ``r`` for 'r', LAPACK's ``(h, tau)`` for 'raw'.

    Differentiable for 'reduced' and 'r' when ``a.shape[-2] >= a.shape[-1]`` and ``r`` is
    invertible, and for 'complete' of square matrices; otherwise the gradient raises
    ``NonDifferentiableError``.
    """
    if mode not in QR_MODES:
        raise InvalidInputError(
            message("qr", f"expected mode to be one of {QR_MODES}, got {mode!r}", hint="NumPy's modes")
        )
    _matrices("qr", a)
    out = _qr(a, mode="reduced" if mode == "r" else mode)
    if mode == "r":
        return take_output(out, index=1)
    return take_output(out, index=0), take_output(out, index=1)


# -- pinv --------------------------------------------------------------------------------------
@primitive
def _pinv(a, *, rcond: float):
    function = backend.xp(a).linalg.pinv
    return in_linalg_precision(lambda x: function(x, rcond=rcond))(a)


def _cuts_nonzero_values(a, rcond: float):
    """Whether ``rcond`` cuts a singular value of ``a`` that is not zero to rounding, and the
    mask of the singular values kept."""
    raw = unbox_all(a)
    xp = backend.xp(raw)
    s = xp.linalg.svd(raw.astype(numpy.promote_types(raw.dtype, numpy.float32)), compute_uv=False)
    largest = s.max(axis=-1, keepdims=True)
    cut = s <= rcond * largest
    negligible = numpy.finfo(s.dtype).eps * max(raw.shape[-2:]) * largest
    return bool(xp.any(cut & (s > negligible))), (~cut).astype(raw.dtype)


def _pinv_vjp(g, ans, a, *, rcond):
    if unbox_all(a).size:
        cuts, keep = _cuts_nonzero_values(a, rcond)
        if cuts:  # through the svd: pinv = V diag(1/s on the values kept, 0 elsewhere) U^T
            out = _svd(a, full_matrices=False, compute_uv=True)
            u, s, vh = (take_output(out, index=i) for i in range(3))
            inverse = divide(keep, add(s, 1 - keep))
            g_t = _swap(g)
            gu = multiply(matmul(g_t, _swap(vh)), expand_dims(inverse, -2))
            gvh = multiply(expand_dims(inverse, -1), matmul(_swap(u), g_t))
            gs = negative(multiply(_diagonal(matmul(vh, matmul(g, u))), multiply(inverse, inverse)))
            return _svd_vjp((gu, gs, gvh), out, a, full_matrices=False, compute_uv=True)
    # Golub and Pereyra's derivative of the pseudo-inverse at constant rank, as a cotangent:
    # -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A), with P = pinv(A).
    p_t, g_t = _swap(ans), _swap(g)
    first = negative(matmul(p_t, matmul(g, p_t)))
    left = matmul(g_t, matmul(ans, p_t))
    second = subtract(left, matmul(a, matmul(ans, left)))
    right = matmul(matmul(p_t, ans), g_t)
    third = subtract(right, matmul(matmul(right, ans), a))
    return add(first, add(second, third))


_pinv.defexplain(_explain_lapack("pinv"))
_pinv.defvjp(_pinv_vjp)


def pinv(a, rcond: float = 1e-15):
    """Moore-Penrose pseudo-inverse of (a batch of) matrices (NumPy's ``linalg.pinv``): singular
    values at most ``rcond`` times the largest count as zero.

    Differentiable twice: where the values cut are zero to rounding, by Golub and Pereyra's
    formula (any singular values); where ``rcond`` cuts nonzero ones, through the svd, which
    needs distinct singular values (else ``NonDifferentiableError``).
    """
    _matrices("pinv", a)
    return _pinv(a, rcond=float(rcond))
