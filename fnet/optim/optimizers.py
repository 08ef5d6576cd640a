"""Chainer's optimizers as pure transformations, in Chainer's update formulas and defaults.

Each factory has the name, argument order and defaults of its ``chainer.optimizers`` class and
returns a ``Transform`` whose state is an ``OptimizerState``: the number of updates done ``t``
(Chainer's ``Optimizer.t``) and, for each parameter, keyed by its path (``"l1/W"``, Chainer's
parameter name), a dict of its state arrays (Chainer's ``update_rule.state``, e.g. ``m`` and
``v`` for Adam). Lowercase aliases (``adam``, ``momentum_sgd``...) name the same factories.

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

``tx.step(grads, state, params)`` computes each new parameter in one pass over fresh arrays, in
Chainer's arithmetic; ``tx.update`` returns the difference that ``apply_updates`` adds instead.

>>> import numpy
>>> from fnet import optim
>>> tx = optim.MomentumSGD(lr=0.1, per_param=lambda path: {"lr": 1.0} if path == "b" else None)
>>> params = {"W": numpy.array([1.0]), "b": numpy.array([1.0])}
>>> state = tx.init(params)
>>> params, state = tx.step({"W": numpy.array([1.0]), "b": numpy.array([1.0])}, state, params)
>>> params, sorted(state.slots["W"])
({'W': array([0.9]), 'b': array([0.])}, ['v'])
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable
from typing import Any

import attrs
import numpy

from .. import backend, tree
from .._foreign import check_keywords, keyword_names
from ..errors import DTypeError, InvalidInputError, ShapeError, TreeStructureError, aval, message
from .transform import Transform, _describe

__all__ = [
    "OptimizerState",
    "SGD",
    "MomentumSGD",
    "CorrectedMomentumSGD",
    "NesterovAG",
    "AdaGrad",
    "AdaDelta",
    "Adam",
    "AdamW",
    "AMSGrad",
    "AdaBound",
    "AMSBound",
    "RMSprop",
    "RMSpropGraves",
    "SMORMS3",
    "MSVAG",
    "sgd",
    "momentum_sgd",
    "corrected_momentum_sgd",
    "nesterov_ag",
    "adagrad",
    "adadelta",
    "adam",
    "adamw",
    "amsgrad",
    "adabound",
    "amsbound",
    "rmsprop",
    "rmsprop_graves",
    "smorms3",
    "msvag",
]

_PerParam = Callable[[str], dict | None] | None
_Hyper = float | Callable[[int], float]


def _slots_repr(slots: dict) -> str:
    """The slots with each array shown as its aval (``float32[3, 4]``), never its values."""
    shown = (
        f"{path!r}: {{{', '.join(f'{k!r}: {aval(a)}' for k, a in s.items())}}}" for path, s in slots.items()
    )
    return "{" + ", ".join(shown) + "}"


@attrs.frozen
class OptimizerState:
    """The state of an optimizer: ``t`` updates done, and each parameter's state arrays.

    Attributes:
        t: the number of updates done (Chainer's ``Optimizer.t``).
        slots: ``{path: {name: array}}``, e.g. ``{"l1/W": {"m": ..., "v": ...}}`` for Adam
            (Chainer's ``update_rule.state`` of the parameter named ``path``); ``{}`` for a
            stateless optimizer (SGD) or a disabled parameter.

    >>> import numpy
    >>> from fnet import optim
    >>> optim.Adam().init({"W": numpy.zeros((2, 3), numpy.float32)})
    OptimizerState(t=0, slots={'W': {'m': float32[2, 3], 'v': float32[2, 3]}})
    """

    t: int
    slots: dict = attrs.field(repr=_slots_repr)


@attrs.frozen
class _Leaf:
    """How one parameter is updated: its path, whether it is updated, and its hyperparameter overrides."""

    path: str
    enabled: bool
    overrides: dict


# A rule's state arrays for one parameter: (param, hyperparameters at t=0) -> {name: array}
_InitSlots = Callable[[Any, dict], dict]
# One update of one parameter: (param, grad, its state, hyperparameters, t) -> (delta, new state).
# ``param + delta`` is the new parameter. ``delta`` is either one of the new state arrays or a
# fresh array that the rule made (then ``step`` adds the parameter into it in place).
_Kernel = Callable[[Any, Any, dict, dict, int], tuple[Any, dict]]


def _resolve(values: dict, t: int) -> dict:
    return {k: v(t) if callable(v) else v for k, v in values.items()}


def _foreign_spellings_explained(factory: Callable[..., Transform]) -> Callable[..., Transform]:
    """``factory``, answering a keyword argument it lacks (PyTorch's ``Adam(lr=...)``) with a
    TypeError that gives fnet's spelling."""
    accepted = keyword_names(factory)

    @functools.wraps(factory)
    def checked(*args, **kwargs) -> Transform:
        check_keywords(factory.__name__, accepted, kwargs)
        return factory(*args, **kwargs)

    return checked


def _check_hyperparams(op: str, values: dict, flags: tuple[str, ...]) -> None:
    for key, value in values.items():
        if key in flags:
            if not isinstance(value, (bool, numpy.bool_)):
                raise InvalidInputError(
                    message(
                        op, f"expected {key} to be a bool, got {value!r}", hint=f"pass {key}=True or False"
                    )
                )
        elif callable(value):
            continue
        elif isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise InvalidInputError(
                message(
                    op,
                    f"expected {key} to be a number or a schedule (a function of the step), got {value!r}",
                    hint=f"e.g. {key}=0.01 or {key}=fnet.optim.schedules.exponential(0.01, 0.5)",
                )
            )


def _leaf_plan(op: str, defaults: dict, flags: tuple, per_param: _PerParam, path: str) -> _Leaf:
    overrides = per_param(path) if per_param is not None else None
    if overrides is None:
        return _Leaf(path, True, {})
    if not isinstance(overrides, dict):
        raise InvalidInputError(
            message(
                op,
                f"expected per_param({path!r}) to return a dict or None, got {type(overrides).__name__}",
                hint="return e.g. {'lr': 0.1} to override a hyperparameter, {'enabled': False} to "
                "freeze the parameter, or None to keep the optimizer's values",
            )
        )
    overrides = dict(overrides)
    enabled = overrides.pop("enabled", True)
    unknown = sorted(set(overrides) - set(defaults))
    if unknown:
        raise InvalidInputError(
            message(
                op,
                f"per_param({path!r}) returned unknown hyperparameters {unknown}",
                hint=f"{op}'s hyperparameters are {', '.join(defaults)} (and 'enabled')",
            )
        )
    if not isinstance(enabled, (bool, numpy.bool_)):
        raise InvalidInputError(
            message(op, f"expected per_param({path!r})['enabled'] to be a bool, got {enabled!r}")
        )
    _check_hyperparams(f"{op} (per_param({path!r}))", overrides, flags)
    return _Leaf(path, bool(enabled), overrides)


def _check_param(op: str, path: str, p) -> None:
    if not backend.is_array(p):
        raise InvalidInputError(
            message(
                op,
                f"expected params[{path!r}] to be an array, got {type(p).__name__}",
                hint="parameters are NumPy or CuPy arrays, e.g. numpy.asarray(value, numpy.float32)",
            )
        )


def _check_grad(op: str, path: str, p, g) -> None:
    if getattr(g, "shape", None) != p.shape:
        raise ShapeError(
            message(
                op,
                f"expected grads[{path!r}].shape == params[{path!r}].shape, "
                f"got {getattr(g, 'shape', None)} != {p.shape}",
                {"grad": g, "param": p},
                "pass the gradients of this params tree, e.g. from fnet.grad(loss)(params, ...)",
            )
        )
    if g.dtype != p.dtype:
        raise DTypeError(
            message(
                op,
                f"expected grads[{path!r}] to have the parameter's dtype {p.dtype}, got {g.dtype}",
                {"grad": g, "param": p},
                f"cast the gradient, e.g. grad.astype(numpy.{p.dtype})",
            )
        )


def _check_eps(op: str, eps: float, dtype) -> None:
    if eps != 0 and numpy.dtype(dtype).type(eps) == 0:
        raise InvalidInputError(
            message(
                op,
                f"expected eps to be representable in {numpy.dtype(dtype)}, got {eps!r}, which rounds to 0",
                hint="use a larger eps, or parameters of a wider float dtype",
            )
        )


def _gradient_method(
    op: str,
    hyperparam: dict,
    init_slots: _InitSlots,
    kernel: _Kernel,
    per_param: _PerParam,
    flags: tuple[str, ...] = (),
) -> Transform:
    """A Transform running ``kernel`` on every enabled parameter, with Chainer's per-parameter rules."""
    _check_hyperparams(op, hyperparam, flags)
    if per_param is not None and not callable(per_param):
        raise InvalidInputError(
            message(
                op,
                f"expected per_param to be a function of a parameter path, got {type(per_param).__name__}",
                hint="e.g. per_param=lambda path: {'lr': 0.1} if path.endswith('/b') else None",
            )
        )
    plans: dict[tree.Structure, list[_Leaf]] = {}  # a cache: per_param is asked once per path

    def plan(params) -> tuple[list, tree.Structure, list[_Leaf]]:
        leaves, structure = tree.flatten(params)
        leaf_plans = plans.get(structure)
        if leaf_plans is None:
            paths = [tree.path_str(path) for path, _ in tree.flatten_with_paths(params)]
            if len(set(paths)) != len(paths):
                raise InvalidInputError(
                    message(
                        op,
                        "expected every parameter to have its own path, got repeated paths "
                        f"{sorted({p for p in paths if paths.count(p) > 1})}",
                        hint="parameter paths join the tree's keys with '/': avoid keys that contain '/'",
                    )
                )
            leaf_plans = [_leaf_plan(op, hyperparam, flags, per_param, path) for path in paths]
            if len(plans) >= 16:
                plans.clear()
            plans[structure] = leaf_plans
        return leaves, structure, leaf_plans

    def init(params) -> OptimizerState:
        leaves, _, leaf_plans = plan(params)
        base = _resolve(hyperparam, 0)
        slots = {}
        for leaf, p in zip(leaf_plans, leaves):
            _check_param(f"{op}.init", leaf.path, p)
            slots[leaf.path] = init_slots(p, {**base, **_resolve(leaf.overrides, 0)}) if leaf.enabled else {}
        return OptimizerState(0, slots)

    def run(grads, state, params, mode: str):
        fused = mode != "update"
        name = f"{op}.{mode}"
        if not isinstance(state, OptimizerState):
            raise InvalidInputError(
                message(
                    name,
                    f"expected an OptimizerState, got {type(state).__name__}",
                    hint="pass the state that this optimizer's init(params) (or its last update) returned",
                )
            )
        if params is None:
            raise InvalidInputError(
                message(name, "expected params, got None", hint="Chainer's update rules read the parameters")
            )
        leaves, structure, leaf_plans = plan(params)
        g_leaves, g_structure = tree.flatten(grads)
        if g_structure != structure:
            raise tree.structure_mismatch(name, grads, params, ("grads", "params"))
        base = _resolve(hyperparam, state.t)
        t = state.t + 1
        slots, out = {}, []
        for leaf, p, g in zip(leaf_plans, leaves, g_leaves):
            s = state.slots.get(leaf.path)
            if s is None:
                raise TreeStructureError(
                    message(
                        name,
                        f"the state has no entry for parameter {leaf.path!r}",
                        hint="the params tree changed since init: call init(params) again",
                    )
                )
            if not leaf.enabled:
                slots[leaf.path] = s
                out.append(p if fused else backend.xp(p).zeros_like(p))
                continue
            _check_param(name, leaf.path, p)
            _check_grad(name, leaf.path, p, g)
            hp = {**base, **_resolve(leaf.overrides, state.t)} if leaf.overrides else base
            original = p
            scalar = p.ndim == 0  # the rules write into their fresh arrays: give them 1-d ones
            if scalar:
                p, g, s = p.reshape(1), g.reshape(1), {k: a.reshape(1) for k, a in s.items()}
            delta, new = kernel(p, g, s, hp, t)
            if mode == "step_in_place" and delta.dtype == p.dtype:
                if type(delta) is _Scaled:
                    _axpy(delta.a, delta.x, p)  # SGD: no array for the new parameter
                else:
                    p += delta
                slots[leaf.path] = {k: a.reshape(()) for k, a in new.items()} if scalar else new
                out.append(p.reshape(()) if scalar else p)
                continue
            if type(delta) is _Scaled:
                delta = _scaled(delta.a, delta.x)
            if fused:
                if any(delta is a for a in new.values()):
                    delta = delta + p
                else:
                    delta += p  # the rule's own fresh array
            if scalar:
                delta, new = delta.reshape(()), {k: a.reshape(()) for k, a in new.items()}
            slots[leaf.path] = new
            if delta.dtype != p.dtype:  # float16 parameters updated in float32 (Adam)
                delta = delta.astype(p.dtype)
            if mode == "step_in_place":
                original[...] = delta
                delta = original
            out.append(delta)
        return tree.unflatten(structure, out), OptimizerState(t, slots)

    def step_in_place(grads, state, params):
        return run(grads, state, params, "step_in_place")[1]

    def values(state, last_update: bool) -> dict:
        if not isinstance(state, OptimizerState):
            raise InvalidInputError(
                message(
                    f"{op}.hyperparams",
                    f"expected an OptimizerState, got {type(state).__name__}",
                    hint="pass the state that this optimizer's init(params) (or its last update) returned",
                )
            )
        return _resolve(hyperparam, max(state.t - 1, 0) if last_update else state.t)

    return Transform(
        init,
        lambda grads, state, params=None: run(grads, state, params, "update"),
        fused=lambda grads, state, params: run(grads, state, params, "step"),
        in_place=step_in_place,
        description=_describe(op, **hyperparam, per_param=per_param),
        values=values,
    )


@attrs.frozen
class _Scaled:
    """A rule's update ``a * x`` not yet computed, so that applying it in place needs no
    array for the new parameter (see ``_scaled``)."""

    a: float
    x: Any

    @property
    def dtype(self):
        return self.x.dtype


def _scaled(a: float, x):
    """``a * x``, rounded once, in ``x``'s dtype: the one product behind ``_Scaled`` and ``_axpy``.

    The pure step adds the parameter into it (``a x + p``), the in-place step adds it into the
    parameter (``p + a x``). Both are the same two roundings (the product's, then the sum's;
    an IEEE sum is exactly rounded and commutative), so ``step_in_place`` writes, bit for bit,
    what ``step`` returns, on every CPU. BLAS's axpy may fuse the two into one rounding (an
    FMA, as OpenBLAS's AVX2 and AVX-512 kernels do), and SciPy's would be a second BLAS with
    its own thread pool beside NumPy's: neither is used.
    """
    return x * x.dtype.type(a)


def _axpy(a: float, x, y) -> None:
    """``y += a * x`` in place, through NumPy's (or CuPy's) own operations: ``y + _scaled(a, x)``."""
    y += _scaled(a, x)


def _zeros(*names: str) -> _InitSlots:
    return lambda p, hp: {name: backend.xp(p).zeros_like(p) for name in names}


def _no_slots(p, hp) -> dict:
    return {}


# --- SGD and momentum ----------------------------------------------------------------------------


@_foreign_spellings_explained
def SGD(lr: _Hyper = 0.01, *, per_param: _PerParam = None) -> Transform:
    """Vanilla stochastic gradient descent: ``p -= lr * g``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.SGD(lr=0.1)
    >>> params = {"w": numpy.array([1.0, 2.0])}
    >>> tx.step({"w": numpy.array([1.0, -1.0])}, tx.init(params), params)[0]
    {'w': array([0.9, 2.1])}
    """

    def kernel(p, g, s, hp, t):
        return _Scaled(-hp["lr"], g), {}

    return _gradient_method("SGD", {"lr": lr}, _no_slots, kernel, per_param)


@_foreign_spellings_explained
def MomentumSGD(lr: _Hyper = 0.01, momentum: _Hyper = 0.9, *, per_param: _PerParam = None) -> Transform:
    """Classical momentum SGD, with the learning rate inside the velocity (Chainer's form).

    ``v = momentum * v - lr * g``, ``p += v``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.MomentumSGD(lr=0.1, momentum=0.5)
    >>> params, g = {"w": numpy.array([1.0])}, {"w": numpy.array([1.0])}
    >>> params, state = tx.step(g, tx.init(params), params)
    >>> params, state = tx.step(g, state, params)
    >>> params["w"], state.slots["w"]["v"]
    (array([0.75]), array([-0.15]))
    """

    def kernel(p, g, s, hp, t):
        v = s["v"] * hp["momentum"]
        v -= hp["lr"] * g
        return v, {"v": v}

    return _gradient_method("MomentumSGD", {"lr": lr, "momentum": momentum}, _zeros("v"), kernel, per_param)


@_foreign_spellings_explained
def CorrectedMomentumSGD(
    lr: _Hyper = 0.01, momentum: _Hyper = 0.9, *, per_param: _PerParam = None
) -> Transform:
    """Momentum SGD with the learning rate outside the velocity (Goyal et al.'s correction).

    ``v = momentum * v - g``, ``p += lr * v``: a changing ``lr`` rescales the whole velocity.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.CorrectedMomentumSGD(lr=0.1)
    >>> params = {"w": numpy.array([1.0])}
    >>> tx.step({"w": numpy.array([2.0])}, tx.init(params), params)[0]
    {'w': array([0.8])}
    """

    def kernel(p, g, s, hp, t):
        v = s["v"] * hp["momentum"]
        v -= g
        return v * hp["lr"], {"v": v}

    return _gradient_method(
        "CorrectedMomentumSGD", {"lr": lr, "momentum": momentum}, _zeros("v"), kernel, per_param
    )


@_foreign_spellings_explained
def NesterovAG(lr: _Hyper = 0.01, momentum: _Hyper = 0.9, *, per_param: _PerParam = None) -> Transform:
    """Nesterov's accelerated gradient in Chainer's (Sutskever's) reformulation.

    ``v = momentum * v - lr * g``, ``p += momentum² v - (1 + momentum) lr g``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.NesterovAG(lr=0.1, momentum=0.5)
    >>> params = {"w": numpy.array([1.0])}
    >>> tx.step({"w": numpy.array([1.0])}, tx.init(params), params)[0]
    {'w': array([0.825])}
    """

    def kernel(p, g, s, hp, t):
        lr, momentum = hp["lr"], hp["momentum"]
        v = s["v"] * momentum
        v -= lr * g
        delta = momentum * momentum * v
        delta -= (1 + momentum) * lr * g
        return delta, {"v": v}

    return _gradient_method("NesterovAG", {"lr": lr, "momentum": momentum}, _zeros("v"), kernel, per_param)


# --- adaptive learning rates ---------------------------------------------------------------------


@_foreign_spellings_explained
def AdaGrad(lr: _Hyper = 0.001, eps: _Hyper = 1e-8, *, per_param: _PerParam = None) -> Transform:
    """AdaGrad: ``h += g²``, ``p -= lr g / (sqrt(h) + eps)``.

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.AdaGrad(lr=0.1)
    >>> params = {"w": numpy.array([1.0])}
    >>> tx.step({"w": numpy.array([2.0])}, tx.init(params), params)[0]["w"].round(6)
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

    return _gradient_method("AdaGrad", {"lr": lr, "eps": eps}, _zeros("h"), kernel, per_param)


@_foreign_spellings_explained
def AdaDelta(rho: _Hyper = 0.95, eps: _Hyper = 1e-6, *, per_param: _PerParam = None) -> Transform:
    """Zeiler's ADADELTA: no learning rate; running means of ``g²`` (``msg``) and of the steps² (``msdx``).

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.AdaDelta()
    >>> params = {"w": numpy.array([1.0])}
    >>> new_params, state = tx.step({"w": numpy.array([1.0])}, tx.init(params), params)
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

    return _gradient_method("AdaDelta", {"rho": rho, "eps": eps}, _zeros("msg", "msdx"), kernel, per_param)


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
        alpha_t = hp["alpha"] * math.sqrt(1.0 - math.pow(beta2, t)) / (1.0 - math.pow(beta1, t))

        # m = beta1 m + (1 - beta1) g and v = beta2 v + (1 - beta2) g^2, in fresh arrays
        # (Chainer's m += (1 - beta1)(g - m) is the same up to rounding)
        m = g * (1.0 - beta1)
        _axpy(beta1, s["m"], m)
        m = store(m)
        v = g * (1.0 - beta2)
        v *= g
        _axpy(beta2, s["v"], v)
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

    return _gradient_method(op, hyperparam, init_slots, kernel, per_param, _ADAM_FLAGS)


@_foreign_spellings_explained
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
    >>> tx.step({"w": numpy.array([0.5, -3.0])}, tx.init(params), params)[0]["w"].round(6)
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


@_foreign_spellings_explained
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
    >>> tx.step({"w": numpy.array([1.0])}, tx.init(params), params)[0]["w"].round(6)
    array([0.4])
    """
    return _adam(
        "AdamW", alpha, beta1, beta2, eps, eta, weight_decay_rate, False, False, 0.1, 1e-3, per_param
    )


@_foreign_spellings_explained
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


@_foreign_spellings_explained
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
    >>> tx.step({"w": numpy.array([1.0])}, tx.init(params), params)[0]  # 0.3 (upper bound) * m
    {'w': array([0.97])}
    """
    return _adam("AdaBound", alpha, beta1, beta2, eps, eta, 0, False, True, final_lr, gamma, per_param)


@_foreign_spellings_explained
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
    >>> tx.step({"w": numpy.array([1.0])}, tx.init(params), params)[0]
    {'w': array([0.97])}
    """
    return _adam("AMSBound", alpha, beta1, beta2, eps, eta, 0, True, True, final_lr, gamma, per_param)


@_foreign_spellings_explained
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
    >>> tx.step({"w": numpy.array([1.0])}, tx.init(params), params)[0]
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

    return _gradient_method(
        "RMSprop",
        {"lr": lr, "alpha": alpha, "eps": eps, "eps_inside_sqrt": eps_inside_sqrt},
        _zeros("ms"),
        kernel,
        per_param,
        ("eps_inside_sqrt",),
    )


@_foreign_spellings_explained
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

    return _gradient_method(
        "RMSpropGraves",
        {"lr": lr, "alpha": alpha, "momentum": momentum, "eps": eps},
        _zeros("n", "g", "delta"),
        kernel,
        per_param,
    )


@_foreign_spellings_explained
def SMORMS3(lr: _Hyper = 0.001, eps: _Hyper = 1e-16, *, per_param: _PerParam = None) -> Transform:
    """Simon Funk's SMORMS3: RMSprop with a per-element memory length ``mem`` (starting at 1).

    >>> import numpy
    >>> from fnet import optim
    >>> tx = optim.SMORMS3(lr=0.1)
    >>> params = {"w": numpy.array([1.0])}
    >>> tx.step({"w": numpy.array([2.0])}, tx.init(params), params)[0]["w"].round(6)
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

    return _gradient_method("SMORMS3", {"lr": lr, "eps": eps}, init_slots, kernel, per_param)


@_foreign_spellings_explained
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
    >>> tx.step({"w": numpy.array([1.0])}, tx.init(params), params)[0]
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

    return _gradient_method(
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
