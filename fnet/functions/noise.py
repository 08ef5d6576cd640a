"""Noise injections (Chainer's ``F.dropout``, ``F.gaussian``, ``F.zoneout``, ...), with explicit keys.

Randomness comes from a ``key`` of ``fnet.random`` (``fnet.random.key(seed)``, split for each
call), so each function is pure: the same key gives the same noise. With the noise fixed by the
key (or by a given ``mask``/``eps``), every function is a composite of differentiable fnet ops,
so gradients of any order come free. Where Chainer has a test mode, ``train=False`` gives its
value and needs no key.
"""

from __future__ import annotations

import math

import numpy

from .. import backend, ops, random
from ..autodiff.tracer import unbox_all
from ..errors import DTypeError, InvalidInputError, ShapeError, message
from ..ops._dtypes import strict_float_operands
from ._checks import check_axis, check_float, check_ndim, check_same_shape
from .activation import softmax

__all__ = ["dropout", "gaussian", "gumbel_softmax", "simplified_dropconnect", "zoneout"]


def _require_key(fn: str, key, instead: str):
    """``key``, or an error saying how to pass one when it is None."""
    if key is None:
        raise InvalidInputError(
            message(
                fn,
                "expected a random key to draw the noise, got key=None",
                hint=f"pass key=fnet.random.key(seed) (a fresh one per call: fnet.random.split), {instead}",
            )
        )
    return key


def _check_ratio(fn: str, ratio: float, *, closed: bool = False) -> None:
    """``ratio`` must lie in ``[0, 1)`` (``[0, 1]`` when ``closed``)."""
    if not (0.0 <= ratio <= 1.0 if closed else 0.0 <= ratio < 1.0):
        raise InvalidInputError(
            message(
                fn,
                f"expected 0 <= ratio {'<=' if closed else '<'} 1, got ratio={ratio!r}",
                hint="ratio is the probability of dropping an element",
            )
        )


def _keep(key, keep_prob: float, shape: tuple, like):
    """Booleans, True with probability ``keep_prob``, on the device of ``like``."""
    return random.bernoulli(key, keep_prob, shape, device=backend.get_device_from_array(like))


def _check_noise_shape(fn: str, name: str, noise, shapes: tuple[tuple, ...]) -> None:
    """A given noise array (mask, eps) must have one of the allowed ``shapes``."""
    if numpy.shape(noise) not in shapes:
        raise ShapeError(
            message(
                fn,
                f"expected {name}.shape in {list(shapes)}, got {numpy.shape(noise)}",
                {name: noise},
                f"pass the {name} returned by an earlier call, or None to draw a new one",
            )
        )


def dropout(
    x,
    ratio: float = 0.5,
    *,
    key=None,
    train: bool = True,
    mask=None,
    return_mask: bool = False,
):
    """Zero each element of ``x`` with probability ``ratio`` and scale the kept ones by ``1 / (1 - ratio)``.

    The scaling keeps the expected value unchanged, so ``train=False`` (Chainer's test mode) is
    the identity. The drop pattern is drawn from ``key``, or taken from ``mask`` (an array shaped
    like ``x``, the kept elements holding the scale, as returned with ``return_mask=True``; then
    ``ratio`` and ``key`` are unused). The gradient is the incoming one times the mask. Returns
    ``y``, or ``(y, mask)`` with ``return_mask`` (the mask is None when ``train`` is False).

    >>> import numpy, fnet
    >>> y = dropout(numpy.ones((2, 4), numpy.float32), 0.5, key=fnet.random.key(0))
    >>> sorted(set(y.ravel().tolist()))
    [0.0, 2.0]
    """
    fn = "dropout"
    check_float(fn, "x", x)
    _check_ratio(fn, ratio)
    if not train:
        return (x, None) if return_mask else x
    raw = unbox_all(x)
    if mask is None:
        keep = _keep(_require_key(fn, key, "or a mask, or train=False"), 1.0 - ratio, raw.shape, raw)
        mask = keep * raw.dtype.type(1.0 / (1.0 - ratio))
    else:
        mask = unbox_all(mask)
        _check_noise_shape(fn, "mask", mask, (raw.shape,))
        strict_float_operands(fn, ("x", "mask"), raw, mask)
    y = ops.multiply(x, mask)
    return (y, mask) if return_mask else y


def gaussian(mean, ln_var, *, key=None, eps=None, return_eps: bool = False):
    """A sample of the normal distribution ``N(mean, exp(ln_var))``, as ``mean + exp(ln_var / 2) * eps``.

    This is the reparameterization trick: the standard normal noise ``eps`` is drawn from
    ``key`` (or given, shaped like ``ln_var``), so the sample is differentiable in ``mean`` and
    ``ln_var``. As in Chainer there is no test mode. Returns the sample, or ``(sample, eps)``
    with ``return_eps``.

    >>> import numpy
    >>> gaussian(numpy.array([1.0]), numpy.array([numpy.log(4.0)]), eps=numpy.array([0.5]))
    array([2.])
    """
    fn = "gaussian"
    check_float(fn, "mean", mean)
    check_float(fn, "ln_var", ln_var)
    check_same_shape(fn, ("mean", "ln_var"), mean, ln_var)
    raw = unbox_all(mean)
    if eps is None:
        key = _require_key(fn, key, "or eps")
        eps = random.normal(key, raw.shape, raw.dtype, device=backend.get_device_from_array(raw))
    else:
        eps = unbox_all(eps)
        _check_noise_shape(fn, "eps", eps, (raw.shape,))
    strict_float_operands(fn, ("mean", "ln_var", "eps"), raw, unbox_all(ln_var), eps)
    y = ops.add(mean, ops.multiply(ops.exp(ops.multiply(ln_var, 0.5)), eps))
    return (y, eps) if return_eps else y


def gumbel_softmax(log_pi, tau=0.1, axis: int = 1, *, key=None):
    """A relaxed one-hot sample: ``softmax((log_pi + g) / tau)`` along ``axis``, ``g`` Gumbel(0, 1) noise.

    ``log_pi`` holds unnormalized log-probabilities; the temperature ``tau`` (a number or an
    array broadcastable to ``log_pi``) trades sharpness (small) against smoothness (large), and
    the sample is differentiable in both. The noise is drawn from ``key``. A 0-d ``log_pi``
    gives 1, as in Chainer.
    """
    fn = "gumbel_softmax"
    check_float(fn, "log_pi", log_pi)
    raw = unbox_all(log_pi)
    if raw.ndim == 0:
        return backend.xp(raw).ones((), raw.dtype)
    axis = check_axis(fn, "axis", axis, raw.ndim)
    key = _require_key(fn, key, "to draw the Gumbel noise")
    tiny = numpy.finfo(numpy.float64).tiny  # u > 0, so the noise -log(-log(u)) is finite
    u = random.uniform(key, raw.shape, numpy.float64, low=tiny, high=1.0)
    gumbel = backend.get_device_from_array(raw).send(-numpy.log(-numpy.log(u)).astype(raw.dtype))
    return softmax(ops.divide(ops.add(log_pi, gumbel), tau), axis=axis)


def simplified_dropconnect(
    x,
    W,
    b=None,
    ratio: float = 0.5,
    train: bool = True,
    mask=None,
    use_batchwise_mask: bool = True,
    *,
    key=None,
):
    """A linear layer ``y = x W^T + b`` whose weights are dropped with probability ``ratio``.

    Kept weights are scaled by ``1 / (1 - ratio)``. ``x`` is ``(n, ...)`` with ``N`` features
    after the batch axis, ``W`` is ``(M, N)``, ``b`` is ``(M,)`` and ``y`` is ``(n, M)``. With
    ``use_batchwise_mask`` every sample gets its own ``(M, N)`` drop pattern, drawn from ``key``;
    a given boolean ``mask`` of shape ``(n, M, N)`` or ``(M, N)`` is used as it is (whatever
    ``use_batchwise_mask`` says). ``train=False`` drops nothing, so it is the plain linear layer.
    """
    fn = "simplified_dropconnect"
    check_float(fn, "x", x)
    check_float(fn, "W", W)
    check_ndim(fn, "x", x, range(2, 33), hint="x needs a batch axis followed by the feature axes")
    check_ndim(fn, "W", W, 2, hint="W has shape (out_size, in_size)")
    raw_x, raw_w = unbox_all(x), unbox_all(W)
    n, (m, features) = raw_x.shape[0], raw_w.shape
    if math.prod(raw_x.shape[1:]) != features:
        raise ShapeError(
            message(
                fn,
                f"expected prod(x.shape[1:]) == W.shape[1], got {math.prod(raw_x.shape[1:])} != {features}",
                {"x": x, "W": W},
                "W has shape (out_size, in_size); did you pass W.T?",
            )
        )
    strict_float_operands(fn, ("x", "W", "b"), raw_x, raw_w, unbox_all(b))
    if b is not None:
        check_ndim(fn, "b", b, 1, hint="b has shape (out_size,)")
        if numpy.shape(unbox_all(b))[0] != m:
            raise ShapeError(
                message(
                    fn,
                    f"expected b.shape == (W.shape[0],) == ({m},), got {numpy.shape(unbox_all(b))}",
                    {"b": b, "W": W},
                    "b has one entry per output unit",
                )
            )
    _check_ratio(fn, ratio)
    scale = 1.0 / (1.0 - ratio) if train else 1.0
    x2 = ops.reshape(x, (n, features))
    if mask is not None:
        mask = unbox_all(mask)
        _check_noise_shape(fn, "mask", mask, ((n, m, features), (m, features)))
    elif train:
        shape = (n, m, features) if use_batchwise_mask else (m, features)
        mask = _keep(_require_key(fn, key, "or a mask, or train=False"), 1.0 - ratio, shape, raw_w)
    if mask is None:
        y = ops.matmul(x2, ops.transpose(W))
    else:
        weights = ops.multiply(W, (mask * scale).astype(raw_w.dtype))
        if mask.ndim == 3:
            y = ops.einsum("ijk,ik->ij", weights, x2)
        else:
            y = ops.matmul(x2, ops.transpose(weights))
    return y if b is None else ops.add(y, b)


def zoneout(h, x, ratio: float = 0.5, *, key=None, train: bool = True, flag_x=None):
    """Keep each element of the previous state ``h`` with probability ``ratio``, else take ``x``.

    Zoneout regularizes recurrent networks by letting hidden units randomly hold their previous
    value instead of being updated; the pattern is drawn from ``key``, or given as ``flag_x``
    (booleans shaped like ``x``, True where ``x`` is taken; then ``ratio`` and ``key`` are
    unused). The gradient flows to whichever of ``h`` and ``x`` was chosen. ``train=False``
    (Chainer's test mode) returns ``x``.
    """
    fn = "zoneout"
    check_float(fn, "h", h)
    check_float(fn, "x", x)
    check_same_shape(fn, ("h", "x"), h, x)
    _check_ratio(fn, ratio, closed=True)
    if not train:
        return x
    raw = unbox_all(x)
    if flag_x is None:
        take_x = _keep(_require_key(fn, key, "or flag_x, or train=False"), 1.0 - ratio, raw.shape, raw)
    else:
        take_x = unbox_all(flag_x)
        _check_noise_shape(fn, "flag_x", take_x, (raw.shape,))
        if take_x.dtype != numpy.bool_:
            raise DTypeError(
                message(
                    fn,
                    f"expected flag_x to be a bool array, got {take_x.dtype}",
                    {"flag_x": take_x},
                    "flag_x is True where x is taken, e.g. rand(*x.shape) >= ratio",
                )
            )
    return ops.where(take_x, x, h)
