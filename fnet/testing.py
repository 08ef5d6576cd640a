"""Checking derivatives against central differences, and comparing arrays and trees in tests.

>>> import numpy, fnet
>>> check_grads(fnet.ops.tanh, (numpy.array([0.3, -1.2]),), order=2)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy

from . import backend
from . import tree as _tree
from .autodiff.tracer import unbox_all
from .transforms import vjp

__all__ = [
    "check_grads",
    "check_vjp",
    "numerical_jvp",
    "assert_allclose",
    "tree_allclose",
    "assert_ulp_close",
    "ulp_distance",
]


def _is_float(x) -> bool:
    x = unbox_all(x)
    return backend.is_array(x) and x.dtype.kind in "fc"


def _random_like(tree, rng: numpy.random.RandomState):
    def draw(x):
        if not _is_float(x):
            return None
        sample = rng.standard_normal(numpy.shape(x)).astype(x.dtype)
        return backend.xp(x).asarray(sample)

    return _tree.map(draw, tree)


def _name(f) -> str:
    """A function's name for messages (primitives have ``name``, not ``__name__``)."""
    return getattr(f, "__name__", None) or getattr(f, "name", None) or repr(f)


def _is_none(x) -> bool:
    return x is None


def _vdot(a, b) -> float:
    total = 0.0
    for x, y in zip(_tree.leaves(a, _is_none), _tree.leaves(b, _is_none)):
        if x is not None and y is not None:
            total += float(numpy.sum(backend.to_cpu(x) * backend.to_cpu(y)))
    return total


def numerical_jvp(f: Callable, args: Sequence, tangents: Sequence, eps: float = 1e-5):
    """The directional derivative of ``f`` at ``args`` along ``tangents``, by central differences."""

    def shifted(sign):
        return _tree.map(
            lambda a, t: a if t is None else a + sign * eps * t, args, tangents, is_leaf=_is_none
        )

    plus, minus = f(*shifted(1.0)), f(*shifted(-1.0))
    return _tree.map(lambda p, m: (p - m) / (2 * eps), plus, minus)


def _float_vjp(f: Callable, args: tuple):
    """``vjp`` of ``f`` with respect to the float-array leaves of ``args`` only.

    Other leaves (integer labels, Python numbers, strings) are held fixed, so functions of
    integer arguments can be checked; the pullback returns the float leaves' cotangents in order.
    """
    leaves, structure = _tree.flatten(args)
    index = [i for i, x in enumerate(leaves) if _is_float(x)]

    def of_floats(*floats):
        full = list(leaves)
        for i, x in zip(index, floats):
            full[i] = x
        return f(*_tree.unflatten(structure, full))

    return vjp(of_floats, *[leaves[i] for i in index])


def check_vjp(
    f: Callable,
    args: Sequence,
    *,
    eps: float = 1e-5,
    rtol: float = 1e-4,
    atol: float = 1e-6,
    seed: int = 0,
    directions: int = 2,
) -> None:
    """Assert that ``f``'s VJP agrees with central differences along random directions.

    For random ``v`` (like ``args``) and ``u`` (like the output), ``<u, J v>`` from finite
    differences must match ``<vjp(u), v>``. Use float64 arguments; leaves that are not float
    arrays (integer labels, Python numbers) are held fixed.
    """
    rng = numpy.random.RandomState(seed)
    args = tuple(args)
    leaves, structure = _tree.flatten(args)
    out, pullback = _float_vjp(f, args)
    for _ in range(directions):
        v_leaves = [_random_like(x, rng) for x in leaves]
        u = _random_like(out, rng)
        expected = _vdot(u, numerical_jvp(f, args, _tree.unflatten(structure, v_leaves), eps))
        actual = _vdot(pullback(u), [v for v in v_leaves if v is not None])
        if not numpy.isclose(actual, expected, rtol=rtol, atol=atol):
            name = _name(f)
            raise AssertionError(
                f"check_vjp: the VJP of {name} disagrees with central differences: "
                f"<vjp(u), v> = {actual!r}, numerical <u, J v> = {expected!r} "
                f"(|diff| = {abs(actual - expected):.3g}, rtol={rtol}, atol={atol})"
            )


def check_grads(
    f: Callable,
    args: Sequence,
    order: int = 2,
    *,
    eps: float = 1e-5,
    rtol: float = 1e-4,
    atol: float = 1e-6,
    seed: int = 0,
) -> None:
    """Check ``f``'s derivatives up to ``order`` against central differences (float64 args).

    Order 2 checks the VJP of the function ``args -> vjp(f, *args)(u)`` for a fixed random
    ``u``: the derivative of the backward pass itself, which is what double backprop uses.
    """
    args = tuple(args)
    check_vjp(f, args, eps=eps, rtol=rtol, atol=atol, seed=seed)
    if order > 1:
        out = f(*args)
        u = _random_like(out, numpy.random.RandomState(seed + 1))

        def pulled_back(*xs):
            return _float_vjp(f, xs)[1](u)

        pulled_back.__name__ = f"vjp({_name(f)})"
        check_grads(pulled_back, args, order - 1, eps=eps, rtol=rtol, atol=atol, seed=seed + 2)


def assert_allclose(actual, desired, rtol: float = 1e-7, atol: float = 0.0, err_msg: str = "") -> None:
    """``numpy.testing.assert_allclose`` that also accepts CuPy arrays."""
    numpy.testing.assert_allclose(
        backend.to_cpu(actual), backend.to_cpu(desired), rtol=rtol, atol=atol, err_msg=err_msg
    )


def tree_allclose(a, b, rtol: float = 1e-7, atol: float = 0.0) -> bool:
    """Whether two pytrees have the same structure and close leaves."""
    leaves_a, struct_a = _tree.flatten(a)
    leaves_b, struct_b = _tree.flatten(b)
    return struct_a == struct_b and all(
        numpy.shape(x) == numpy.shape(y)
        and numpy.allclose(backend.to_cpu(x), backend.to_cpu(y), rtol=rtol, atol=atol)
        for x, y in zip(leaves_a, leaves_b)
    )


# -- comparing floats in units in the last place ----------------------------------------------------
_ORDERED_INT = {2: numpy.int16, 4: numpy.int32, 8: numpy.int64}


def _host_array(x, dtype=None) -> numpy.ndarray:
    return numpy.asarray(backend.to_cpu(unbox_all(x)), dtype=dtype)


def _ordered(x: numpy.ndarray) -> numpy.ndarray:
    """The floats of ``x`` as int64 (uint64 for float64) that count ulps: +0 and -0 both map to 0,
    and neighbouring floats to neighbouring integers, across zero too."""
    bits = x.view(_ORDERED_INT[x.dtype.itemsize])
    magnitude = (bits & numpy.iinfo(bits.dtype).max).astype(numpy.uint64)
    offset = numpy.uint64(1) << numpy.uint64(8 * x.dtype.itemsize - 1)  # keeps everything >= 0
    return numpy.where(bits < 0, offset - magnitude, offset + magnitude)


def ulp_distance(a, b) -> numpy.ndarray:
    """How many floats lie between ``a`` and ``b`` (same float dtype), elementwise, as float64.

    0 for equal values (``+0`` and ``-0`` too) and for NaN against NaN; ``inf`` where only one
    of the two is NaN or where an infinity meets any other value.

    >>> x = numpy.float32(1.0)
    >>> ulp_distance(x, numpy.nextafter(x, numpy.float32(2))), ulp_distance(-0.0, 0.0)
    (array(1.), array(0.))
    """
    a, b = _host_array(a), _host_array(b)
    if a.dtype != b.dtype or a.dtype.kind != "f":
        raise TypeError(f"ulp_distance: expected two arrays of one float dtype, got {a.dtype} and {b.dtype}")
    oa, ob = _ordered(a), _ordered(b)
    distance = numpy.where(oa >= ob, oa - ob, ob - oa).astype(numpy.float64)
    nan_a, nan_b = numpy.isnan(a), numpy.isnan(b)
    infinite = (nan_a != nan_b) | ((numpy.isinf(a) | numpy.isinf(b)) & (a != b))
    distance[nan_a & nan_b] = 0.0
    distance[infinite] = numpy.inf
    return distance


def assert_ulp_close(actual, desired, max_ulp: int = 1, *, scale=None, err_msg: str = "") -> None:
    """Assert that two float arrays (or scalars) of one dtype and shape are at most ``max_ulp``
    units in the last place apart, element by element (:func:`ulp_distance`).

    NaN must meet NaN, and an infinity the same infinity; ``+0`` equals ``-0``. NumPy and CuPy
    arrays are accepted; ``desired`` may also be Python numbers, taken in ``actual``'s dtype.
    One ulp is one rounding: state the bound from the roundings that the result goes through.

    ``scale`` (a number, or an array that broadcasts to ``desired``) counts the ulps at the
    magnitude ``scale`` where that is more lenient: an element also passes when
    ``|actual - desired| <= max_ulp * spacing(scale)``. Use it for results of cancellation (a
    difference quotient, a sum of terms of both signs), whose error is a few ulps of the
    terms, not of the result; ``scale`` is then the magnitude of the terms.

    >>> x = numpy.float32([0.1, 0.7])
    >>> assert_ulp_close(x * 3 / 3, x, max_ulp=1)  # two roundings, the second undoes the first
    >>> assert_ulp_close(numpy.float32(1.0), 1.0 + 1e-6, max_ulp=4)
    Traceback (most recent call last):
    AssertionError: assert_ulp_close: 1 of 1 elements of float32[] are more than 4 ulp apart
      the farthest, 8 ulp apart, at index (): actual 1.0, desired 1.000001 (|diff| 9.5367e-07)
    """
    actual = _host_array(actual)
    desired = _host_array(desired, None if hasattr(desired, "dtype") else actual.dtype)
    where = f"assert_ulp_close{': ' + err_msg if err_msg else ''}"
    if actual.dtype != desired.dtype or actual.dtype.kind != "f":
        raise AssertionError(
            f"{where}: expected two float arrays of one dtype, got actual {actual.dtype}, "
            f"desired {desired.dtype}\n  hint: compare integers and booleans exactly, "
            "with numpy.testing.assert_array_equal"
        )
    if actual.shape != desired.shape:
        raise AssertionError(f"{where}: shapes differ: actual {actual.shape}, desired {desired.shape}")
    distance = ulp_distance(actual, desired)
    if scale is not None:
        scale = numpy.broadcast_to(numpy.abs(_host_array(scale, actual.dtype)), actual.shape)
        with numpy.errstate(invalid="ignore", over="ignore"):
            at_scale = numpy.abs(actual.astype(numpy.float64) - desired) / numpy.spacing(scale)
        distance = numpy.where(numpy.isinf(distance), numpy.inf, numpy.fmin(distance, at_scale))
    far = distance > max_ulp
    if far.any():
        index = numpy.unravel_index(numpy.argmax(distance), distance.shape)
        a, d = actual[index], desired[index]
        unit = "ulp" if scale is None else f"ulp (of the scale {scale[index]!s})"
        raise AssertionError(
            f"{where}: {int(far.sum())} of {distance.size} elements of {actual.dtype}{list(actual.shape)} "
            f"are more than {max_ulp} {unit} apart\n  the farthest, {distance[index]:.4g} {unit} apart, at "
            f"index {tuple(int(i) for i in index)}: actual {a!s}, desired {d!s} "
            f"(|diff| {abs(float(a) - float(d)):.5g})"
        )
