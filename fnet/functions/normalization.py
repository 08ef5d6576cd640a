"""Normalization functions (Chainer's ``F.batch_normalization``, ``F.layer_normalization``, ...), pure.

Batch, group and layer normalization share one composite standardization written in fnet.ops
(mean, centering, variance, scale and shift: about as many passes over memory as Chainer's fused
kernels, and differentiable to any order for free). Running statistics are never mutated: where
Chainer updates ``running_mean`` / ``running_var`` in place, these functions return the updated
arrays as ``(y, (new_mean, new_var))`` instead, and they carry no gradient. Statistics of
float16 inputs are computed in float32, and results are cast back to the input's dtype.

A few small primitives close the set: the ZCA whitening of decorrelated batch normalization
(``A^(-1/2)`` by eigendecomposition, whose VJP is a Sylvester solve, itself a primitive whose
VJPs are Sylvester solves again, so every order works), the cross-channel window sum of local
response normalization (its own adjoint), and the L2 norm of ``normalize`` (whose VJP stays
finite on all-zero vectors).
"""

from __future__ import annotations

import warnings

import numpy

from .. import backend, ops
from ..autodiff import primitive
from ..autodiff.tracer import shape_of as _shape
from ..autodiff.tracer import unbox_all
from ..errors import ArgumentTypeError, InvalidInputError, ShapeError, message
from ._checks import check_axis, check_float, check_ndim, check_same_dtype

__all__ = [
    "batch_normalization",
    "batch_renormalization",
    "decorrelated_batch_normalization",
    "fixed_batch_normalization",
    "fixed_batch_renormalization",
    "fixed_decorrelated_batch_normalization",
    "group_normalization",
    "layer_normalization",
    "local_response_normalization",
    "normalize",
]


def _dtype(x) -> numpy.dtype:
    return unbox_all(x).dtype


# -- shared checks ---------------------------------------------------------------------------
def _check_positive_int(fn: str, name: str, value, x) -> None:
    wrong_type = isinstance(value, bool) or not isinstance(value, (int, numpy.integer))
    if wrong_type or value <= 0:
        raise (ArgumentTypeError if wrong_type else InvalidInputError)(
            message(
                fn, f"expected {name} to be a positive int, got {value!r}", {"x": x}, f"pass {name} as an int"
            )
        )


def _check_like(fn: str, names: tuple[str, str], ref, other) -> None:
    """``other`` must be a float array of ``ref``'s shape and dtype (e.g. beta next to gamma)."""
    check_float(fn, names[1], other)
    check_same_dtype(fn, names, ref, other)
    if _shape(ref) != _shape(other):
        raise ShapeError(
            message(
                fn,
                f"expected {names[1]}.shape == {names[0]}.shape, got {_shape(other)} != {_shape(ref)}",
                {names[0]: ref, names[1]: other},
                f"{names[1]} holds one value per entry of {names[0]}",
            )
        )


def _check_groups(fn: str, x, groups) -> None:
    """``x`` is ``(batch, channels, ...)`` with channels divisible into ``groups``."""
    _check_positive_int(fn, "groups", groups, x)
    channels = _shape(x)[1]
    if channels % groups:
        raise ShapeError(
            message(
                fn,
                f"expected x.shape[1] to be divisible by groups, got {channels} channels and groups={groups}",
                {"x": x},
                "groups must divide the number of channels",
            )
        )


def _batch_axes(fn: str, x, gamma, axis) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The axes that statistics are taken over and the complementary (channel) axes.

    With ``axis`` None these are Chainer's defaults: axis 0 and every axis after the
    ``gamma.ndim`` channel axes that follow it. ``gamma.shape`` must equal the channel axes of x.
    """
    shape, param_shape = _shape(x), _shape(gamma)
    ndim = len(shape)
    if axis is None:
        if ndim < len(param_shape) + 1:
            raise ShapeError(
                message(
                    fn,
                    f"expected x.ndim >= gamma.ndim + 1, got {ndim} and {len(param_shape)}",
                    {"x": x, "gamma": gamma},
                    "x is (batch, *gamma.shape, ...): gamma holds one value per channel",
                )
            )
        axes = (0, *range(len(param_shape) + 1, ndim))
    else:
        given = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
        if any(isinstance(a, bool) or not isinstance(a, (int, numpy.integer)) for a in given):
            raise InvalidInputError(
                message(fn, f"expected axis to be an int, a tuple of ints or None, got {axis!r}", {"x": x})
            )
        axes = tuple(check_axis(fn, "axis", int(a), ndim) for a in given)
        if any(a >= b for a, b in zip(axes, axes[1:])):
            raise InvalidInputError(
                message(
                    fn,
                    f"expected the axes in axis to be distinct and in ascending order, got {axis!r}",
                    {"x": x},
                    "e.g. axis=(0, 2, 3), not (2, 0, 3)",
                )
            )
    channel_axes = tuple(i for i in range(ndim) if i not in axes)
    expected = tuple(shape[i] for i in channel_axes)
    if param_shape != expected:
        raise ShapeError(
            message(
                fn,
                f"expected gamma.shape == {expected} (x.shape on the axes {channel_axes}, which are not "
                f"normalized over), got {param_shape}",
                {"x": x, "gamma": gamma},
                "normalization is over axis 0 and the spatial axes by default: gamma holds one value per "
                "channel, e.g. (C,) for x of shape (N, C, H, W); pass axis=... for another layout",
            )
        )
    return axes, channel_axes


def _check_batch_params(fn: str, x, gamma, beta, **statistics) -> None:
    """x, gamma, beta (and fixed or running statistics shaped like gamma) are float arrays."""
    check_float(fn, "x", x)
    check_float(fn, "gamma", gamma)
    _check_like(fn, ("gamma", "beta"), gamma, beta)
    for name, value in statistics.items():
        _check_like(fn, ("gamma", name), gamma, value)


def _check_running(fn: str, gamma, running: dict, required: bool) -> bool:
    """Whether running statistics were given (all of them, or, unless ``required``, none)."""
    given = [name for name, value in running.items() if value is not None]
    if not required and not given:
        return False
    if len(given) != len(running):
        names = " and ".join(running)
        raise InvalidInputError(
            message(
                fn,
                f"expected {names} to be given together, got {'only ' + given[0] if given else 'neither'}",
                hint="pass both arrays, e.g. zeros and ones shaped like gamma"
                + ("" if required else ", or neither"),
            )
        )
    for name, value in running.items():
        check_float(fn, name, value)
        if _shape(value) != _shape(gamma):
            raise ShapeError(
                message(
                    fn,
                    f"expected {name}.shape == gamma.shape, got {_shape(value)} != {_shape(gamma)}",
                    {name: value, "gamma": gamma},
                    "running statistics hold one value per channel, like gamma",
                )
            )
    return True


# -- shared computations ---------------------------------------------------------------------
def _standardize(x, axis: tuple[int, ...], eps: float):
    """``(x - mean, 1 / sqrt(var + eps), mean, var)`` with the statistics over ``axis`` (kept)."""
    mean = ops.mean(x, axis=axis, keepdims=True)
    centered = ops.subtract(x, mean)
    var = ops.mean(ops.square(centered), axis=axis, keepdims=True)
    return centered, ops.reciprocal(ops.sqrt(ops.add(var, eps))), mean, var


def _compute_dtype(*arrays) -> list:
    """The arrays cast to the dtype the statistics are computed in: the promotion of their dtypes
    (Chainer's, e.g. float16 x with float32 parameters) and at least float32, so that sums over
    large float16 batches cannot overflow (as with cuDNN). Results are cast back to x's dtype."""
    dtype = numpy.result_type(numpy.float32, *[_dtype(a) for a in arrays])
    return [ops.astype(a, dtype) for a in arrays]


def _kept(param, x_shape: tuple, channel_axes: tuple[int, ...]):
    """A per-channel parameter reshaped to broadcast against x: 1 on the normalized axes."""
    return ops.reshape(param, [d if i in channel_axes else 1 for i, d in enumerate(x_shape)])


def _moving_average(running, batch, decay: float, factor: float = 1.0):
    """``decay * running + (1 - decay) * factor * batch`` on raw arrays, in ``running``'s dtype and
    shape: running statistics are bookkeeping, not part of the differentiated computation."""
    running = unbox_all(running)
    batch = unbox_all(batch).reshape(running.shape).astype(running.dtype, copy=False)
    return running * running.dtype.type(decay) + batch * running.dtype.type((1.0 - decay) * factor)


def _unbiased_factor(m: int) -> float:
    """Bessel's correction ``m / (m - 1)`` applied to the running variance (1 for m == 1)."""
    return m / max(m - 1.0, 1.0)


def _updated_statistics(running_mean, running_var, mean, var, decay: float, x, gamma) -> tuple:
    """The running mean and variance moved towards the batch's, ``m = x.size // gamma.size``
    values per channel (the variance Bessel-corrected)."""
    m = int(numpy.prod(_shape(x))) // max(int(numpy.prod(_shape(gamma))), 1)
    return (
        _moving_average(running_mean, mean, decay),
        _moving_average(running_var, var, decay, _unbiased_factor(m)),
    )


def _warn_single_sample(x_shape: tuple, axes: tuple[int, ...]) -> None:
    if all(x_shape[i] == 1 for i in axes):
        warnings.warn(
            "batch_normalization: the statistics are taken over a single value per channel (x.shape="
            f"{x_shape}, axis={axes}), so the output is always beta; did you run evaluation in training "
            "mode, or get a last batch of one example?",
            UserWarning,
            stacklevel=3,
        )


# -- batch normalization ---------------------------------------------------------------------
def batch_normalization(
    x,
    gamma,
    beta,
    *,
    eps: float = 2e-5,
    running_mean=None,
    running_var=None,
    decay: float = 0.9,
    axis: int | tuple[int, ...] | None = None,
):
    """Batch normalization: ``gamma * (x - mean) / sqrt(var + eps) + beta`` with batch statistics.

    The mean and the (biased) variance are taken over ``axis``: by default axis 0 and the
    spatial axes, so that ``gamma`` and ``beta`` hold one value per channel (``(C,)`` for
    ``(N, C, H, W)``; in general ``gamma.shape == x.shape[1:1 + gamma.ndim]``). A given ``axis``
    must be sorted, and ``gamma`` then spans the other axes. Pure where Chainer is not: given
    ``running_mean`` and ``running_var`` (both or neither), the result is ``(y, (new_mean,
    new_var))``, the moving averages ``decay * running + (1 - decay) * batch`` with the variance
    Bessel-corrected (times ``m / (m - 1)``, ``m`` values per channel); the inputs are untouched.
    As in Chainer, x may be float16 with float32 parameters; y always has x's dtype.

    >>> import numpy
    >>> x = numpy.array([[1.0, 2.0], [3.0, 6.0]], numpy.float32)
    >>> gamma, beta = numpy.ones(2, numpy.float32), numpy.zeros(2, numpy.float32)
    >>> batch_normalization(x, gamma, beta).round(3)
    array([[-1., -1.],
           [ 1.,  1.]], dtype=float32)
    >>> zeros, ones = numpy.zeros(2, numpy.float32), numpy.ones(2, numpy.float32)
    >>> y, (mean, var) = batch_normalization(x, gamma, beta, running_mean=zeros, running_var=ones)
    >>> mean, var
    (array([0.2, 0.4], dtype=float32), array([1.1, 1.7], dtype=float32))
    """
    fn = "batch_normalization"
    _check_batch_params(fn, x, gamma, beta)
    axes, channel_axes = _batch_axes(fn, x, gamma, axis)
    running = _check_running(fn, gamma, {"running_mean": running_mean, "running_var": running_var}, False)
    shape = _shape(x)
    _warn_single_sample(shape, axes)
    xc, gc, bc = _compute_dtype(x, gamma, beta)
    centered, inv_std, mean, var = _standardize(xc, axes, eps)
    scale = ops.multiply(_kept(gc, shape, channel_axes), inv_std)
    y = ops.astype(ops.add(ops.multiply(centered, scale), _kept(bc, shape, channel_axes)), _dtype(x))
    if not running:
        return y
    return y, _updated_statistics(running_mean, running_var, mean, var, decay, x, gamma)


def fixed_batch_normalization(
    x, gamma, beta, mean, var, eps: float = 2e-5, axis: int | tuple[int, ...] | None = None
):
    """Batch normalization with given statistics: ``gamma * (x - mean) / sqrt(var + eps) + beta``.

    The inference form of ``batch_normalization``: ``mean`` and ``var`` (typically the running
    averages) are shaped like ``gamma`` and used as they are, so the output of an example does
    not depend on the rest of the batch. Differentiable in all five arrays.

    >>> import numpy
    >>> x = numpy.array([[1.0, 2.0]], numpy.float32)
    >>> one, zero = numpy.ones(2, numpy.float32), numpy.zeros(2, numpy.float32)
    >>> fixed_batch_normalization(x, one, zero, numpy.array([1.0, 0.0], numpy.float32), one, eps=0.0)
    array([[0., 2.]], dtype=float32)
    """
    fn = "fixed_batch_normalization"
    _check_batch_params(fn, x, gamma, beta, mean=mean, var=var)
    _, channel_axes = _batch_axes(fn, x, gamma, axis)
    shape = _shape(x)
    xc, gc, bc, mc, vc = _compute_dtype(x, gamma, beta, mean, var)
    scale = ops.multiply(gc, ops.reciprocal(ops.sqrt(ops.add(vc, eps))))
    centered = ops.subtract(xc, _kept(mc, shape, channel_axes))
    y = ops.add(ops.multiply(centered, _kept(scale, shape, channel_axes)), _kept(bc, shape, channel_axes))
    return ops.astype(y, _dtype(x))


def batch_renormalization(
    x,
    gamma,
    beta,
    rmax: float,
    dmax: float,
    eps: float = 2e-5,
    running_mean=None,
    running_var=None,
    decay: float = 0.9,
    update_statistics: bool = False,
):
    """Batch renormalization: batch normalization corrected towards the running statistics.

    ``y = gamma * ((x - mean) / sigma * r + d) + beta`` with the batch ``mean`` and ``sigma =
    sqrt(var + eps)`` (per channel, ``gamma.shape == x.shape[1:1 + gamma.ndim]``), ``r =
    clip(sigma / sigma_run, 1/rmax, rmax)`` and ``d = clip((mean - running_mean) / sigma_run,
    -dmax, dmax)`` where ``sigma_run = sqrt(running_var + eps)``. As in the paper and Chainer,
    ``r`` and ``d`` are constants for the gradient. The running statistics are required; with
    ``update_statistics`` the result is ``(y, (new_mean, new_var))``, updated as in
    ``batch_normalization`` (Chainer mutates them in place then).

    >>> import numpy
    >>> x = numpy.array([[0.0], [2.0]], numpy.float32)
    >>> one, zero = numpy.ones(1, numpy.float32), numpy.zeros(1, numpy.float32)
    >>> batch_renormalization(x, one, zero, 3.0, 0.0, running_mean=zero, running_var=one, eps=0.0)
    array([[-1.],
           [ 1.]], dtype=float32)
    """
    fn = "batch_renormalization"
    _check_batch_params(fn, x, gamma, beta)
    axes, channel_axes = _batch_axes(fn, x, gamma, None)
    _check_running(fn, gamma, {"running_mean": running_mean, "running_var": running_var}, True)
    shape = _shape(x)
    xc, gc, bc = _compute_dtype(x, gamma, beta)
    centered, inv_std, mean, var = _standardize(xc, axes, eps)
    # r and d, from the batch and running statistics, are constants for the gradient
    dtype = _dtype(xc)
    xp = backend.xp(unbox_all(x))
    batch_mean = unbox_all(mean).reshape(_shape(gamma))
    sigma = xp.sqrt(unbox_all(var).reshape(_shape(gamma)) + dtype.type(eps))
    running_sigma = xp.sqrt(unbox_all(running_var) + eps).astype(dtype, copy=False)
    r = xp.clip(sigma / running_sigma, 1.0 / rmax, rmax).astype(dtype, copy=False)
    d = xp.clip((batch_mean - unbox_all(running_mean)) / running_sigma, -dmax, dmax).astype(dtype, copy=False)
    scale = ops.multiply(_kept(ops.multiply(gc, r), shape, channel_axes), inv_std)
    shift = _kept(ops.add(ops.multiply(gc, d), bc), shape, channel_axes)
    y = ops.astype(ops.add(ops.multiply(centered, scale), shift), _dtype(x))
    if not update_statistics:
        return y
    return y, _updated_statistics(running_mean, running_var, mean, var, decay, x, gamma)


def fixed_batch_renormalization(x, gamma, beta, mean, var, eps: float = 2e-5):
    """Batch renormalization at inference: exactly ``fixed_batch_normalization`` with the default axes.

    At test time renormalization's corrections vanish (``r = 1``, ``d = 0`` with the running
    statistics), so Chainer deprecates this name in favour of ``fixed_batch_normalization``;
    it is kept for compatibility and warns with a DeprecationWarning, as Chainer's does.

    >>> import numpy, warnings
    >>> one, zero = numpy.ones(1, numpy.float32), numpy.zeros(1, numpy.float32)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", DeprecationWarning)
    ...     fixed_batch_renormalization(numpy.array([[3.0]], numpy.float32), one, zero, zero, one, eps=0.0)
    array([[3.]], dtype=float32)
    """
    warnings.warn(
        "fixed_batch_renormalization is deprecated (as in Chainer); use fixed_batch_normalization instead",
        DeprecationWarning,
        stacklevel=2,
    )
    return fixed_batch_normalization(x, gamma, beta, mean, var, eps)


# -- decorrelated batch normalization --------------------------------------------------------
def _swap(a):
    return ops.swapaxes(a, -1, -2)


@primitive(name="inv_sqrtm")
def _inv_sqrtm(a):
    """``A^(-1/2)`` for a stack of symmetric positive-definite matrices."""
    w, v = backend.xp(a).linalg.eigh(a)
    return (v * w[..., None, :] ** -0.5) @ v.swapaxes(-1, -2)


@primitive(name="sylvester_solve")
def _sylvester(z, b):
    """The ``X`` with ``Z X + X Z = B``, for a stack of symmetric positive-definite ``Z``."""
    w, v = backend.xp(z).linalg.eigh(z)
    vt = v.swapaxes(-1, -2)
    return v @ ((vt @ b @ v) / (w[..., :, None] + w[..., None, :])) @ vt


# Y = A^(-1/2) = Z^(-1) with Z = A^(1/2) = A Y: dY = -Y dZ Y, and Z dZ + dZ Z = dA.
_inv_sqrtm.defvjp(
    lambda g, ans, a: _sylvester(ops.matmul(a, ans), ops.negative(ops.matmul(ans, ops.matmul(g, ans))))
)


def _sylvester_vjp_z(g, ans, z, b):
    # the Sylvester operator is self-adjoint for symmetric Z, so H solves it for the cotangent
    h = _sylvester(z, g)
    return ops.negative(ops.add(ops.matmul(h, _swap(ans)), ops.matmul(_swap(ans), h)))


_sylvester.defvjp(_sylvester_vjp_z, lambda g, ans, z, b: _sylvester(z, g))


def _grouped(x, groups: int):
    """``(B, c, *S)`` -> ``(groups, c // groups, B * prod(S))``: one row per channel of a group."""
    shape = _shape(x)
    order = (1, 0, *range(2, len(shape)))
    return ops.reshape(ops.transpose(x, order), (groups, shape[1] // groups, -1))


def _ungrouped(y, shape: tuple):
    """The inverse of ``_grouped`` for an input of ``shape``."""
    moved = ops.reshape(y, (shape[1], shape[0], *shape[2:]))
    return ops.transpose(moved, (1, 0, *range(2, len(shape))))


def _check_decorrelated_x(fn: str, x, groups) -> None:
    check_float(fn, "x", x)
    check_ndim(fn, "x", x, range(2, 33), "x is (batch, channels, ...)")
    _check_groups(fn, x, groups)


def _check_group_statistic(fn: str, name: str, value, x, expected: tuple, same_dtype: bool = True) -> None:
    check_float(fn, name, value)
    if same_dtype:
        check_same_dtype(fn, ("x", name), x, value)
    if _shape(value) != expected:
        raise ShapeError(
            message(
                fn,
                f"expected {name}.shape == {expected}, got {_shape(value)}",
                {"x": x, name: value},
                "statistics are per group: (groups, C) for the mean and (groups, C, C) for the projection, "
                "with C = x.shape[1] // groups",
            )
        )


def decorrelated_batch_normalization(
    x,
    *,
    groups: int = 16,
    eps: float = 2e-5,
    running_mean=None,
    running_projection=None,
    decay: float = 0.9,
):
    """Decorrelated batch normalization: ZCA whitening of groups of channels with batch statistics.

    The ``c`` channels of ``x`` (``(B, c, ...)``) are split into ``groups`` consecutive groups
    of ``C = c // groups``. Within a group, over the batch and spatial axes (``m`` values per
    channel), ``y = W (x - mean)`` with ``W = (cov + eps I)^(-1/2)`` and ``cov`` the biased
    covariance: the channels come out zero-mean and uncorrelated. Unlike Chainer, also
    differentiable twice. Pure: given ``running_mean`` ``(groups, C)`` and/or
    ``running_projection`` ``(groups, C, C)``, the result is ``(y, (new_mean, new_projection))``
    (None for one not given), moving averages with ``decay``, the projection scaled by ``m / (m -
    1)`` as in Chainer; each keeps its own float dtype, which may differ from ``x``'s.

    >>> import numpy
    >>> x = numpy.array([[1.0, 0.0], [-1.0, 2.0], [0.0, -2.0]], numpy.float32)
    >>> y = decorrelated_batch_normalization(x, groups=1)
    >>> (y.T @ y / 3).round(3) + 0.0  # identity covariance (+ 0.0 turns -0. into 0.)
    array([[1., 0.],
           [0., 1.]], dtype=float32)
    """
    fn = "decorrelated_batch_normalization"
    _check_decorrelated_x(fn, x, groups)
    shape = _shape(x)
    size = shape[1] // groups
    for name, value, expected in (
        ("running_mean", running_mean, (groups, size)),
        ("running_projection", running_projection, (groups, size, size)),
    ):
        if value is not None:  # of any float dtype, kept by the update (as Chainer's in-place one)
            _check_group_statistic(fn, name, value, x, expected, same_dtype=False)
    (xc,) = _compute_dtype(x)
    xg = _grouped(xc, groups)
    m = _shape(xg)[2]
    mean = ops.mean(xg, axis=2, keepdims=True)
    centered = ops.subtract(xg, mean)
    dtype = _dtype(xc)
    regularizer = backend.xp(unbox_all(x)).eye(size, dtype=dtype) * dtype.type(eps)
    cov = ops.add(ops.divide(ops.matmul(centered, _swap(centered)), m), regularizer)
    projection = _inv_sqrtm(cov)
    y = ops.astype(_ungrouped(ops.matmul(projection, centered), shape), _dtype(x))
    if running_mean is None and running_projection is None:
        return y
    return y, (
        None if running_mean is None else _moving_average(running_mean, mean, decay),
        None
        if running_projection is None
        else _moving_average(running_projection, projection, decay, _unbiased_factor(m)),
    )


def fixed_decorrelated_batch_normalization(x, mean, projection, groups: int = 16):
    """Decorrelated batch normalization with given statistics: ``y = projection (x - mean)`` per group.

    The inference form of ``decorrelated_batch_normalization``: ``mean`` ``(groups, C)`` and
    ``projection`` ``(groups, C, C)`` (typically the running averages) are applied to each group
    of ``C = x.shape[1] // groups`` channels. Differentiable in all three arrays, to any order.

    >>> import numpy
    >>> x = numpy.array([[1.0, 2.0]], numpy.float32)
    >>> projection = numpy.array([[[2.0, 0.0], [1.0, 1.0]]], numpy.float32)
    >>> fixed_decorrelated_batch_normalization(x, numpy.zeros((1, 2), numpy.float32), projection, groups=1)
    array([[2., 3.]], dtype=float32)
    """
    fn = "fixed_decorrelated_batch_normalization"
    _check_decorrelated_x(fn, x, groups)
    size = _shape(x)[1] // groups
    _check_group_statistic(fn, "mean", mean, x, (groups, size))
    _check_group_statistic(fn, "projection", projection, x, (groups, size, size))
    centered = ops.subtract(_grouped(x, groups), ops.expand_dims(mean, 2))
    return _ungrouped(ops.matmul(projection, centered), _shape(x))


# -- group and layer normalization -----------------------------------------------------------
def _check_affine(fn: str, x, gamma, beta) -> None:
    """gamma and beta are float vectors of ``x.shape[1]`` entries, of one dtype."""
    check_float(fn, "gamma", gamma)
    check_ndim(fn, "gamma", gamma, 1, "gamma holds one scale per unit (channel) of x")
    _check_like(fn, ("gamma", "beta"), gamma, beta)
    if _shape(gamma)[0] != _shape(x)[1]:
        raise ShapeError(
            message(
                fn,
                f"expected gamma.shape == (x.shape[1],) == ({_shape(x)[1]},), got {_shape(gamma)}",
                {"x": x, "gamma": gamma},
                "gamma and beta hold one value per unit (channel) of x, along axis 1",
            )
        )


def group_normalization(x, groups: int, gamma, beta, eps: float = 1e-5):
    """Group normalization: each example's channels standardized in ``groups`` groups, then scaled.

    The ``C`` channels of ``x`` (``(B, C, ...)``) are split into ``groups`` consecutive groups;
    each group of each example is standardized with its own mean and biased variance (over its
    channels and the spatial axes), and ``gamma * x_hat + beta`` applies one scale and shift per
    channel (``gamma``, ``beta`` of shape ``(C,)``). Independent of the batch size.

    >>> import numpy
    >>> x = numpy.array([[1.0, 3.0, 10.0, 30.0]], numpy.float32)
    >>> one, zero = numpy.ones(4, numpy.float32), numpy.zeros(4, numpy.float32)
    >>> group_normalization(x, 2, one, zero, eps=0.0)
    array([[-1.,  1., -1.,  1.]], dtype=float32)
    """
    fn = "group_normalization"
    check_float(fn, "x", x)
    check_ndim(fn, "x", x, range(2, 33), "x is (batch, channels, ...)")
    _check_groups(fn, x, groups)
    _check_affine(fn, x, gamma, beta)
    shape = _shape(x)
    xc, gc, bc = _compute_dtype(x, gamma, beta)
    centered, inv_std, _, _ = _standardize(ops.reshape(xc, (shape[0], groups, -1)), (2,), eps)
    x_hat = ops.reshape(ops.multiply(centered, inv_std), (shape[0], shape[1], -1))
    y = ops.add(ops.multiply(x_hat, ops.expand_dims(gc, 1)), ops.expand_dims(bc, 1))
    return ops.astype(ops.reshape(y, shape), _dtype(x))


def layer_normalization(x, gamma, beta, eps: float = 1e-5):
    """Layer normalization: each row of ``x`` (``(batch, units)``) standardized, then scaled.

    Every example is standardized with its own mean and biased variance over its units, so
    the result does not depend on the batch; ``gamma * x_hat + beta`` then applies a learned
    scale and shift per unit (``gamma``, ``beta`` of shape ``(units,)``, x's dtype).

    >>> import numpy
    >>> x = numpy.array([[1.0, 3.0], [0.0, -4.0]], numpy.float32)
    >>> layer_normalization(x, numpy.ones(2, numpy.float32), numpy.zeros(2, numpy.float32), eps=0.0)
    array([[-1.,  1.],
           [ 1., -1.]], dtype=float32)
    """
    fn = "layer_normalization"
    check_float(fn, "x", x)
    check_ndim(fn, "x", x, 2, "x is (batch, units), e.g. the output of linear; reshape it first")
    _check_affine(fn, x, gamma, beta)
    check_same_dtype(fn, ("x", "gamma"), x, gamma)
    xc, gc, bc = _compute_dtype(x, gamma, beta)
    centered, inv_std, _, _ = _standardize(xc, (1,), eps)
    return ops.astype(ops.add(ops.multiply(ops.multiply(centered, inv_std), gc), bc), _dtype(x))


# -- local response and L2 normalization -----------------------------------------------------
@primitive(name="lrn_window_sum")
def _window_sum(x, *, half):
    """The sum over the channels (axis 1) at most ``half`` away from each channel."""
    out = x.copy()
    for shift in range(1, half + 1):
        out[:, shift:] += x[:, :-shift]
        out[:, :-shift] += x[:, shift:]
    return out


# The window sum is a symmetric (banded) linear map: it is its own adjoint.
_window_sum.defvjp(lambda g, ans, x, *, half: _window_sum(g, half=half))


def local_response_normalization(x, n: int = 5, k: float = 2, alpha: float = 1e-4, beta: float = 0.75):
    """Local response normalization across channels (AlexNet): ``x / (k + alpha * s)^beta``.

    ``s`` sums ``x^2`` over the channels (axis 1 of ``(B, C, ...)``) within ``n // 2`` of each
    channel, clipped at the edges: a window of ``n`` channels for odd ``n`` (as Chainer's CPU
    code, also for even ``n``: ``2 * (n // 2) + 1``). Unlike Chainer, differentiable twice.

    >>> import numpy
    >>> x = numpy.array([[1.0, 2.0, 2.0]], numpy.float32)
    >>> local_response_normalization(x, n=3, k=0.0, alpha=1.0, beta=0.5).round(4)
    array([[0.4472, 0.6667, 0.7071]], dtype=float32)
    """
    fn = "local_response_normalization"
    check_float(fn, "x", x)
    check_ndim(fn, "x", x, range(2, 33), "x is (batch, channels, ...)")
    _check_positive_int(fn, "n", n, x)
    total = ops.add(ops.multiply(_window_sum(ops.square(x), half=int(n) // 2), alpha), k)
    return ops.multiply(x, ops.power(total, -beta))


@primitive(name="l2_norm")
def _l2_norm(x, *, axis):
    return numpy.sqrt(numpy.square(x).sum(axis=axis, keepdims=True))


@_l2_norm.defvjp
def _l2_norm_vjp(g, ans, x, *, axis):
    # x / |x|, and 0 for all-zero vectors (the subgradient Chainer picks): never 0 / 0
    nonzero = ops.greater(ans, 0)
    inverse = ops.where(nonzero, ops.reciprocal(ops.where(nonzero, ans, 1)), 0)
    return ops.multiply(x, ops.multiply(g, inverse))


def normalize(x, eps: float = 1e-5, axis: int | tuple[int, ...] = 1):
    """L2 normalization: ``x / (||x|| + eps)`` with the Euclidean norm taken along ``axis``.

    Each vector along ``axis`` (an int or a tuple; axis 1 of ``(N, K)`` by default, i.e. each
    row) is scaled to unit length; ``eps``, added to the norm, keeps all-zero vectors at zero.
    The gradient is finite everywhere, also at zero vectors.

    >>> import numpy
    >>> normalize(numpy.array([[3.0, 4.0], [0.0, 0.0]], numpy.float32)).round(4)
    array([[0.6, 0.8],
           [0. , 0. ]], dtype=float32)
    """
    fn = "normalize"
    check_float(fn, "x", x)
    ndim = len(_shape(x))
    given = (axis,) if isinstance(axis, (int, numpy.integer)) else tuple(axis)
    axes = tuple(sorted({check_axis(fn, "axis", int(a), ndim) for a in given}))
    if len(axes) != len(given):
        raise InvalidInputError(
            message(fn, f"expected distinct axes, got axis={axis!r}", {"x": x}, "name each axis once")
        )
    (xc,) = _compute_dtype(x)
    return ops.astype(ops.divide(xc, ops.add(_l2_norm(xc, axis=axes), eps)), _dtype(x))
