"""What the gpu tests share: run a function on the CPU and on the device under test
(``--gpu-device``, fixture ``gpu_device``), and compare the values, the first-order gradients and
a second-order quantity.

Tolerance (float64): rtol 1e-9, and an absolute floor of 1e-9 times the largest magnitude of
the expected array, but never below ZERO_FLOOR. On the CPU device the arithmetic is the same and
agrees to the last bit; on a GPU, cuBLAS and CuPy's reductions add in another order, so sums that
cancel lose digits relative to their own size but not relative to the terms, which the floor
allows for. A quantity that cancels to exactly zero in exact arithmetic (the gradient of the sum
of a normalization's outputs, of a softmax's) is left with rounding noise of a few ulps of its
terms, which are of order 1 in these tables (about 1e-16, seen up to 1.3e-15 on an H200): the
floor ZERO_FLOOR = 1e-12 covers that with room, and is still far below any real error.
"""

from __future__ import annotations

import numpy

import fnet
from fnet import backend, ops

__all__ = [
    "RTOL",
    "ZERO_FLOOR",
    "on_device",
    "host",
    "assert_close",
    "sum_all",
    "as_float64",
    "compare_with_cpu",
]

RTOL = 1e-9
ZERO_FLOOR = 1e-12


def on_device(tree, device):
    """``tree`` with every array leaf sent to ``device``."""
    return backend.to_device(tree, device)


def host(tree, device):
    """Every array leaf of ``tree``, checked to live on ``device``, moved to the host."""
    for leaf in fnet.tree.leaves(tree):
        if backend.is_array(leaf) and not isinstance(leaf, numpy.generic):
            assert backend.get_device_from_array(leaf) == device, (
                f"a result came back on {backend.get_device_from_array(leaf)}, not on {device}"
            )
    return backend.to_cpu(tree)


def assert_close(actual, expected, what: str, rtol: float = RTOL) -> None:
    """Pytrees of host arrays equal within ``rtol`` (and the floor in this module's docstring)."""
    a_leaves, e_leaves = fnet.tree.leaves(actual), fnet.tree.leaves(expected)
    assert len(a_leaves) == len(e_leaves), f"{what}: {len(a_leaves)} leaves, expected {len(e_leaves)}"
    for i, (a, e) in enumerate(zip(a_leaves, e_leaves)):
        if e is None:
            assert a is None, f"{what}[{i}]: expected None"
            continue
        e = numpy.asarray(e)
        scale = float(numpy.abs(e).max()) if e.size and e.dtype.kind in "fc" else 0.0
        numpy.testing.assert_allclose(
            numpy.asarray(a), e, rtol=rtol, atol=max(rtol * scale, ZERO_FLOOR), err_msg=f"{what}[{i}]"
        )


def sum_all(tree):
    """The sum of every element of every float leaf of ``tree`` (a scalar to differentiate)."""
    total = 0.0
    for leaf in fnet.tree.leaves(tree):
        if (
            leaf is not None
            and numpy.dtype(getattr(fnet.autodiff.unbox_all(leaf), "dtype", float)).kind == "f"
        ):
            total = ops.add(total, ops.sum(leaf))
    return total


def _is_float(tree) -> bool:
    leaves = [a for a in fnet.tree.leaves(tree) if backend.is_array(a)]
    return bool(leaves) and all(numpy.dtype(a.dtype).kind == "f" for a in leaves)


def as_float64(tree):
    """Every float array leaf of ``tree`` in float64 (the dtype the tolerances are stated for)."""
    return fnet.tree.map(
        lambda a: a.astype(numpy.float64) if backend.is_array(a) and numpy.dtype(a.dtype).kind == "f" else a,
        tree,
    )


def _derivatives(f, args, options):
    """``f(*args, **options)``, the gradient of the sum of its outputs with respect to every
    float argument, and the gradient of the sum of squares of that gradient (a second-order
    quantity). ``options`` are not differentiated."""
    argnums = tuple(i for i, a in enumerate(args) if _is_float(a))

    def g(*a):
        return f(*a, **options)

    def first(*a):
        return fnet.grad(lambda *b: sum_all(g(*b)), argnums=argnums)(*a)

    def squares(*a):
        return sum_all(fnet.tree.map(lambda d: ops.multiply(d, d), first(*a)))

    def second(*a):
        return fnet.grad(squares, argnums=argnums)(*a)

    return g(*args), first(*args), second(*args)


def compare_with_cpu(f, args, device, rtol: float = RTOL, **options) -> None:
    """Run ``f(*args, **options)`` and its derivatives (in ``args``) on the host and on
    ``device`` (``args`` and the arrays among ``options`` sent there); assert they agree."""
    expected = _derivatives(f, args, options)
    actual = host(_derivatives(f, on_device(args, device), on_device(options, device)), device)
    for what, a, e in zip(("value", "gradient", "second order"), actual, expected):
        assert_close(a, e, what, rtol)
