"""``chainerx.linalg``: linear algebra on float32/float64 matrices, each routine one of fnet's
linalg ops (differentiable, on the arrays' graphs).

ChainerX's rules: float16 and non-float matrices are a ``DtypeError``, operands of the wrong
shape a ``DimensionError``, a matrix the factorization cannot take (singular, not positive
definite) a ``ChainerxError``; two operands of different float dtypes promote.
"""

from __future__ import annotations

import contextlib

from ... import functions as F
from ... import ops
from ...autodiff import unbox_all
from ...errors import DTypeError, InvalidInputError, ShapeError, message
from ...ops.decompositions import QR_MODES
from ._array import unwrap, wrap
from ._dtypes import result_type
from ._errors import ChainerxError, DimensionError, DtypeError
from ._routine import cast_to

__all__ = ["solve", "inv", "cholesky", "svd", "pinv", "qr", "eigh", "eigvalsh"]


def _is_lapack_available() -> bool:
    """Whether the native backend has LAPACK (ChainerX's build option): NumPy's linalg, always."""
    return True


def _operands(name: str, *arrays) -> tuple[list, object]:
    """The unwrapped ``arrays`` cast to their promoted dtype (float32 or float64), and their device."""
    for a in arrays:
        if a.dtype.kind != "f" or a.dtype.itemsize < 4:
            raise DtypeError(
                message(
                    f"chainerx.linalg.{name}",
                    f"expected float32 or float64 matrices, got dtype {a.dtype}",
                    hint="cast with a.astype(chainerx.float32); ChainerX's linalg has no float16",
                )
            )
    values, device = unwrap(f"linalg.{name}", arrays)
    dtype = result_type(*(unbox_all(v).dtype for v in values))
    return [cast_to(v, dtype) for v in values], device


def _matrix(name: str, a) -> None:
    if a.ndim != 2:
        raise DimensionError(
            message(f"chainerx.linalg.{name}", f"expected a matrix (2 axes), got shape {a.shape}")
        )


def _square(name: str, a) -> None:
    if a.ndim != 2 or a.shape[0] != a.shape[1]:
        raise DimensionError(
            message(f"chainerx.linalg.{name}", f"expected a square matrix, got shape {a.shape}")
        )


@contextlib.contextmanager
def _errors(name: str):
    """fnet's errors as ChainerX's: dtype, shape, and a matrix the routine cannot take."""
    try:
        yield
    except DTypeError as error:
        raise DtypeError(f"chainerx.linalg.{name}: {error}") from error
    except ShapeError as error:
        raise DimensionError(f"chainerx.linalg.{name}: {error}") from error
    except InvalidInputError as error:
        raise ChainerxError(f"chainerx.linalg.{name}: {error}") from error


def solve(a, b):
    """``x`` with ``a @ x == b``, for a square ``a`` and ``b`` a vector or a matrix."""
    _square("solve", a)
    if b.ndim not in (1, 2) or b.shape[0] != a.shape[0]:
        raise DimensionError(
            message(
                "chainerx.linalg.solve",
                f"expected b of shape ({a.shape[0]},) or ({a.shape[0]}, K) for a {a.shape}, got {b.shape}",
            )
        )
    (x, y), device = _operands("solve", a, b)
    with _errors("solve"):
        return wrap(ops.solve(x, y), device)


def inv(a):
    """The inverse of the square matrix ``a``."""
    _square("inv", a)
    (x,), device = _operands("inv", a)
    with _errors("inv"):
        return wrap(ops.inv(x), device)


def cholesky(a):
    """The lower triangular ``L`` with ``L @ L.T == a``, for a symmetric positive-definite ``a``
    (its lower triangle is read)."""
    _square("cholesky", a)
    (x,), device = _operands("cholesky", a)
    with _errors("cholesky"):
        return wrap(F.cholesky(x), device)


def svd(a, full_matrices=True, compute_uv=True):
    """``(u, s, vt)`` with ``a == u @ diag(s) @ vt`` (``s`` alone with ``compute_uv=False``).
    Differentiable with ``full_matrices=False`` or a square ``a``, and distinct singular values."""
    _matrix("svd", a)
    (x,), device = _operands("svd", a)
    with _errors("svd"):
        out = ops.svd(x, full_matrices=full_matrices, compute_uv=compute_uv)
    return tuple(wrap(y, device) for y in out) if compute_uv else wrap(out, device)


def pinv(a, rcond=1e-15):
    """The pseudo-inverse of the matrix ``a``; singular values at most ``rcond`` times the
    largest count as zero."""
    _matrix("pinv", a)
    (x,), device = _operands("pinv", a)
    with _errors("pinv"):
        return wrap(ops.pinv(x, rcond=rcond), device)


def qr(a, mode="reduced"):
    """The QR decomposition of the matrix ``a``: ``(q, r)``, ``r`` alone for ``mode='r'``, LAPACK's
    ``(h, tau)`` for ``'raw'``. Differentiable for 'reduced' and 'complete' when ``r`` is square."""
    if mode not in QR_MODES:
        raise ValueError(
            message("chainerx.linalg.qr", f"expected mode 'reduced', 'complete', 'r' or 'raw', got {mode!r}")
        )
    _matrix("qr", a)
    (x,), device = _operands("qr", a)
    with _errors("qr"):
        out = ops.qr(x, mode=mode)
    return wrap(out, device) if mode == "r" else tuple(wrap(y, device) for y in out)


def _uplo(name: str, UPLO) -> str:
    """ChainerX's checks of ``UPLO``: a string (TypeError), of one character (ValueError), 'L'
    or 'U' in either case (ChainerxError)."""
    where = f"chainerx.linalg.{name}"
    if not isinstance(UPLO, str):
        raise TypeError(
            message(where, f"expected UPLO to be a str, got {type(UPLO).__name__}", hint="'L' or 'U'")
        )
    if len(UPLO) != 1:
        raise ValueError(message(where, f"expected UPLO of one character, 'L' or 'U', got {UPLO!r}"))
    if UPLO.upper() not in ("L", "U"):
        raise ChainerxError(message(where, f"expected UPLO to be 'L' or 'U', got {UPLO!r}"))
    return UPLO


def eigh(a, UPLO="L"):
    """Eigenvalues (ascending) and eigenvectors (columns) ``(w, v)`` of the symmetric matrix
    whose ``UPLO`` triangle ``a`` holds."""
    uplo = _uplo("eigh", UPLO)
    _square("eigh", a)
    (x,), device = _operands("eigh", a)
    with _errors("eigh"):
        w, v = ops.eigh(x, uplo)
    return wrap(w, device), wrap(v, device)


def eigvalsh(a, UPLO="L"):
    """The eigenvalues (ascending) of the symmetric matrix whose ``UPLO`` triangle ``a`` holds."""
    uplo = _uplo("eigvalsh", UPLO)
    _square("eigvalsh", a)
    (x,), device = _operands("eigvalsh", a)
    with _errors("eigvalsh"):
        return wrap(ops.eigvalsh(x, uplo), device)
