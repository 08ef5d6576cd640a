"""Normalization layers: Chainer's ``L.BatchNormalization``, ``L.GroupNormalization``, ...

The batch normalizations are stateful: their running statistics (``avg_mean``, ``avg_var`` or
``avg_projection``, and the finetuning count ``N``) live in a state tree made by
``init_state``, and ``apply(params, x, state, *, train=True, finetune=False) -> (y, state)``
returns the updated statistics instead of mutating them. In training (``train=True``) the
batch's statistics normalize ``x`` and are folded into the running ones with ``decay``; with
``finetune=True`` the count ``N`` grows by one and ``decay = 1 - 1 / N``, so the running
statistics become the plain average of every finetuning batch (Chainer's population
statistics); with ``train=False`` the running statistics normalize ``x`` and the state comes
back unchanged. Group and layer normalization have no state.
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs
import numpy

from .. import backend, initializers, ops, random
from .. import functions as F
from ..autodiff.tracer import shape_of as _shape
from ..autodiff.tracer import unbox_all
from ..errors import ArgumentTypeError, InvalidInputError, ShapeError, aval, message
from .layer import Layer, lazy_field

__all__ = [
    "BatchNormalization",
    "BatchRenormalization",
    "DecorrelatedBatchNormalization",
    "GroupNormalization",
    "LayerNormalization",
]


def _check_state(fn: str, state, keys: tuple[str, ...], hint: str = "") -> None:
    """``state`` is a mapping with ``keys`` (as made by the layer's ``init_state``); ``hint``
    is added to the error's."""
    if not isinstance(state, Mapping) or any(k not in state for k in keys):
        got = sorted(state) if isinstance(state, Mapping) else aval(state)
        raise InvalidInputError(
            message(
                fn,
                f"expected state to be a dict with the keys {list(keys)}, got {got}",
                hint="pass the layer's init_state() on the first call, then the state the previous call "
                "returned" + (f"; {hint}" if hint else ""),
            )
        )


def _require_example(fn: str, what: str, x) -> None:
    """A lazy layer (``what`` is None) needs an example input ``x`` to size itself."""
    if x is None:
        raise InvalidInputError(
            message(
                fn,
                f"expected an example input x, got None: {what} is None, so it is inferred from x",
                hint=f"pass a batch of inputs as x to {fn}, or give {what} to the constructor",
            )
        )


def _high_precision(dtype) -> numpy.dtype:
    """Chainer's dtype of parameters and statistics: float32 for None and ``'mixed16'``."""
    if dtype is None or (isinstance(dtype, str) and dtype == "mixed16"):
        return numpy.dtype(numpy.float32)
    return numpy.dtype(dtype)


def _count(state: Mapping, n: int):
    """The finetuning count ``N = n`` as a 0-d int64 array on the device of the statistics."""
    return backend.xp(unbox_all(state["avg_mean"])).asarray(n, numpy.int64)


def _finetune_step(state: Mapping, decay: float, finetune: bool) -> tuple[numpy.ndarray, float]:
    """The new count ``N`` and the decay of a training step: finetuning averages every batch."""
    if not finetune:
        return state["N"], decay
    n = int(state["N"]) + 1
    return _count(state, n), 1.0 - 1.0 / n


def _filled(value, default: float, shape: tuple, dtype, key) -> object:
    """An array drawn from Chainer-style initial ``value`` (None: the constant ``default``), in
    ``dtype`` (None: the initializer's own, else the default, float32)."""
    return initializers.as_initializer(value, initializers.Constant(default))(key, shape, dtype=dtype)


def _scale_shift(key, shape: tuple, dtype, initial_gamma, initial_beta) -> dict:
    """``gamma`` (1 by default) and ``beta`` (0 by default) of ``shape``."""
    gamma_key, beta_key = random.split(key)
    return {
        "gamma": _filled(initial_gamma, 1.0, shape, dtype, gamma_key),
        "beta": _filled(initial_beta, 0.0, shape, dtype, beta_key),
    }


def _as_tuple(fn: str, name: str, value) -> tuple | None:
    """An int or a sequence of ints as a tuple (None stays None); anything else is an
    ArgumentTypeError (a TypeError, as Chainer raises)."""
    if value is None:
        return None
    items = numpy.atleast_1d(numpy.asarray(value, dtype=object))
    if items.ndim != 1 or not all(
        isinstance(v, (int, numpy.integer)) and not isinstance(v, bool) for v in items
    ):
        raise ArgumentTypeError(
            message(
                fn, f"expected {name} to be an int or a tuple of ints, got {value!r}", hint="e.g. 3 or (3, 4)"
            )
        )
    return tuple(int(v) for v in items)


@attrs.frozen(init=False)
class BatchNormalization(Layer):
    """Batch normalization with learned scale ``gamma`` and shift ``beta``, as Chainer's link.

    ``size`` is the shape of ``gamma`` (an int for one value per channel: ``(N, C, ...)``
    inputs are normalized over axis 0 and the spatial axes); given ``axis`` instead (the axes
    normalized over), ``size`` may be None and is inferred from the example input of
    ``init(key, x)`` / ``init_state(x)``. ``gamma`` starts at ``initial_gamma`` (1), ``beta``
    at ``initial_beta`` (0), ``avg_mean`` at ``initial_avg_mean`` (0), ``avg_var`` at
    ``initial_avg_var`` (1), all in ``dtype`` (float32 by default); ``use_gamma=False`` /
    ``use_beta=False`` drop a parameter (fixed at 1 / 0). State: ``avg_mean``, ``avg_var`` and
    the finetuning count ``N`` (int64). ``apply(params, x, state, *, train=True,
    finetune=False) -> (y, state)``; ``start_finetuning(state)`` resets ``N``.

    >>> import numpy, fnet
    >>> bn = BatchNormalization(3)
    >>> params, state = bn.init(fnet.random.key(0)), bn.init_state()
    >>> x = numpy.arange(12, dtype=numpy.float32).reshape(4, 3)
    >>> y, state = bn(params, x, state)
    >>> y.mean(axis=0).round(5) + 0.0, state["avg_mean"].round(5), state["N"]
    (array([0., 0., 0.], dtype=float32), array([0.45, 0.55, 0.65], dtype=float32), array(0))
    """

    size: tuple | None = lazy_field(sizes=("gamma", "beta", "avg_mean", "avg_var"))
    decay: float = 0.9
    eps: float = 2e-5
    dtype: object = None
    use_gamma: bool = True
    use_beta: bool = True
    initial_gamma: object = None
    initial_beta: object = None
    axis: tuple | None = None
    initial_avg_mean: object = None
    initial_avg_var: object = None
    stateful = True

    def __init__(
        self,
        size: int | tuple | None = None,
        decay: float = 0.9,
        eps: float = 2e-5,
        dtype=None,
        use_gamma: bool = True,
        use_beta: bool = True,
        initial_gamma=None,
        initial_beta=None,
        axis: int | tuple | None = None,
        initial_avg_mean=None,
        initial_avg_var=None,
    ):
        if size is None and axis is None:
            raise InvalidInputError(
                message(
                    "BatchNormalization",
                    "expected size or axis (size or axis is required), got neither",
                    hint="give size (the number of channels) or the axes to normalize over",
                )
            )
        self.__attrs_init__(
            _as_tuple("BatchNormalization", "size", size),
            decay,
            eps,
            dtype,
            use_gamma,
            use_beta,
            initial_gamma,
            initial_beta,
            _as_tuple("BatchNormalization", "axis", axis),
            initial_avg_mean,
            initial_avg_var,
        )

    # -- shapes and initial values -------------------------------------------------------------
    def _param_shape(self, fn: str, x) -> tuple:
        if self.size is not None:
            return self.size
        _require_example(fn, "size", x)
        shape = _shape(x)
        normalized = {a % len(shape) for a in self.axis}
        return tuple(d for i, d in enumerate(shape) if i not in normalized)

    def init(self, key, x=None) -> dict:
        """``gamma`` and ``beta`` (those in use), each of ``size`` (inferred from ``x`` if None)."""
        shape = self._param_shape(f"{type(self).__name__}.init", x)
        params = _scale_shift(key, shape, _high_precision(self.dtype), self.initial_gamma, self.initial_beta)
        used = {"gamma": self.use_gamma, "beta": self.use_beta}
        return {name: value for name, value in params.items() if used[name]}

    def init_state(self, x=None, *, key=None) -> dict:
        """The running statistics ``avg_mean`` and ``avg_var`` and the count ``N = 0``.

        ``x`` sizes them when ``size`` is None; ``key`` is needed only by random initializers
        given as ``initial_avg_mean`` / ``initial_avg_var`` (constants ignore it).
        """
        shape = self._param_shape(f"{type(self).__name__}.init_state", x)
        dtype = _high_precision(self.dtype)
        mean_key, var_key = (None, None) if key is None else random.split(key)
        return {
            "avg_mean": _filled(self.initial_avg_mean, 0.0, shape, dtype, mean_key),
            "avg_var": _filled(self.initial_avg_var, 1.0, shape, dtype, var_key),
            "N": numpy.asarray(0, numpy.int64),
        }

    @staticmethod
    def start_finetuning(state: Mapping) -> dict:
        """``state`` with the finetuning count ``N`` reset to 0 (a new population average)."""
        return {**state, "N": _count(state, 0)}

    # -- computation -------------------------------------------------------------------------
    def _affine(self, params: Mapping, state: Mapping, dtype) -> tuple:
        """``gamma`` and ``beta``, as ones / zeros of the statistics' shape when not in use."""
        xp = backend.xp(state["avg_mean"])
        shape = _shape(state["avg_mean"])
        gamma = params["gamma"] if self.use_gamma else xp.ones(shape, dtype)
        beta = params["beta"] if self.use_beta else xp.zeros(shape, dtype)
        return gamma, beta

    def _train_step(self, gamma, beta, x, state: Mapping, decay: float) -> tuple:
        return F.batch_normalization(
            x,
            gamma,
            beta,
            eps=self.eps,
            running_mean=state["avg_mean"],
            running_var=state["avg_var"],
            decay=decay,
            axis=self.axis,
        )

    def _missing_dtype(self, x, state: Mapping):
        """The dtype of the stand-ins for unused gamma / beta (Chainer's: the statistics')."""
        return unbox_all(state["avg_mean"]).dtype

    def apply(self, params, x, state, *, train: bool = True, finetune: bool = False) -> tuple:
        """``(y, state)``: normalized with the batch's statistics (``train``) or the running ones."""
        fn = f"{type(self).__name__}.apply"
        _check_state(fn, state, ("avg_mean", "avg_var", "N"))
        gamma, beta = self._affine(params, state, self._missing_dtype(x, state))
        if not train:
            y = F.fixed_batch_normalization(
                x, gamma, beta, state["avg_mean"], state["avg_var"], self.eps, axis=self.axis
            )
            return y, state
        n, decay = _finetune_step(state, self.decay, finetune)
        y, (mean, var) = self._train_step(gamma, beta, x, state, decay)
        return y, {"avg_mean": mean, "avg_var": var, "N": n}


@attrs.frozen(init=False)
class BatchRenormalization(BatchNormalization):
    """Batch renormalization, as Chainer's link: batch normalization corrected towards the
    running statistics by ``r`` (clipped to ``[1/rmax, rmax]``) and ``d`` (to ``[-dmax,
    dmax]``), so that training and inference agree; ``rmax=1, dmax=0`` is plain batch
    normalization. Parameters, state and ``apply`` as ``BatchNormalization`` (normalized over
    axis 0 and the spatial axes; ``size`` is required). Unlike Chainer 7.8.1, whose constructor
    shifts ``initial_avg_mean`` into ``axis`` and ``initial_avg_var`` into ``initial_avg_mean``,
    the initial statistics are used as named.

    >>> import numpy, fnet
    >>> brn = BatchRenormalization(2, rmax=2.0, dmax=1.0)
    >>> params, state = brn.init(fnet.random.key(0)), brn.init_state()
    >>> y, state = brn(params, numpy.ones((3, 2), numpy.float32), state)
    >>> y.round(4)  # d = (1 - 0) / sqrt(1 + eps), within dmax
    array([[1., 1.],
           [1., 1.],
           [1., 1.]], dtype=float32)
    """

    rmax: float = 1.0
    dmax: float = 0.0

    def __init__(
        self,
        size: int | tuple,
        rmax: float = 1,
        dmax: float = 0,
        decay: float = 0.9,
        eps: float = 2e-5,
        dtype=None,
        use_gamma: bool = True,
        use_beta: bool = True,
        initial_gamma=None,
        initial_beta=None,
        initial_avg_mean=None,
        initial_avg_var=None,
    ):
        if size is None:
            raise InvalidInputError(
                message(
                    "BatchRenormalization",
                    "expected size, got None",
                    hint="give the number of channels (the shape of gamma)",
                )
            )
        self.__attrs_init__(
            _as_tuple("BatchRenormalization", "size", size),
            decay,
            eps,
            dtype,
            use_gamma,
            use_beta,
            initial_gamma,
            initial_beta,
            None,
            initial_avg_mean,
            initial_avg_var,
            rmax,
            dmax,
        )

    def _missing_dtype(self, x, state: Mapping):
        return unbox_all(x).dtype  # Chainer's renormalization makes them in x's dtype

    def _train_step(self, gamma, beta, x, state: Mapping, decay: float) -> tuple:
        return F.batch_renormalization(
            x,
            gamma,
            beta,
            self.rmax,
            self.dmax,
            self.eps,
            state["avg_mean"],
            state["avg_var"],
            decay,
            update_statistics=True,
        )


@attrs.frozen(init=False)
class DecorrelatedBatchNormalization(Layer):
    """Decorrelated batch normalization, as Chainer's link: ZCA whitening of groups of channels.

    The ``size`` channels are split into ``groups`` groups of ``C = size // groups``; there are
    no parameters. State: ``avg_mean`` ``(groups, C)`` (zeros), ``avg_projection`` ``(groups,
    C, C)`` (identities), in ``dtype``, and the finetuning count ``N``. ``apply(params, x,
    state, *, train=True, finetune=False) -> (y, state)`` whitens with the batch's covariance
    in training and with ``avg_projection`` otherwise.

    >>> import numpy, fnet
    >>> dbn = DecorrelatedBatchNormalization(2, groups=1)
    >>> x = numpy.array([[1.0, 0.0], [-1.0, 2.0], [0.0, -2.0]], numpy.float32)
    >>> y, state = dbn({}, x, dbn.init_state())
    >>> (y.T @ y / 3).round(3) + 0.0
    array([[1., 0.],
           [0., 1.]], dtype=float32)
    """

    size: int
    groups: int = 16
    decay: float = 0.9
    eps: float = 2e-5
    dtype: object = numpy.float32
    stateful = True

    def __init__(
        self, size: int, groups: int = 16, decay: float = 0.9, eps: float = 2e-5, dtype=numpy.float32
    ):
        if size % groups:
            raise InvalidInputError(
                message(
                    "DecorrelatedBatchNormalization",
                    f"expected size to be divisible by groups, got size={size} and groups={groups}",
                    hint="each group holds size // groups channels; pick groups dividing size",
                )
            )
        self.__attrs_init__(size, groups, decay, eps, dtype)

    def init(self, key) -> dict:
        """No parameters: ``{}``."""
        return {}

    def init_state(self) -> dict:
        """``avg_mean`` (zeros), ``avg_projection`` (identity per group) and ``N = 0``."""
        size = self.size // self.groups
        return {
            "avg_mean": numpy.zeros((self.groups, size), self.dtype),
            "avg_projection": numpy.broadcast_to(
                numpy.eye(size, dtype=self.dtype), (self.groups, size, size)
            ).copy(),
            "N": numpy.asarray(0, numpy.int64),
        }

    start_finetuning = staticmethod(BatchNormalization.start_finetuning)

    def apply(self, params, x, state, *, train: bool = True, finetune: bool = False) -> tuple:
        """``(y, state)``: whitened with the batch's statistics (``train``) or the running ones."""
        _check_state(f"{type(self).__name__}.apply", state, ("avg_mean", "avg_projection", "N"))
        if not train:  # the statistics are the layer's own: they follow x's float dtype
            dtype = unbox_all(x).dtype
            mean, projection = (ops.astype(state[k], dtype) for k in ("avg_mean", "avg_projection"))
            y = F.fixed_decorrelated_batch_normalization(x, mean, projection, groups=self.groups)
            return y, state
        n, decay = _finetune_step(state, self.decay, finetune)
        y, (mean, projection) = F.decorrelated_batch_normalization(
            x,
            groups=self.groups,
            eps=self.eps,
            running_mean=state["avg_mean"],
            running_projection=state["avg_projection"],
            decay=decay,
        )
        return y, {"avg_mean": mean, "avg_projection": projection, "N": n}


@attrs.frozen
class GroupNormalization(Layer):
    """Group normalization, as Chainer's link: ``F.group_normalization`` with learned ``gamma``
    (``initial_gamma``, 1) and ``beta`` (``initial_beta``, 0) of one value per channel.

    ``size`` (the channels, axis 1 of ``x``) may be None: ``init(key, x)`` takes it from an
    example input. ``apply(params, x)``.

    >>> import numpy, fnet
    >>> gn = GroupNormalization(2, 4)
    >>> x = numpy.array([[1.0, 3.0, 10.0, 30.0]], numpy.float32)
    >>> gn(gn.init(fnet.random.key(0)), x).round(3)
    array([[-1.,  1., -1.,  1.]], dtype=float32)
    """

    groups: int
    size: int | None = lazy_field(default=None, sizes=("gamma", "beta"))
    eps: float = 1e-5
    initial_gamma: object = None
    initial_beta: object = None

    def init(self, key, x=None) -> dict:
        """``gamma`` and ``beta`` of shape ``(size,)``, size from ``x.shape[1]`` if None."""
        size = self.size
        if size is None:
            fn = "GroupNormalization.init"
            _require_example(fn, "size", x)
            if len(_shape(x)) < 2:
                raise ShapeError(
                    message(
                        fn,
                        f"expected x.ndim >= 2, got {len(_shape(x))}",
                        {"x": x},
                        "x is (batch, channels, ...): size is x.shape[1]",
                    )
                )
            size = _shape(x)[1]
        return _scale_shift(key, (size,), None, self.initial_gamma, self.initial_beta)

    def apply(self, params, x):
        """``F.group_normalization(x, groups, gamma, beta, eps)``."""
        return F.group_normalization(x, self.groups, params["gamma"], params["beta"], self.eps)


@attrs.frozen
class LayerNormalization(Layer):
    """Layer normalization, as Chainer's link: ``F.layer_normalization`` on ``(batch, units)``
    inputs with learned ``gamma`` (``initial_gamma``, 1) and ``beta`` (``initial_beta``, 0).

    ``size`` may be None: ``init(key, x)`` takes ``prod(x.shape[1:])``. Note the default
    ``eps=1e-6`` (the function's is 1e-5). ``apply(params, x)``.

    >>> import numpy, fnet
    >>> ln = LayerNormalization(2)
    >>> ln(ln.init(fnet.random.key(0)), numpy.array([[1.0, 3.0]], numpy.float32)).round(4)
    array([[-1.,  1.]], dtype=float32)
    """

    size: int | None = lazy_field(default=None, sizes=("gamma", "beta"))
    eps: float = 1e-6
    initial_gamma: object = None
    initial_beta: object = None

    def init(self, key, x=None) -> dict:
        """``gamma`` and ``beta`` of shape ``(size,)``, size from ``x`` if None."""
        size = self.size
        if size is None:
            _require_example("LayerNormalization.init", "size", x)
            size = int(numpy.prod(_shape(x)[1:]))
        return _scale_shift(key, (size,), None, self.initial_gamma, self.initial_beta)

    def apply(self, params, x):
        """``F.layer_normalization(x, gamma, beta, eps)``."""
        return F.layer_normalization(x, params["gamma"], params["beta"], self.eps)
