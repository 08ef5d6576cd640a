"""Activation functions (Chainer's ``F.relu``, ``F.softmax``, ``F.lstm``, ...), pure and differentiable.

The rectifiers (relu, clipped, leaky, parametric and randomized relu), the elu, the sigmoid and
the softmax family are primitives: one pass forward, and closed-form VJPs written in fnet ops,
so they are both fast and differentiable to any order. The others (selu, swish, crelu, maxout,
hard_sigmoid and the LSTM cells) are composites of those primitives and of fnet.ops.
"""

from __future__ import annotations

import functools

import numpy

from .. import backend, ops
from .. import random as _random
from ..autodiff import primitive
from ..autodiff.tracer import Tracer, unbox_all
from ..autodiff.tracer import shape_of as _shape
from ..errors import InvalidInputError, ShapeError, message
from ._checks import check_axis, check_float, check_same_dtype, check_same_shape

__all__ = [
    "clipped_relu",
    "crelu",
    "elu",
    "hard_sigmoid",
    "leaky_relu",
    "log_softmax",
    "lstm",
    "maxout",
    "prelu",
    "relu",
    "relu6",
    "rrelu",
    "selu",
    "sigmoid",
    "slstm",
    "softmax",
    "softplus",
    "swish",
    "tanh",
    "tree_lstm",
]


def _axis(fn: str, x, axis: int) -> int:
    return check_axis(fn, "axis", axis, len(_shape(x)))


# -- rectifiers ------------------------------------------------------------------------------
@primitive
def _relu(x):
    return numpy.maximum(x, x.dtype.type(0))


_relu.defvjp(lambda g, ans, x: ops.multiply(g, ops.greater(ans, 0)))


def relu(x):
    """Rectified linear unit ``max(x, 0)``, elementwise.

    The cheapest non-linearity that does not saturate for positive inputs; the derivative at
    0 is taken as 0, as in Chainer.

    >>> import numpy
    >>> relu(numpy.array([-1.0, 0.5], numpy.float32))
    array([0. , 0.5], dtype=float32)
    """
    check_float("relu", "x", x)
    return _relu(x)


@primitive
def _clip_open(x, *, lower, upper):
    dtype = x.dtype.type
    return numpy.minimum(numpy.maximum(x, dtype(lower)), dtype(upper))


_clip_open.defvjp(
    lambda g, ans, x, *, lower, upper: ops.multiply(
        g, ops.logical_and(ops.greater(x, lower), ops.less(x, upper))
    )
)


def clipped_relu(x, z: float = 20.0):
    """Clipped rectifier ``min(max(x, 0), z)``, elementwise.

    A ReLU whose output is capped at ``z > 0``, which bounds activations (and so their growth
    in low-precision or recurrent settings). The derivative is 1 strictly between 0 and ``z``
    and 0 elsewhere, at both kinks included, as in Chainer.

    >>> import numpy
    >>> clipped_relu(numpy.array([-1.0, 3.0, 30.0], numpy.float32), z=10.0)
    array([ 0.,  3., 10.], dtype=float32)
    """
    check_float("clipped_relu", "x", x)
    if not z > 0:
        raise InvalidInputError(
            message(
                "clipped_relu",
                f"expected a clipping value z > 0, got z={z!r}",
                {"x": x},
                "z is the ceiling of the output, e.g. 6.0 (relu6) or the default 20.0",
            )
        )
    return _clip_open(x, lower=0.0, upper=float(z))


def relu6(x):
    """Rectifier clipped at 6, ``min(max(x, 0), 6)``: ``clipped_relu(x, 6.0)``.

    The bounded ReLU of MobileNet-style networks, robust under low-precision arithmetic.

    >>> import numpy
    >>> relu6(numpy.array([-2.0, 4.0, 8.0], numpy.float32))
    array([0., 4., 6.], dtype=float32)
    """
    check_float("relu6", "x", x)
    return _clip_open(x, lower=0.0, upper=6.0)


def hard_sigmoid(x):
    """Piecewise-linear sigmoid ``clip(0.2 * x + 0.5, 0, 1)``, elementwise.

    A cheap approximation of the logistic sigmoid: 0 below -2.5, 1 above 2.5, and linear with
    slope 0.2 in between (the derivative is 0 outside that open interval).

    >>> import numpy
    >>> hard_sigmoid(numpy.array([-3.0, 0.0, 1.0, 3.0], numpy.float32))
    array([0. , 0.5, 0.7, 1. ], dtype=float32)
    """
    check_float("hard_sigmoid", "x", x)
    return _clip_open(ops.add(ops.multiply(x, 0.2), 0.5), lower=0.0, upper=1.0)


def _linear_part(x, keep_zero: bool):
    """Where a leaky rectifier passes ``x`` through: ``x >= 0`` if ``keep_zero``, else ``x > 0``."""
    return ops.greater_equal(x, 0) if keep_zero else ops.greater(x, 0)


@primitive
def _leaky(x, slope, *, keep_zero):
    return ops.where(_linear_part(x, keep_zero), x, x * slope)


_leaky.defvjp(
    lambda g, ans, x, slope, *, keep_zero: ops.where(_linear_part(x, keep_zero), g, ops.multiply(g, slope)),
    lambda g, ans, x, slope, *, keep_zero: ops.unbroadcast(
        ops.where(_linear_part(x, keep_zero), 0, ops.multiply(g, x)), slope
    ),
)


def leaky_relu(x, slope: float = 0.2):
    """Leaky rectifier: ``x`` where ``x > 0``, ``slope * x`` elsewhere.

    Negative inputs keep a small gradient ``slope``, so units cannot die as with ReLU. As in
    Chainer, the derivative at 0 is ``slope``.

    >>> import numpy
    >>> leaky_relu(numpy.array([-1.0, 2.0], numpy.float32))
    array([-0.2,  2. ], dtype=float32)
    """
    check_float("leaky_relu", "x", x)
    return _leaky(x, float(slope), keep_zero=False)


def _check_param(fn: str, name: str, x, w) -> None:
    """``w`` (PReLU's ``W``, swish's ``beta``) must match ``x.shape[1:1 + w.ndim]`` and ``x``'s dtype."""
    check_float(fn, "x", x)
    check_float(fn, name, w)
    check_same_dtype(fn, ("x", name), x, w)
    xs, ws = _shape(x), _shape(w)
    if len(ws) >= len(xs) or xs[1 : 1 + len(ws)] != ws:
        raise ShapeError(
            message(
                fn,
                f"expected x.shape[1:{1 + len(ws)}] == {name}.shape with x.ndim > {name}.ndim, "
                f"got x.shape={xs} and {name}.shape={ws}",
                {"x": x, name: w},
                f"{name} is shared over the batch (axis 0) and the trailing axes of x: "
                f"x must be (batch, *{name}.shape, ...)",
            )
        )


def _expand_param(w, ndim: int):
    """``w`` reshaped to ``(1, *w.shape, 1, ..., 1)`` with ``ndim`` axes, to broadcast against x."""
    ws = _shape(w)
    return ops.reshape(w, (1, *ws) + (1,) * (ndim - len(ws) - 1))


def prelu(x, W):
    """Parametric ReLU: ``x`` where ``x >= 0``, ``W * x`` elsewhere, with learned slopes ``W``.

    ``W`` holds one slope per channel (or per entry of ``x.shape[1:1 + W.ndim]``) and is shared
    over the batch axis and the trailing axes, e.g. ``W`` of shape ``(C,)`` for images
    ``(B, C, H, W)``. Differentiable in both ``x`` and ``W``.

    >>> import numpy
    >>> x = numpy.array([[-1.0, 2.0], [-3.0, -4.0]], numpy.float32)
    >>> prelu(x, numpy.array([0.1, 0.5], numpy.float32))
    array([[-0.1,  2. ],
           [-0.3, -2. ]], dtype=float32)
    """
    _check_param("prelu", "W", x, W)
    return _leaky(x, _expand_param(W, len(_shape(x))), keep_zero=True)


def rrelu(
    x,
    l: float = 1.0 / 8,  # noqa: E741 (Chainer's argument name)
    u: float = 1.0 / 3,
    *,
    key=None,
    train: bool = True,
    r=None,
    return_r: bool = False,
):
    """Randomized leaky ReLU: ``x`` where ``x >= 0``, ``r * x`` elsewhere, with random slopes ``r``.

    In training, each element gets its own slope drawn uniformly from ``[l, u)`` with
    ``fnet.random`` from ``key`` (or the given ``r``, an array of ``x``'s shape and dtype, is
    used); in test mode (``train=False``) the slope is the mean ``(l + u) / 2`` and ``r`` is
    ignored, as in Chainer. With ``return_r`` the slopes are returned too, as ``(y, r)``, so
    that they can be reused. ``0 <= l < u < 1`` is required.

    >>> import numpy
    >>> rrelu(numpy.array([-2.0, 3.0], numpy.float32), l=0.1, u=0.3, train=False)
    array([-0.4,  3. ], dtype=float32)
    """
    fn = "rrelu"
    check_float(fn, "x", x)
    if not (0.0 <= l < 1.0 and 0.0 <= u < 1.0 and l < u):
        raise InvalidInputError(
            message(
                fn, f"expected 0 <= l < u < 1, got l={l!r}, u={u!r}", hint="l and u bound the random slopes"
            )
        )
    value = unbox_all(x)
    xp = backend.xp(value)
    if not train:
        slope = (l + u) / 2
        r = xp.full(value.shape, slope, dtype=value.dtype) if return_r else None
    elif r is None:
        if key is None:
            raise InvalidInputError(
                message(
                    fn,
                    "expected a key to draw the random slopes in training, got key=None",
                    {"x": x},
                    "pass key=fnet.random.key(seed) (split it for every call), r=..., or train=False",
                )
            )
        r = slope = xp.asarray(_random.uniform(key, value.shape, value.dtype, low=l, high=u))
    else:
        check_float(fn, "r", r)
        check_same_dtype(fn, ("x", "r"), x, r)
        check_same_shape(fn, ("x", "r"), x, r)
        slope = r
    y = _leaky(x, slope, keep_zero=True)
    return (y, r) if return_r else y


# -- exponential units -----------------------------------------------------------------------
@primitive
def _elu(x, *, alpha):
    dtype = x.dtype.type
    negative = numpy.expm1(numpy.minimum(x, dtype(0))) * dtype(alpha)
    return ops.where(x > 0, x, negative)


_elu.defvjp(lambda g, ans, x, *, alpha: ops.where(ops.greater(x, 0), g, ops.multiply(g, ops.add(ans, alpha))))


def elu(x, alpha: float = 1.0):
    """Exponential linear unit: ``x`` where ``x > 0``, ``alpha * (exp(x) - 1)`` elsewhere.

    Smooth for negative inputs and saturating at ``-alpha``, which pushes mean activations
    towards zero. The derivative is 1 for ``x > 0`` and ``alpha * exp(x)`` elsewhere.

    >>> import numpy
    >>> elu(numpy.array([-1.0, 2.0], numpy.float32)).round(4)  # exp's last bits depend on the CPU
    array([-0.6321,  2.    ], dtype=float32)
    """
    check_float("elu", "x", x)
    return _elu(x, alpha=float(alpha))


def selu(x, alpha: float = 1.6732632423543772, scale: float = 1.0507009873554805):
    """Scaled exponential linear unit ``scale * elu(x, alpha)``.

    With the default constants, activations of a suitably initialized network keep zero mean
    and unit variance from layer to layer (self-normalizing networks).

    >>> import numpy
    >>> selu(numpy.array([-1.0, 1.0], numpy.float32)).round(4)  # exp's last bits depend on the CPU
    array([-1.1113,  1.0507], dtype=float32)
    """
    check_float("selu", "x", x)
    return ops.multiply(_elu(x, alpha=float(alpha)), float(scale))


# -- sigmoid family --------------------------------------------------------------------------
@primitive
def _sigmoid(x):
    half = x.dtype.type(0.5)
    return numpy.tanh(x * half) * half + half


_sigmoid.defvjp(lambda g, ans, x: ops.multiply(g, ops.multiply(ans, ops.subtract(1, ans))))


def sigmoid(x):
    """Logistic sigmoid ``1 / (1 + exp(-x))``, elementwise.

    Computed as ``0.5 * tanh(0.5 * x) + 0.5``, which never overflows; its derivative is
    ``y * (1 - y)``.

    >>> import numpy
    >>> sigmoid(numpy.array([0.0], numpy.float32))
    array([0.5], dtype=float32)
    """
    check_float("sigmoid", "x", x)
    return _sigmoid(x)


def tanh(x):
    """Hyperbolic tangent, elementwise: ``fnet.ops.tanh`` under Chainer's name.

    Only float arrays are accepted, as in Chainer; the derivative is ``1 - y ** 2``.

    >>> import numpy
    >>> tanh(numpy.array([0.0], numpy.float32))
    array([0.], dtype=float32)
    """
    check_float("tanh", "x", x)
    return ops.tanh(x)


def swish(x, beta):
    """Swish ``x * sigmoid(beta * x)``, with learned ``beta``.

    It interpolates between the linear ``x / 2`` (``beta = 0``) and ReLU (``beta`` large).
    ``beta`` has the shape of ``x.shape[1:1 + beta.ndim]`` and is shared over the batch axis
    and the trailing axes, as PReLU's ``W``. Differentiable in both ``x`` and ``beta``.

    >>> import numpy
    >>> swish(numpy.array([[0.0, 2.0]], numpy.float32), numpy.array([1.0, 0.0], numpy.float32))
    array([[0., 1.]], dtype=float32)
    """
    _check_param("swish", "beta", x, beta)
    return ops.multiply(x, _sigmoid(ops.multiply(_expand_param(beta, len(_shape(x))), x)))


@primitive
def _softplus(x, *, beta):
    bx = x * x.dtype.type(beta)
    return numpy.logaddexp(x.dtype.type(0), bx) / x.dtype.type(beta)


_softplus.defvjp(lambda g, ans, x, *, beta: ops.multiply(g, _sigmoid(ops.multiply(x, beta))))


def softplus(x, beta: float = 1.0):
    """Softplus ``log(1 + exp(beta * x)) / beta``, a smooth ReLU.

    Computed with ``logaddexp``, so it neither overflows for large inputs nor loses them to
    rounding; larger ``beta`` brings it closer to ``max(x, 0)``. Its derivative is
    ``sigmoid(beta * x)``.

    >>> import numpy
    >>> softplus(numpy.array([0.0], numpy.float32)).round(4)  # log's last bits depend on the CPU
    array([0.6931], dtype=float32)
    """
    check_float("softplus", "x", x)
    return _softplus(x, beta=float(beta))  # a scalar hyperparameter, even given as a 0-d array


# -- softmax family --------------------------------------------------------------------------
@primitive
def _softmax(x, *, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    numpy.exp(shifted, out=shifted)
    shifted /= shifted.sum(axis=axis, keepdims=True)
    return shifted


@_softmax.defvjp
def _softmax_vjp(g, ans, x, *, axis):
    gy = ops.multiply(g, ans)
    return ops.subtract(gy, ops.multiply(ans, ops.sum(gy, axis=axis, keepdims=True)))


def softmax(x, axis: int = 1):
    """Softmax ``exp(x) / sum(exp(x))`` along ``axis`` (the channel axis by default).

    The maximum is subtracted first, so large scores do not overflow; the result sums to 1
    along ``axis``.

    >>> import numpy
    >>> softmax(numpy.array([[0.0, 0.0]], numpy.float32))
    array([[0.5, 0.5]], dtype=float32)
    """
    check_float("softmax", "x", x)
    return _softmax(x, axis=_axis("softmax", x, axis))


@primitive
def _log_softmax(x, *, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    shifted -= numpy.log(numpy.exp(shifted).sum(axis=axis, keepdims=True))
    return shifted


@_log_softmax.defvjp
def _log_softmax_vjp(g, ans, x, *, axis):
    return ops.subtract(g, ops.multiply(ops.exp(ans), ops.sum(g, axis=axis, keepdims=True)))


def log_softmax(x, axis: int = 1):
    """Logarithm of the softmax along ``axis``: ``x - logsumexp(x)``.

    Equal to ``log(softmax(x))`` but computed directly, so very negative scores give finite
    log-probabilities instead of ``log(0)``.

    >>> import numpy
    >>> log_softmax(numpy.array([[0.0, 0.0]], numpy.float32)).round(4)  # log's last bits depend on the CPU
    array([[-0.6931, -0.6931]], dtype=float32)
    """
    check_float("log_softmax", "x", x)
    return _log_softmax(x, axis=_axis("log_softmax", x, axis))


# -- pooling-like activations ----------------------------------------------------------------
def crelu(x, axis: int = 1):
    """Concatenated ReLU: ``relu(x)`` and ``relu(-x)`` joined along ``axis``.

    Keeps both the positive and the negative phase of its input, doubling ``x.shape[axis]``.

    >>> import numpy
    >>> crelu(numpy.array([[-1.0, 2.0]], numpy.float32))
    array([[0., 2., 1., 0.]], dtype=float32)
    """
    check_float("crelu", "x", x)
    axis = _axis("crelu", x, axis)
    return ops.concatenate([_relu(x), _relu(ops.negative(x))], axis=axis)


def maxout(x, pool_size: int, axis: int = 1):
    """Maxout: the maximum over consecutive groups of ``pool_size`` units along ``axis``.

    ``x.shape[axis]`` (``M * pool_size``) is split into ``(M, pool_size)`` and the maximum is
    taken over each group, so the output has ``M`` units there. Typically applied to a linear
    layer with ``pool_size`` times as many outputs. Tied maxima share the gradient equally.

    >>> import numpy
    >>> maxout(numpy.array([[1.0, 3.0, 5.0, 2.0]], numpy.float32), 2)
    array([[3., 5.]], dtype=float32)
    """
    fn = "maxout"
    if isinstance(pool_size, bool) or not isinstance(pool_size, (int, numpy.integer)) or pool_size <= 0:
        raise InvalidInputError(
            message(
                fn,
                f"expected pool_size to be a positive int, got {pool_size!r}",
                {"x": x},
                "pool_size is the number of units each output takes the maximum of",
            )
        )
    shape = _shape(x)
    axis = _axis(fn, x, axis)
    if shape[axis] % pool_size:
        raise ShapeError(
            message(
                fn,
                f"expected x.shape[{axis}] to be a multiple of pool_size, got {shape[axis]} and "
                f"pool_size={pool_size}",
                {"x": x},
                "the axis holds M groups of pool_size units; change pool_size or the layer's output size",
            )
        )
    grouped = (*shape[:axis], shape[axis] // pool_size, pool_size, *shape[axis + 1 :])
    return ops.max(ops.reshape(x, grouped), axis=axis + 1)


# -- LSTM cells ------------------------------------------------------------------------------
def _check_cell(fn: str, cell: tuple, gates: tuple, n_gates: int, *, smaller_batch: bool = False) -> None:
    """A cell state ``(name, c)`` and its gate inputs ``(name, x)`` must fit each other.

    ``x`` is ``(B, n_gates * H, *rest)`` for ``c`` of shape ``(B, H, *rest)`` (``x`` may have
    fewer rows than ``c`` with ``smaller_batch``), both float arrays of one dtype, ndim >= 2.
    """
    (c_name, c), (x_name, x) = cell, gates
    check_float(fn, c_name, c)
    check_float(fn, x_name, x)
    check_same_dtype(fn, (c_name, x_name), c, x)
    cs, xs = _shape(c), _shape(x)
    operands = {c_name: c, x_name: x}
    if len(cs) < 2 or len(xs) != len(cs):
        raise ShapeError(
            message(
                fn,
                f"expected {x_name}.ndim == {c_name}.ndim >= 2, got {len(xs)} and {len(cs)}",
                operands,
                "the cell state is (batch, units, ...) and its gate input (batch, gates * units, ...)",
            )
        )
    batch_fits = xs[0] <= cs[0] if smaller_batch else xs[0] == cs[0]
    if not batch_fits or xs[1] != n_gates * cs[1] or xs[2:] != cs[2:]:
        batch = f"{x_name}.shape[0] <= {c_name}.shape[0]" if smaller_batch else "the same batch size"
        raise ShapeError(
            message(
                fn,
                f"expected {x_name}.shape[1] == {n_gates} * {c_name}.shape[1], {batch}, and equal trailing "
                f"axes, got {x_name}.shape={xs} and {c_name}.shape={cs}",
                operands,
                f"{x_name} holds the {n_gates} gate inputs of every unit of {c_name} along axis 1",
            )
        )


def _gates(x, n: int, *, interleaved: bool) -> list:
    """The ``n`` gate inputs held in axis 1 of ``x``.

    ``interleaved`` (``lstm``, ``slstm``): gate ``k`` of unit ``j`` is ``x[:, n * j + k]``.
    Otherwise (``tree_lstm``) the gates are contiguous blocks: ``x[:, k * H:(k + 1) * H]``.
    """
    shape = _shape(x)
    units = shape[1] // n
    split = (units, n) if interleaved else (n, units)
    blocks = x.reshape((shape[0], *split, *shape[2:]))  # views of a raw array, recorded when traced
    prefix = (slice(None),) * (2 if interleaved else 1)
    return [blocks[(*prefix, k)] for k in range(n)]


def _cell_update(inputs, forgets, o):
    """``c = sum(tanh(a) * sigmoid(i)) + sum(sigmoid(f) * c_prev)`` and ``h = sigmoid(o) * tanh(c)``."""
    terms = [ops.multiply(ops.tanh(a), _sigmoid(i)) for a, i in inputs]
    terms += [ops.multiply(_sigmoid(f), c_prev) for f, c_prev in forgets]
    c = functools.reduce(ops.add, terms)
    return c, ops.multiply(_sigmoid(o), ops.tanh(c))


# The LSTM cell of ``lstm`` as three primitives: the four gate activations in one pass over
# the gate input, then ``c`` and ``h = o * tanh(c)`` from them. Their VJPs write the gradient
# of the interleaved gate input at once and use the kept activations: nothing transcendental
# is computed again (the composition of ``_gates`` and ``_cell_update`` records 14 operations
# and scatters each gate's gradient separately). The VJPs are written once, with
# operators and the functions of ``_math``: on raw arrays they are plain array code, on
# tracers every step is recorded, so they differentiate again.
def _math(*operands):
    """``fnet.ops`` when an operand is traced (the computation is then recorded), else the
    operands' array module."""
    for a in operands:
        if type(a) is Tracer:
            return ops
    return backend.xp(operands[0])


@functools.lru_cache
def _gate_constants(dtype: numpy.dtype, units: int, n_rest: int, device: backend.Device) -> tuple:
    """Per entry of axis 1 of the gate input (a, i, f, o for each of ``units`` units), to
    broadcast over it: the input scale and the output scale and shift (``tanh`` for a,
    ``sigmoid(x) = tanh(x / 2) / 2 + 1 / 2`` for i, f, o), and the ``alpha, beta`` of the
    slope ``alpha + y * (beta - y)`` of each in terms of its value y. Whole rows rather than
    four values broadcast over a gate axis: NumPy then loops over rows, not over fours."""
    half = [1.0, 0.5, 0.5, 0.5]
    rows = (half, half, [0.0, 0.5, 0.5, 0.5], [1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 1.0, 1.0])
    constants = []
    for row in rows:
        host = numpy.asarray(row * units, dtype=dtype).reshape((4 * units,) + (1,) * n_rest)
        host.flags.writeable = False  # shared by every call
        constants.append(device.send(host))
    return tuple(constants)


def _constants_for(x) -> tuple:
    value = unbox_all(x)
    device = backend.get_device_from_array(value)
    return _gate_constants(value.dtype, value.shape[1] // 4, value.ndim - 2, device)


@primitive(name="lstm_activate")
def _lstm_activate(x):
    """``tanh(a), sigmoid(i), sigmoid(f), sigmoid(o)``, interleaved as the gates of ``x``."""
    scale, out_scale, shift, _, _ = _constants_for(x)
    y = x * scale
    backend.xp(x).tanh(y, out=y)
    y *= out_scale
    y += shift
    return y


def _lstm_activate_vjp(g, y, x):
    _, _, _, alpha, beta = _constants_for(x)
    return g * (alpha + y * (beta - y))


_lstm_activate.defvjp(_lstm_activate_vjp)


def _gate_values(act) -> list:
    """The activations ``a, i, f, o`` in ``act`` (of ``_lstm_activate``)."""
    return _gates(act, 4, interleaved=True)


@primitive(name="lstm_cell")
def _lstm_cell(c_prev, act):
    """``c = a * i + f * c_prev`` for the activations ``a, i, f`` in ``act``."""
    a, i, f, _ = _gate_values(act)
    return a * i + f * c_prev


@primitive(name="lstm_output")
def _lstm_output(tanh_c, act):
    """``h = o * tanh(c)`` for the activation ``o`` in ``act``."""
    return _gate_values(act)[3] * tanh_c


def _interleave(m, gates, act):
    """The gradients of the four gates as one array shaped and interleaved like ``act``."""
    return m.reshape(m.stack(gates, axis=2), _shape(act))


def _lstm_cell_vjp_act(g, c, c_prev, act):
    a, i, f, _ = _gate_values(act)
    m = _math(g, c_prev, act)
    return _interleave(m, [g * i, g * a, g * c_prev, m.zeros_like(g)], act)


def _lstm_output_vjp_act(g, h, tanh_c, act):
    m = _math(g, tanh_c, act)
    go = g * tanh_c
    zero = m.zeros_like(go)
    return _interleave(m, [zero, zero, zero, go], act)


_lstm_cell.defvjp(lambda g, c, c_prev, act: g * _gate_values(act)[2], _lstm_cell_vjp_act)
_lstm_output.defvjp(lambda g, h, tanh_c, act: g * _gate_values(act)[3], _lstm_output_vjp_act)


def lstm(c_prev, x):
    """Long short-term memory cell with forget gate, as an activation: returns ``(c, h)``.

    ``x`` holds four gate inputs per unit, interleaved along axis 1 as in Chainer (for unit
    ``j``: ``a, i, f, o = x[:, 4j], x[:, 4j + 1], x[:, 4j + 2], x[:, 4j + 3]``), so
    ``x.shape[1] == 4 * c_prev.shape[1]``. Then ``c = tanh(a) * sigmoid(i) + sigmoid(f) *
    c_prev`` and ``h = sigmoid(o) * tanh(c)``. ``x`` may have fewer rows than ``c_prev``
    (sequences sorted by decreasing length): only the first ``len(x)`` rows of ``c`` are
    updated, the others are copied from ``c_prev``, and ``h`` has ``len(x)`` rows.

    >>> import numpy
    >>> c, h = lstm(numpy.zeros((3, 2), numpy.float32), numpy.zeros((2, 8), numpy.float32))
    >>> c.shape, h.shape
    ((3, 2), (2, 2))
    """
    _check_cell("lstm", ("c_prev", c_prev), ("x", x), 4, smaller_batch=True)
    batch, total = _shape(x)[0], _shape(c_prev)[0]
    head = c_prev if batch == total else ops.getitem(c_prev, slice(0, batch))
    act = _lstm_activate(x)
    c = _lstm_cell(head, act)
    h = _lstm_output(ops.tanh(c), act)
    if batch < total:
        c = ops.concatenate([c, ops.getitem(c_prev, slice(batch, None))], axis=0)
    return c, h


def slstm(c_prev1, c_prev2, x1, x2):
    """S-LSTM cell: an LSTM merging the states of two children of a binary tree; returns ``(c, h)``.

    ``x1`` and ``x2`` hold the gate inputs ``a, i, f, o`` of each child, interleaved along
    axis 1 as in ``lstm``. The result is what Chainer 7 computes, ``c = tanh(a1) * sigmoid(i1)
    + tanh(a2) * sigmoid(i2) + sigmoid(f1) * c_prev1 + sigmoid(f2) * c_prev2`` and ``h =
    sigmoid(o1 + o2) * tanh(c)`` (its documentation writes the input term as ``tanh(a1 + a2)
    * sigmoid(i1 + i2)``, but its code, followed here, sums one term per child).

    >>> import numpy
    >>> c = numpy.zeros((1, 2), numpy.float32)
    >>> x = numpy.zeros((1, 8), numpy.float32)
    >>> slstm(c, c, x, x)[1].shape
    (1, 2)
    """
    fn = "slstm"
    _check_cell(fn, ("c_prev1", c_prev1), ("x1", x1), 4)
    _check_cell(fn, ("c_prev2", c_prev2), ("x2", x2), 4)
    check_same_shape(fn, ("c_prev1", "c_prev2"), c_prev1, c_prev2)
    check_same_dtype(fn, ("c_prev1", "c_prev2"), c_prev1, c_prev2)
    a1, i1, f1, o1 = _gates(x1, 4, interleaved=True)
    a2, i2, f2, o2 = _gates(x2, 4, interleaved=True)
    return _cell_update([(a1, i1), (a2, i2)], [(f1, c_prev1), (f2, c_prev2)], ops.add(o1, o2))


def tree_lstm(*inputs):
    """N-ary tree LSTM cell ``tree_lstm(c_1, ..., c_N, x)``: returns ``(c, h)``.

    ``x`` holds ``3 + N`` gate inputs as contiguous blocks along axis 1, in the order ``a, i,
    o, f_1, ..., f_N`` (each of ``H = c_1.shape[1]`` units; unlike ``lstm``, not interleaved).
    Then ``c = tanh(a) * sigmoid(i) + sum_n sigmoid(f_n) * c_n`` and ``h = sigmoid(o) *
    tanh(c)``: one forget gate per child, as in Bowman et al.'s variant used by Chainer.

    >>> import numpy
    >>> c1 = c2 = numpy.zeros((1, 2), numpy.float32)
    >>> tree_lstm(c1, c2, numpy.zeros((1, 10), numpy.float32))[0].shape
    (1, 2)
    """
    fn = "tree_lstm"
    if len(inputs) < 2:
        raise InvalidInputError(
            message(
                fn,
                f"expected the cell states of 1 or more children and then x, got {len(inputs)} input(s)",
                hint="call tree_lstm(c_1, ..., c_N, x)",
            )
        )
    *cells, x = inputs
    for n, c in enumerate(cells, 1):
        _check_cell(fn, (f"c_{n}", c), ("x", x), 3 + len(cells))
    a, i, o, *fs = _gates(x, 3 + len(cells), interleaved=False)
    return _cell_update([(a, i)], zip(fs, cells), o)
