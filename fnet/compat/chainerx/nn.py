"""Neural-network routines: activation, loss, connection, normalization and pooling, each
one fnet function (``fnet.functions``) on the unwrapped arrays, promoted to one float dtype.

ChainerX's losses are elementwise (or per sample): the fnet functions run with ``reduce='no'``.
``batch_norm`` updates ``running_mean``/``running_var`` in place, as ChainerX does.
"""

from __future__ import annotations

import numpy

from ... import functions as F
from ... import ops
from ...autodiff import unbox_all
from ...errors import message
from ._array import in_numpy_layout, ndarray, raw, unwrap, wrap
from ._dtypes import result_type
from ._errors import DimensionError, DtypeError
from ._routine import cast_to, chainerx_errors

__all__ = [
    # activation
    "relu", "sigmoid", "leaky_relu", "elu", "clipped_relu", "crelu", "softplus",
    # loss
    "absolute_error", "squared_error", "huber_loss", "gaussian_kl_divergence",
    "sigmoid_cross_entropy", "softmax_cross_entropy", "hinge",
    # connection
    "dot", "linear", "conv", "conv_transpose",
    # normalization
    "batch_norm", "fixed_batch_norm",
    # pooling
    "max_pool", "average_pool",
    # evaluation
    "accuracy",
]  # fmt: skip

_FLOAT32 = numpy.dtype("float32")


def _floats(name: str, *arrays):
    """The unwrapped ``arrays`` (None stays None) cast to their common float dtype, and the device."""
    present = [a for a in arrays if a is not None]
    values, device = unwrap(name, present)
    dtype = result_type(*(unbox_all(v).dtype for v in values))
    if dtype.kind != "f":
        dtype = _FLOAT32
    cast = iter([cast_to(v, dtype) for v in values])
    return [None if a is None else next(cast) for a in arrays], device


def _call(name: str, fn, *arrays, **params):
    values, device = _floats(name, *arrays)
    with chainerx_errors(name):
        return wrap(fn(*values, **params), device)


def _integral_or_float(name: str, fn, *arrays, **params):
    """``_call``, except that integer and bool operands give a result of their dtype, as
    ChainerX's (sums of products): computed exactly in int64 (through float64, whose integers are
    exact below 2**53), then wrapped to that dtype; bool is "any product true"."""
    present = [a for a in arrays if a is not None]
    dtypes = [a.dtype for a in present]
    if any(d.kind == "f" for d in dtypes):
        return _call(name, fn, *arrays, **params)
    values, device = unwrap(name, present)
    dtype = result_type(*dtypes)
    data = iter([unbox_all(v).astype(numpy.float64) for v in values])
    with chainerx_errors(name):
        result = unbox_all(fn(*[None if a is None else next(data) for a in arrays], **params))
    result = result != 0 if dtype.kind == "b" else numpy.rint(result).astype(numpy.int64).astype(dtype)
    return wrap(result, device)


def _activation(name: str, fn):
    def routine(x, *args):
        return _call(name, lambda v: fn(v, *args), x)

    routine.__name__ = name
    routine.__doc__ = f"``{name}`` of each element (``fnet.functions.{fn.__name__}``)."
    return routine


relu = _activation("relu", F.relu)
sigmoid = _activation("sigmoid", F.sigmoid)
leaky_relu = _activation("leaky_relu", F.leaky_relu)
elu = _activation("elu", F.elu)
clipped_relu = _activation("clipped_relu", F.clipped_relu)
softplus = _activation("softplus", F.softplus)


def crelu(x, axis=1) -> ndarray:
    """``relu(x)`` and ``relu(-x)`` concatenated along ``axis``."""
    if not -x.ndim <= axis < x.ndim:
        raise DimensionError(
            message("chainerx.crelu", f"expected an axis of {x.ndim} dimensions, got {axis}")
        )
    return _call("crelu", lambda v: F.crelu(v, axis % x.ndim), x)


def absolute_error(x1, x2) -> ndarray:
    return _call("absolute_error", F.absolute_error, x1, x2)


def squared_error(x1, x2) -> ndarray:
    return _call("squared_error", F.squared_error, x1, x2)


def huber_loss(x, t, delta) -> ndarray:
    """The Huber loss of each element (quadratic within ``delta``, linear beyond)."""
    return _call("huber_loss", lambda a, b: F.huber_loss(a, b, delta, reduce="no"), x, t)


def gaussian_kl_divergence(mean, ln_var) -> ndarray:
    """KL(N(mean, exp(ln_var)) || N(0, 1)) of each element."""
    return _call(
        "gaussian_kl_divergence", lambda m, v: F.gaussian_kl_divergence(m, v, reduce="no"), mean, ln_var
    )


def sigmoid_cross_entropy(x1, x2) -> ndarray:
    """The sigmoid cross entropy of each element of logits ``x1`` against labels ``x2`` (label
    -1: ignored, loss 0), ChainerX's formula ``-(x1 (x2 - [x1 >= 0]) - log(1 + exp(-|x1|)))``
    for any label value; differentiable in ``x1``."""
    values, device = unwrap("sigmoid_cross_entropy", (x1, x2))
    x, t = values[0], unbox_all(values[1])
    data = unbox_all(x)
    if data.dtype.kind != "f":
        raise DtypeError(
            message("chainerx.sigmoid_cross_entropy", f"expected float logits, got dtype {data.dtype}")
        )
    dtype = data.dtype.type
    shift = t.astype(data.dtype) - (data >= 0).astype(data.dtype)
    softplus = ops.log1p(ops.exp(ops.negative(ops.absolute(x))))
    with chainerx_errors("sigmoid_cross_entropy"):
        loss = ops.subtract(softplus, ops.multiply(x, shift))
        return wrap(ops.multiply(loss, (t != -1).astype(dtype)), device)


def softmax_cross_entropy(x1, x2) -> ndarray:
    """The softmax cross entropy of each sample's logits (axis 1 of ``x1``) against class
    labels ``x2``."""
    if x1.ndim != 2:
        raise DimensionError(
            message("chainerx.softmax_cross_entropy", f"expected 2-d logits, got {x1.ndim}-d")
        )
    values, device = unwrap("softmax_cross_entropy", (x1, x2))
    return wrap(F.softmax_cross_entropy(values[0], values[1], reduce="no"), device)


def hinge(x, t, norm=1.0) -> ndarray:
    """The hinge loss of each element of scores ``x`` for class labels ``t`` (``norm`` 1 or 2)."""
    norms = {1.0: "L1", 2.0: "L2"}
    if float(norm) not in norms:
        raise ValueError(message("chainerx.hinge", f"expected norm 1 or 2, got {norm}"))
    values, device = unwrap("hinge", (x, t))
    return wrap(F.hinge(values[0], values[1], norm=norms[float(norm)], reduce="no"), device)


def dot(a, b) -> ndarray:
    """The dot product of ``a`` and ``b``: the sum over the last axis of ``a`` and the
    second-to-last of ``b`` (the only one of a vector); a product with a 0-d operand. Integer and
    bool operands give their promoted dtype, computed exactly."""
    values, device = unwrap("dot", (a, b))
    data = [unbox_all(v) for v in values]
    if data[0].ndim and data[1].ndim:
        k = data[1].shape[0] if data[1].ndim == 1 else data[1].shape[-2]
        if data[0].shape[-1] != k:
            raise DimensionError(
                message("chainerx.dot", f"shapes {data[0].shape} and {data[1].shape} are not aligned")
            )
    dtype = result_type(*(d.dtype for d in data))
    if dtype.kind != "f":
        return wrap(numpy.dot(*(d.astype(dtype, copy=False) for d in data)), device)
    x, y = (cast_to(v, dtype) for v in values)
    if not data[0].ndim or not data[1].ndim:
        return wrap(ops.multiply(x, y), device)
    result = wrap(_dot(x, y, data[0].shape, data[1].shape), device)
    if result.size == 0:  # NumPy's layout of an empty result (its strides are 0)
        in_numpy_layout(result, numpy.dot(*(d.astype(dtype, copy=False) for d in data)))
    return result


def _dot(x, y, x_shape: tuple, y_shape: tuple):
    """``numpy.dot`` of traced operands of ``x_shape`` and ``y_shape`` (both with axes) as one
    matrix product; the shapes are explicit, so that zero-size axes reshape."""
    k = x_shape[-1]
    if len(y_shape) == 1:
        rest = ()
        right = ops.reshape(y, (k, 1))
    else:
        order = (len(y_shape) - 2, *range(len(y_shape) - 2), len(y_shape) - 1)
        rest = y_shape[:-2] + y_shape[-1:]
        right = ops.reshape(ops.transpose(y, order), (k, int(numpy.prod(rest))))
    left = ops.reshape(x, (int(numpy.prod(x_shape[:-1])), k))
    return ops.reshape(ops.matmul(left, right), x_shape[:-1] + rest)


def linear(x, W, b=None, n_batch_axes=1) -> ndarray:  # noqa: N803 (ChainerX's name)
    """``x @ W.T + b`` with the first ``n_batch_axes`` axes of ``x`` as batch axes."""
    if n_batch_axes < 1:
        raise DimensionError(message("chainerx.linear", f"expected n_batch_axes >= 1, got {n_batch_axes}"))
    return _integral_or_float("linear", lambda *v: F.linear(*v, n_batch_axes=n_batch_axes), x, W, b)


def conv(x, w, b=None, stride=1, pad=0, cover_all=False) -> ndarray:
    """N-dimensional convolution of ``x`` (batch, channels, spatial...) with filters ``w``;
    without spatial axes, ``linear``."""
    if x.ndim == 2:
        return _integral_or_float("conv", F.linear, x, w, b)
    return _integral_or_float(
        "conv", lambda *v: F.convolution_nd(*v, stride=stride, pad=pad, cover_all=cover_all), x, w, b
    )


def conv_transpose(x, w, b=None, stride=1, pad=0, outsize=None) -> ndarray:
    """The transpose (gradient) of ``conv``: N-dimensional deconvolution (``x @ w + b``
    without spatial axes)."""
    if x.ndim == 2:
        return _integral_or_float(
            "conv_transpose", lambda v, u, c=None: F.linear(v, ops.transpose(u), c), x, w, b
        )
    return _integral_or_float(
        "conv_transpose", lambda *v: F.deconvolution_nd(*v, stride=stride, pad=pad, outsize=outsize), x, w, b
    )


def _norm_axes(name: str, x, axis, *params) -> tuple:
    """ChainerX's normalization axes (the first axis when None), each parameter of the shape
    of ``x`` without them."""
    axes = (0,) if axis is None else ((axis,) if isinstance(axis, int) else tuple(axis))
    axes = tuple(a % x.ndim for a in axes)
    reduced = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    for label, p in zip(("gamma", "beta", "mean", "var"), params):
        if p.shape != reduced:
            raise DimensionError(
                message(
                    f"chainerx.{name}",
                    f"expected {label} of shape {reduced} (x's shape {x.shape} without axes {axes}), "
                    f"got {p.shape}",
                    hint="pass the axes to normalize over, e.g. axis=(0, 2, 3) for images",
                )
            )
    return axes


def fixed_batch_norm(x, gamma, beta, mean, var, eps=2e-5, axis=None) -> ndarray:
    """Batch normalization with the given statistics (over ``axis``; the first when None)."""
    axes = _norm_axes("fixed_batch_norm", x, axis, gamma, beta, mean, var)
    dtype = x.dtype if x.dtype.kind == "f" else _FLOAT32  # the result has x's dtype, as ChainerX's
    return _call(
        "fixed_batch_norm",
        lambda *v: cast_to(F.fixed_batch_normalization(*v, eps=eps, axis=axes), dtype),
        x,
        gamma,
        beta,
        mean,
        var,
    )


def batch_norm(x, gamma, beta, running_mean, running_var, eps=2e-5, decay=0.9, axis=None) -> ndarray:
    """Batch normalization with the batch's statistics (over ``axis``; the first when None);
    ``running_mean``/``running_var`` are updated in place with their moving averages."""
    axes = _norm_axes("batch_norm", x, axis, gamma, beta, running_mean, running_var)
    (xv, gv, bv), device = _floats("batch_norm", x, gamma, beta)
    means = (raw(running_mean), raw(running_var))
    if any(m.dtype.kind != "f" for m in means):
        raise DtypeError(message("chainerx.batch_norm", "expected float running statistics"))
    with chainerx_errors("batch_norm"):
        y, (mean, var) = F.batch_normalization(
            xv, gv, bv, eps=eps, running_mean=means[0], running_var=means[1], decay=decay, axis=axes
        )
    means[0][...] = unbox_all(mean)
    means[1][...] = unbox_all(var)
    return wrap(cast_to(y, x.dtype if x.dtype.kind == "f" else _FLOAT32), device)


def max_pool(x, ksize, stride=None, pad=0, cover_all=False) -> ndarray:
    """N-dimensional max pooling over windows of ``ksize``."""
    return _call("max_pool", lambda v: F.max_pooling_nd(v, ksize, stride, pad, cover_all=cover_all), x)


def average_pool(x, ksize, stride=None, pad=0, pad_mode="ignore") -> ndarray:
    """N-dimensional average pooling; padding counts as zeros (``pad_mode='zero'``) or not at
    all (``'ignore'``)."""
    if pad_mode not in ("ignore", "zero"):
        raise ValueError(
            message("chainerx.average_pool", f"expected pad_mode 'ignore' or 'zero', got {pad_mode!r}")
        )
    pad_value = None if pad_mode == "ignore" else 0
    return _call(
        "average_pool", lambda v: F.average_pooling_nd(v, ksize, stride, pad, pad_value=pad_value), x
    )


ndarray.dot = lambda self, b: dot(self, b)


def accuracy(y, t, ignore_label=None) -> ndarray:
    """The fraction of labels ``t`` that are the argmax of ``y`` over axis 1 (reshaped to
    ``t``'s shape), as ``y``'s dtype; labels ``ignore_label`` are left out (none left: 0)."""
    if y.dtype.kind != "f" or t.dtype.kind != "i":
        raise DtypeError(
            message(
                "chainerx.accuracy",
                f"expected float scores and signed integer labels, got {y.dtype} and {t.dtype}",
                hint="cast the scores to a float dtype and the labels to an int dtype",
            )
        )
    if y.ndim < 2 or y.shape[0] != t.shape[0] or y.size // max(y.shape[1], 1) != t.size:
        raise DimensionError(
            message(
                "chainerx.accuracy",
                f"expected one label per sample and position for scores {y.shape}, got labels {t.shape}",
                hint="y is (N, C, ...) and t holds N * ... labels",
            )
        )
    scores, labels = raw(y), raw(t)
    hit = scores.argmax(axis=1).reshape(labels.shape) == labels
    if ignore_label is None:
        return wrap(hit.astype(scores.dtype).mean(dtype=scores.dtype), y.device)
    kept = labels != ignore_label
    total = int(kept.sum())
    fraction = (hit & kept).sum() / total if total else 0
    return wrap(numpy.asarray(fraction, scores.dtype), y.device)
