"""Chainer's optimizers as pure transformations: one kernel each, in Chainer's update formulas and defaults.

Each factory has the name, argument order and defaults of its ``chainer.optimizers`` class and
returns a ``Transform`` whose state is an ``OptimizerState``: the number of updates done ``t``
(Chainer's ``Optimizer.t``) and, for each parameter, keyed by its path (``"l1/W"``, Chainer's
parameter name), a dict of its state arrays (Chainer's ``update_rule.state``, e.g. ``m`` and
``v`` for Adam). Lowercase aliases (``adam``, ``momentum_sgd``...) name the same factories.

A factory is its kernel, the arithmetic of one parameter's update ``u`` in Chainer's
formulation (``p + u`` is the new parameter); ``fnet.optim.engine`` runs it over the tree.

Hyperparameters:
    * A number, or a schedule: a function of the step count ``t -> value`` (see
      ``fnet.optim.schedules``). A schedule is read at the number of updates done so far, as a
      Chainer shift extension triggered every iteration sets the value that the next update
      uses (``schedule(0)`` for the first one).
    * ``per_param``: a function ``path -> dict or None`` called once per parameter path (the
      answer is cached per tree structure). The dict overrides hyperparameters for that
      parameter (Chainer's ``param.update_rule.hyperparam.lr = ...``); ``{"enabled": False}``
      leaves it as it is, with no state (Chainer's ``update_rule.enabled = False``). ``None``
      keeps the optimizer's values.

>>> import numpy
>>> from fnet import optim
>>> tx = optim.MomentumSGD(lr=0.1, per_param=lambda path: {"lr": 1.0} if path == "b" else None)
>>> params = {"W": numpy.array([1.0]), "b": numpy.array([1.0])}
>>> state = tx.init(params)
>>> params, state = optim.step(tx, {"W": numpy.array([1.0]), "b": numpy.array([1.0])}, state, params)
>>> params, sorted(state.slots["W"])
({'W': array([0.9]), 'b': array([0.])}, ['v'])
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import numpy

from .. import backend
from .._foreign import check_keywords, keyword_names
from ..errors import InvalidInputError, message
from ..recording import opaque
from .engine import Hyper as _Hyper
from .engine import InitSlots, OptimizerState, gradient_method
from .engine import PerParam as _PerParam
from .transform import Transform

# Every factory, by name, in Chainer's order (filled by ``_optimizer``); ``__all__`` is drawn from it
OPTIMIZERS: dict[str, Callable[..., Transform]] = {}


def _optimizer(factory: Callable[..., Transform]) -> Callable[..., Transform]:
    """Register ``factory`` in ``OPTIMIZERS``, answering a keyword argument it lacks (PyTorch's
    ``Adam(lr=...)``) with a TypeError that gives fnet's spelling."""
    accepted = keyword_names(factory)

    @functools.wraps(factory)
    def checked(*args, **kwargs) -> Transform:
        check_keywords(factory.__name__, accepted, kwargs)
        return factory(*args, **kwargs)

    OPTIMIZERS[factory.__name__] = checked
    return checked


def _check_eps(op: str, eps: float, dtype) -> None:
    if eps != 0 and numpy.dtype(dtype).type(eps) == 0:
        raise InvalidInputError(
            message(
                op,
                f"expected eps to be representable in {numpy.dtype(dtype)}, got {eps!r}, which rounds to 0",
                hint="use a larger eps, or parameters of a wider float dtype",
            )
        )


def _times(x, a):
    """``x * a`` in ``x``'s dtype, whatever ``a`` is (a NumPy float64 scalar would widen it)."""
    return x * x.dtype.type(a)


def _zeros(*names: str) -> InitSlots:
    return lambda p, hp: {name: backend.xp(p).zeros_like(p) for name in names}


def _no_slots(p, hp) -> dict:
    return {}


# --- SGD and momentum ----------------------------------------------------------------------------


@_optimizer
def SGD(lr: _Hyper = 0.01, *, per_param: _PerParam = None) -> Transform:
    """Vanilla stochastic gradient descent: ``p -= lr * g``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.SGD(lr=0.1)
    >>> params = {"w": numpy.array([1.0, 2.0])}
    >>> optim.step(tx, {"w": numpy.array([1.0, -1.0])}, tx.init(params), params)[0]
    {'w': array([0.9, 2.1])}
    """

    def kernel(p, g, s, hp, t):
        return _times(g, -hp["lr"]), {}

    return gradient_method("SGD", {"lr": lr}, _no_slots, kernel, per_param)


@_optimizer
def MomentumSGD(lr: _Hyper = 0.01, momentum: _Hyper = 0.9, *, per_param: _PerParam = None) -> Transform:
    """Classical momentum SGD, with the learning rate inside the velocity (Chainer's form).

    ``v = momentum * v - lr * g``, ``p += v``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.MomentumSGD(lr=0.1, momentum=0.5)
    >>> params, g = {"w": numpy.array([1.0])}, {"w": numpy.array([1.0])}
    >>> params, state = optim.step(tx, g, tx.init(params), params)
    >>> params, state = optim.step(tx, g, state, params)
    >>> params["w"], state.slots["w"]["v"]
    (array([0.75]), array([-0.15]))
    """

    def kernel(p, g, s, hp, t):
        v = s["v"] * hp["momentum"]
        v -= hp["lr"] * g
        return v, {"v": v}

    return gradient_method("MomentumSGD", {"lr": lr, "momentum": momentum}, _zeros("v"), kernel, per_param)


@_optimizer
def CorrectedMomentumSGD(
    lr: _Hyper = 0.01, momentum: _Hyper = 0.9, *, per_param: _PerParam = None
) -> Transform:
    """Momentum SGD with the learning rate outside the velocity (Goyal et al.'s correction).

    ``v = momentum * v - g``, ``p += lr * v``: a changing ``lr`` rescales the whole velocity.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.CorrectedMomentumSGD(lr=0.1)
    >>> params = {"w": numpy.array([1.0])}
    >>> optim.step(tx, {"w": numpy.array([2.0])}, tx.init(params), params)[0]
    {'w': array([0.8])}
    """

    def kernel(p, g, s, hp, t):
        v = s["v"] * hp["momentum"]
        v -= g
        return v * hp["lr"], {"v": v}

    return gradient_method(
        "CorrectedMomentumSGD", {"lr": lr, "momentum": momentum}, _zeros("v"), kernel, per_param
    )


@_optimizer
def NesterovAG(lr: _Hyper = 0.01, momentum: _Hyper = 0.9, *, per_param: _PerParam = None) -> Transform:
    """Nesterov's accelerated gradient in Chainer's (Sutskever's) reformulation.

    ``v = momentum * v - lr * g``, ``p += momentum² v - (1 + momentum) lr g``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.NesterovAG(lr=0.1, momentum=0.5)
    >>> params = {"w": numpy.array([1.0])}
    >>> optim.step(tx, {"w": numpy.array([1.0])}, tx.init(params), params)[0]
    {'w': array([0.825])}
    """

    def kernel(p, g, s, hp, t):
        lr, momentum = hp["lr"], hp["momentum"]
        v = s["v"] * momentum
        v -= lr * g
        delta = momentum * momentum * v
        delta -= (1 + momentum) * lr * g
        return delta, {"v": v}

    return gradient_method("NesterovAG", {"lr": lr, "momentum": momentum}, _zeros("v"), kernel, per_param)


# --- adaptive learning rates ---------------------------------------------------------------------


@_optimizer
def AdaGrad(lr: _Hyper = 0.001, eps: _Hyper = 1e-8, *, per_param: _PerParam = None) -> Transform:
    """AdaGrad: ``h += g²``, ``p -= lr g / (sqrt(h) + eps)``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.AdaGrad(lr=0.1)
    >>> params = {"w": numpy.array([1.0])}
    >>> optim.step(tx, {"w": numpy.array([2.0])}, tx.init(params), params)[0]["w"].round(6)
    array([0.9])
    """

    def kernel(p, g, s, hp, t):
        h = g * g
        h += s["h"]
        den = backend.xp(p).sqrt(h)
        den += hp["eps"]
        delta = g * -hp["lr"]
        delta /= den
        return delta, {"h": h}

    return gradient_method("AdaGrad", {"lr": lr, "eps": eps}, _zeros("h"), kernel, per_param)


@_optimizer
def AdaDelta(rho: _Hyper = 0.95, eps: _Hyper = 1e-6, *, per_param: _PerParam = None) -> Transform:
    """Zeiler's ADADELTA: no learning rate; running means of ``g²`` (``msg``) and of the steps² (``msdx``).

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.AdaDelta()
    >>> params = {"w": numpy.array([1.0])}
    >>> new_params, state = optim.step(tx, {"w": numpy.array([1.0])}, tx.init(params), params)
    >>> new_params["w"].round(6), sorted(state.slots["w"])
    (array([0.995528]), ['msdx', 'msg'])
    """

    def kernel(p, g, s, hp, t):
        xp = backend.xp(p)
        rho, eps = hp["rho"], hp["eps"]
        msg = s["msg"] * rho
        msg += (1 - rho) * g * g
        dx = s["msdx"] + eps
        dx /= msg + eps
        xp.sqrt(dx, out=dx)
        dx *= g
        msdx = s["msdx"] * rho
        msdx += (1 - rho) * dx * dx
        xp.negative(dx, out=dx)
        return dx, {"msg": msg, "msdx": msdx}

    return gradient_method("AdaDelta", {"rho": rho, "eps": eps}, _zeros("msg", "msdx"), kernel, per_param)


def adam_step_size(alpha: float, beta1: float, beta2: float, t: int) -> float:
    """Adam's step size at update ``t`` (1 for the first): ``alpha sqrt(1 - beta2^t) / (1 - beta1^t)``.

    The bias correction of both moments folded into one number (Chainer's ``alpha_t``), which
    Adam and its variants multiply by ``m / (sqrt(v) + eps)``.

    >>> round(adam_step_size(0.001, 0.9, 0.999, 1), 12)
    0.000316227766
    """
    if t < 1:
        raise InvalidInputError(
            message(
                "adam_step_size",
                f"expected the update's number t >= 1, got {t!r}",
                hint="t counts the updates from 1: the step size of the first update is at t=1",
            )
        )
    return alpha * math.sqrt(1.0 - math.pow(beta2, t)) / (1.0 - math.pow(beta1, t))


@opaque  # host arithmetic on the count: a captured step computes it again on each replay
def _step_size_of_count(alpha: float, beta1: float, beta2: float, t, dtype):
    """``adam_step_size`` for a count held in an array (``OptimizerState.with_array_count``), as
    a scalar of ``dtype``: the number a Python float step size becomes in the kernel's arithmetic."""
    return dtype.type(adam_step_size(alpha, beta1, beta2, int(t)))


_ADAM_FLAGS = ("amsgrad", "adabound")


def _adam(
    op: str,
    alpha: _Hyper,
    beta1: _Hyper,
    beta2: _Hyper,
    eps: _Hyper,
    eta: _Hyper,
    weight_decay_rate: _Hyper,
    amsgrad: bool,
    adabound: bool,
    final_lr: _Hyper,
    gamma: _Hyper,
    per_param: _PerParam,
) -> Transform:
    """Chainer's AdamRule, shared by Adam and its named variants (``op`` names it in messages)."""
    hyperparam = dict(
        alpha=alpha,
        beta1=beta1,
        beta2=beta2,
        eps=eps,
        eta=eta,
        weight_decay_rate=weight_decay_rate,
        amsgrad=amsgrad,
        adabound=adabound,
        final_lr=final_lr,
        gamma=gamma,
    )
    # AdaBound's bounds follow ``alpha`` relative to its value when the optimizer was set up
    initial_alpha = alpha(0) if callable(alpha) else alpha

    def init_slots(p, hp):
        return _zeros("m", "v", "vhat")(p, hp) if hp["amsgrad"] else _zeros("m", "v")(p, hp)

    def kernel(p, g, s, hp, t):
        xp = backend.xp(p)
        beta1, beta2, eta, wd = hp["beta1"], hp["beta2"], hp["eta"], hp["weight_decay_rate"]
        interm = numpy.float32 if p.dtype == numpy.float16 else p.dtype  # Chainer's intermediate dtype
        _check_eps(op, hp["eps"], interm)
        g = g.astype(interm, copy=False)
        store = (lambda a: a.astype(p.dtype)) if interm != p.dtype else (lambda a: a)
        if isinstance(t, int):
            alpha_t = adam_step_size(hp["alpha"], beta1, beta2, t)
        else:
            alpha_t = _step_size_of_count(hp["alpha"], beta1, beta2, t, numpy.dtype(interm))

        # m = beta1 m + (1 - beta1) g and v = beta2 v + (1 - beta2) g^2, in fresh arrays
        # (Chainer's m += (1 - beta1)(g - m) is the same up to rounding)
        m = g * (1.0 - beta1)
        m += _times(s["m"], beta1)
        m = store(m)
        v = g * (1.0 - beta2)
        v *= g
        v += _times(s["v"], beta2)
        v = store(v)
        new = {"m": m, "v": v}
        if hp["amsgrad"]:
            new["vhat"] = xp.maximum(s["vhat"], v)
        delta = xp.sqrt(new.get("vhat", v), dtype=interm)
        delta += hp["eps"]
        xp.divide(-alpha_t, delta, out=delta)  # -alpha_t / (sqrt(v) + eps), the step with its sign
        if hp["adabound"]:
            final_lr = hp["final_lr"] * hp["alpha"] / initial_alpha
            lower = final_lr * (1.0 - 1.0 / (hp["gamma"] * t + 1))
            upper = final_lr * (1.0 + 1.0 / (hp["gamma"] * t))
            xp.clip(delta, -upper, -lower, out=delta)
        delta *= m
        if eta != 1:
            delta *= eta
        if wd != 0:
            delta -= (eta * wd) * p
        return delta, new

    return gradient_method(op, hyperparam, init_slots, kernel, per_param, _ADAM_FLAGS)


@_optimizer
def Adam(
    alpha: _Hyper = 0.001,
    beta1: _Hyper = 0.9,
    beta2: _Hyper = 0.999,
    eps: _Hyper = 1e-8,
    eta: _Hyper = 1.0,
    weight_decay_rate: _Hyper = 0,
    amsgrad: bool = False,
    adabound: bool = False,
    final_lr: _Hyper = 0.1,
    gamma: _Hyper = 1e-3,
    *,
    per_param: _PerParam = None,
) -> Transform:
    """Adam in Chainer's formulation, with AdamW's decoupled weight decay, AMSGrad and AdaBound.

    ``m += (1 - beta1)(g - m)``, ``v += (1 - beta2)(g² - v)``, then
    ``p -= eta (alpha_t m / (sqrt(v) + eps) + weight_decay_rate p)`` with the bias correction
    folded into ``alpha_t = alpha sqrt(1 - beta2^t) / (1 - beta1^t)`` (eps is added to
    ``sqrt(v)``, not to the corrected one). ``amsgrad`` divides by the running maximum of ``v``;
    ``adabound`` clips the step size ``alpha_t / (sqrt(v) + eps)`` to bounds that converge to
    ``final_lr`` (scaled by ``alpha`` over its initial value) at a speed set by ``gamma``.
    float16 parameters are updated in float32.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.Adam(alpha=0.1)
    >>> params = {"w": numpy.array([1.0, -1.0])}
    >>> optim.step(tx, {"w": numpy.array([0.5, -3.0])}, tx.init(params), params)[0]["w"].round(6)
    array([ 0.9, -0.9])
    """
    return _adam(
        "Adam",
        alpha,
        beta1,
        beta2,
        eps,
        eta,
        weight_decay_rate,
        amsgrad,
        adabound,
        final_lr,
        gamma,
        per_param,
    )


@_optimizer
def AdamW(
    alpha: _Hyper = 0.001,
    beta1: _Hyper = 0.9,
    beta2: _Hyper = 0.999,
    eps: _Hyper = 1e-8,
    eta: _Hyper = 1.0,
    weight_decay_rate: _Hyper = 0,
    *,
    per_param: _PerParam = None,
) -> Transform:
    """Adam with decoupled weight decay: ``p -= eta (alpha_t m / (sqrt(v) + eps) + weight_decay_rate p)``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.AdamW(alpha=0.1, weight_decay_rate=0.5)
    >>> params = {"w": numpy.array([1.0])}
    >>> optim.step(tx, {"w": numpy.array([1.0])}, tx.init(params), params)[0]["w"].round(6)
    array([0.4])
    """
    return _adam(
        "AdamW", alpha, beta1, beta2, eps, eta, weight_decay_rate, False, False, 0.1, 1e-3, per_param
    )


@_optimizer
def AMSGrad(
    alpha: _Hyper = 0.001,
    beta1: _Hyper = 0.9,
    beta2: _Hyper = 0.999,
    eps: _Hyper = 1e-8,
    eta: _Hyper = 1.0,
    *,
    per_param: _PerParam = None,
) -> Transform:
    """Adam dividing by the running maximum ``vhat`` of the second moment (``Adam(amsgrad=True)``).

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.AMSGrad(alpha=0.1)
    >>> params = {"w": numpy.array([1.0])}
    >>> sorted(tx.init(params).slots["w"])
    ['m', 'v', 'vhat']
    """
    return _adam("AMSGrad", alpha, beta1, beta2, eps, eta, 0, True, False, 0.1, 1e-3, per_param)


@_optimizer
def AdaBound(
    alpha: _Hyper = 0.001,
    beta1: _Hyper = 0.9,
    beta2: _Hyper = 0.999,
    final_lr: _Hyper = 0.1,
    gamma: _Hyper = 1e-3,
    eps: _Hyper = 1e-8,
    eta: _Hyper = 1.0,
    *,
    per_param: _PerParam = None,
) -> Transform:
    """Adam whose step size is clipped to bounds converging to ``final_lr`` (``Adam(adabound=True)``).

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.AdaBound(alpha=1.0, final_lr=0.1, gamma=0.5)
    >>> params = {"w": numpy.array([1.0])}
    >>> optim.step(tx, {"w": numpy.array([1.0])}, tx.init(params), params)[0]  # 0.3 (upper bound) * m
    {'w': array([0.97])}
    """
    return _adam("AdaBound", alpha, beta1, beta2, eps, eta, 0, False, True, final_lr, gamma, per_param)


@_optimizer
def AMSBound(
    alpha: _Hyper = 0.001,
    beta1: _Hyper = 0.9,
    beta2: _Hyper = 0.999,
    final_lr: _Hyper = 0.1,
    gamma: _Hyper = 1e-3,
    eps: _Hyper = 1e-8,
    eta: _Hyper = 1.0,
    *,
    per_param: _PerParam = None,
) -> Transform:
    """AdaBound with AMSGrad's running maximum (``Adam(amsgrad=True, adabound=True)``).

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.AMSBound(alpha=1.0, final_lr=0.1, gamma=0.5)
    >>> params = {"w": numpy.array([1.0])}
    >>> optim.step(tx, {"w": numpy.array([1.0])}, tx.init(params), params)[0]
    {'w': array([0.97])}
    """
    return _adam("AMSBound", alpha, beta1, beta2, eps, eta, 0, True, True, final_lr, gamma, per_param)


@_optimizer
def RMSprop(
    lr: _Hyper = 0.01,
    alpha: _Hyper = 0.99,
    eps: _Hyper = 1e-8,
    eps_inside_sqrt: bool = False,
    *,
    per_param: _PerParam = None,
) -> Transform:
    """RMSprop: ``ms = alpha ms + (1 - alpha) g²``, ``p -= lr g / (sqrt(ms) + eps)``.

    With ``eps_inside_sqrt`` the denominator is ``sqrt(ms + eps)`` (as in other frameworks).

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.RMSprop(lr=0.1, alpha=0.75)
    >>> params = {"w": numpy.array([1.0])}
    >>> optim.step(tx, {"w": numpy.array([1.0])}, tx.init(params), params)[0]
    {'w': array([0.8])}
    """

    def kernel(p, g, s, hp, t):
        xp = backend.xp(p)
        alpha = hp["alpha"]
        _check_eps("RMSprop", hp["eps"], g.dtype)
        ms = s["ms"] * alpha
        ms += (1 - alpha) * g * g
        if hp["eps_inside_sqrt"]:
            den = ms + hp["eps"]
            xp.sqrt(den, out=den)
        else:
            den = xp.sqrt(ms)
            den += hp["eps"]
        delta = g * -hp["lr"]
        delta /= den
        return delta, {"ms": ms}

    return gradient_method(
        "RMSprop",
        {"lr": lr, "alpha": alpha, "eps": eps, "eps_inside_sqrt": eps_inside_sqrt},
        _zeros("ms"),
        kernel,
        per_param,
        ("eps_inside_sqrt",),
    )


@_optimizer
def RMSpropGraves(
    lr: _Hyper = 1e-4,
    alpha: _Hyper = 0.95,
    momentum: _Hyper = 0.9,
    eps: _Hyper = 1e-4,
    *,
    per_param: _PerParam = None,
) -> Transform:
    """Alex Graves's RMSprop: divides by the running standard deviation, with momentum.

    ``n = alpha n + (1 - alpha) g²``, ``g_ = alpha g_ + (1 - alpha) g``,
    ``delta = momentum delta - lr g / sqrt(n - g_² + eps)``, ``p += delta``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.RMSpropGraves()
    >>> sorted(tx.init({"w": numpy.zeros(2)}).slots["w"])
    ['delta', 'g', 'n']
    """

    def kernel(p, g, s, hp, t):
        alpha = hp["alpha"]
        n = s["n"] * alpha
        n += (1 - alpha) * g * g
        mean = s["g"] * alpha
        mean += (1 - alpha) * g
        den = n - mean * mean
        den += hp["eps"]
        backend.xp(p).sqrt(den, out=den)
        delta = s["delta"] * hp["momentum"]
        delta -= hp["lr"] * g / den
        return delta, {"n": n, "g": mean, "delta": delta}

    return gradient_method(
        "RMSpropGraves",
        {"lr": lr, "alpha": alpha, "momentum": momentum, "eps": eps},
        _zeros("n", "g", "delta"),
        kernel,
        per_param,
    )


@_optimizer
def SMORMS3(lr: _Hyper = 0.001, eps: _Hyper = 1e-16, *, per_param: _PerParam = None) -> Transform:
    """Simon Funk's SMORMS3: RMSprop with a per-element memory length ``mem`` (starting at 1).

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.SMORMS3(lr=0.1)
    >>> params = {"w": numpy.array([1.0])}
    >>> optim.step(tx, {"w": numpy.array([2.0])}, tx.init(params), params)[0]["w"].round(6)
    array([0.858579])
    """

    def init_slots(p, hp):
        xp = backend.xp(p)
        return {"mem": xp.ones_like(p), "g": xp.zeros_like(p), "g2": xp.zeros_like(p)}

    def kernel(p, g, s, hp, t):
        xp = backend.xp(p)
        eps = hp["eps"]
        r = s["mem"] + 1
        xp.divide(1, r, out=r)
        mean = (1 - r) * s["g"]
        mean += r * g
        mean2 = (1 - r) * s["g2"]
        mean2 += r * g * g
        x = mean * mean
        x /= mean2 + eps
        den = xp.sqrt(mean2)
        den += eps
        delta = g * xp.minimum(x, hp["lr"])
        delta /= den
        xp.negative(delta, out=delta)
        mem = 1 - x
        mem *= s["mem"]
        mem += 1
        return delta, {"mem": mem, "g": mean, "g2": mean2}

    return gradient_method("SMORMS3", {"lr": lr, "eps": eps}, init_slots, kernel, per_param)


@_optimizer
def MSVAG(
    lr: _Hyper = 0.1,
    beta: _Hyper = 0.9,
    eta: _Hyper = 1.0,
    weight_decay_rate: _Hyper = 0,
    *,
    per_param: _PerParam = None,
) -> Transform:
    """M-SVAG (Balles & Hennig): momentum SGD scaled by an estimate of the gradient's variance.

    With decoupled weight decay: ``p -= eta (lr m_t factor + weight_decay_rate p)``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.MSVAG(lr=0.5)
    >>> params = {"w": numpy.array([1.0])}
    >>> optim.step(tx, {"w": numpy.array([1.0])}, tx.init(params), params)[0]
    {'w': array([0.5])}
    """

    def kernel(p, g, s, hp, t):
        xp = backend.xp(p)
        beta, eta, wd = hp["beta"], hp["eta"], hp["weight_decay_rate"]
        beta_power = beta**t
        rho = ((1.0 - beta) ** 2) * (1.0 - beta_power**2) / (((1.0 - beta_power) ** 2) * (1.0 - beta**2))
        rho = min(rho, 0.9999)
        m = g - s["m"]
        m *= 1 - beta
        m += s["m"]
        v = g * g
        v -= s["v"]
        v *= 1 - beta
        v += s["v"]
        mt = m / (1 - beta_power)
        mt2 = mt**2
        variance = v / (1 - beta_power)
        variance -= mt2
        variance /= 1 - rho
        variance *= rho
        variance += mt2
        factor = mt2 / variance
        xp.clip(factor, 0, 1, out=factor)
        factor[xp.isnan(factor)] = 0
        delta = hp["lr"] * mt
        delta *= factor
        if wd != 0:
            delta += wd * p
        delta *= -eta
        return delta, {"m": m, "v": v}

    return gradient_method(
        "MSVAG",
        {"lr": lr, "beta": beta, "eta": eta, "weight_decay_rate": weight_decay_rate},
        _zeros("m", "v"),
        kernel,
        per_param,
    )


sgd = SGD
momentum_sgd = MomentumSGD
corrected_momentum_sgd = CorrectedMomentumSGD
nesterov_ag = NesterovAG
adagrad = AdaGrad
adadelta = AdaDelta
adam = Adam
adamw = AdamW
amsgrad = AMSGrad
adabound = AdaBound
amsbound = AMSBound
rmsprop = RMSprop
rmsprop_graves = RMSpropGraves
smorms3 = SMORMS3
msvag = MSVAG

_ALIASES = [name for name, value in globals().items() if name.islower() and value in OPTIMIZERS.values()]
__all__ = ["OptimizerState", "OPTIMIZERS", "adam_step_size", *OPTIMIZERS, *_ALIASES]
