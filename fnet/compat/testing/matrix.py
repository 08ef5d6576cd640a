"""``generate_matrix``: random matrices with given singular values (well- or ill-conditioned
inputs for tests of linear algebra functions)."""

from __future__ import annotations

import numpy

__all__ = ["generate_matrix"]


def generate_matrix(shape, dtype=float, *, singular_values=None) -> numpy.ndarray:
    """A random matrix, or stack of matrices, of ``shape`` ``(..., M, N)`` whose singular values
    are ``singular_values`` (broadcast to ``(..., min(M, N))``), drawn from NumPy's global
    random state.

    >>> a = generate_matrix((3, 2), singular_values=[2.0, 0.5])
    >>> numpy.allclose(numpy.linalg.svd(a, compute_uv=False), [2.0, 0.5])
    True
    """
    shape = tuple(shape)
    if len(shape) <= 1:
        raise ValueError(f"generate_matrix: shape {shape} is invalid for matrices: too few axes")
    dtype = numpy.dtype(dtype)
    if dtype.kind not in "fc":
        raise TypeError(f"generate_matrix: dtype {dtype} is not supported (only float and complex)")
    if singular_values is None:
        raise TypeError(
            "generate_matrix: singular_values is not given\n"
            "  hint: generate_matrix(shape, singular_values=[...])"
        )
    singular_values = numpy.asarray(singular_values)
    if not numpy.isrealobj(singular_values):
        raise TypeError("generate_matrix: singular_values is not real")
    if (singular_values < 0).any():
        raise ValueError("generate_matrix: negative singular value is given")
    stacked = shape[:-2] + (min(shape[-2:]),)
    if 0 in shape:
        numpy.broadcast_to(singular_values, stacked)  # a shape mismatch is still an error
        return numpy.empty(shape, dtype=dtype)
    a = numpy.random.randn(*shape)
    if dtype.kind == "c":
        a = a + 1j * numpy.random.randn(*shape)
    u, s, vh = numpy.linalg.svd(a, full_matrices=False)
    a = numpy.einsum("...ik,...k,...kj->...ij", u, numpy.broadcast_to(singular_values, s.shape), vh)
    return a.astype(dtype)


_broadcast_to = numpy.broadcast_to  # Chainer's name for it here, which its tests read
