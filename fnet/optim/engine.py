"""The engine of fnet's optimizers: one kernel run on every parameter, with Chainer's per-parameter rules.

``gradient_method(op, hyperparam, init_slots, kernel)`` makes the ``Transform`` of an optimizer
from its kernel, the arithmetic of one parameter's update (the kernels are in
``fnet.optim.optimizers``). The engine does everything else, the same for every optimizer:
checking the hyperparameters and the trees, reading schedules at the step count, planning each
parameter from ``per_param`` (its overrides, or frozen), and keeping the ``OptimizerState``.

A kernel is ``kernel(p, g, s, hp, t) -> (u, new_slots)``: the parameter, its gradient, its state
arrays, the hyperparameter values for this update and the update's number ``t`` (1 for the
first) in; the update ``u`` (``p + u`` is the new parameter, added by ``apply_updates`` or
``apply_updates_in_place``) and the new state arrays out. It never writes into its inputs; ``u``
may be one of the new state arrays (MomentumSGD's velocity is its update).

>>> import numpy
>>> from fnet import optim
>>> from fnet.optim.engine import gradient_method
>>> def kernel(p, g, s, hp, t):  # SGD with a running count of the steps, for show
...     return g * -hp["lr"], {"n": s["n"] + 1}
>>> def init_slots(p, hp):
...     return {"n": numpy.zeros_like(p)}
>>> tx = gradient_method("CountingSGD", {"lr": 0.5}, init_slots, kernel)
>>> params = {"w": numpy.array([1.0])}
>>> params, state = optim.step(tx, {"w": numpy.array([1.0])}, tx.init(params), params)
>>> params["w"], state
(array([0.5]), OptimizerState(t=1, slots={'w': {'n': float64[1]}}))
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import attrs
import numpy

from .. import backend, tree
from ..errors import DTypeError, InvalidInputError, ShapeError, TreeStructureError, aval, message
from .transform import Transform, _describe

__all__ = ["OptimizerState", "gradient_method"]

PerParam = Callable[[str], dict | None] | None
Hyper = float | Callable[[int], float]
# A kernel's state arrays for one parameter: (param, hyperparameters at t=0) -> {name: array}
InitSlots = Callable[[Any, dict], dict]
# One update of one parameter: (param, grad, its state, hyperparameters, t) -> (update, new state)
Kernel = Callable[[Any, Any, dict, dict, int], tuple[Any, dict]]


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

    def with_array_count(self) -> OptimizerState:
        """This state with ``t`` held in a 0-d int64 array: a step captured with ``fnet.capture``
        then takes the count as an input and replays for every count (a Python int is static, so
        each new count would record the step again). Adam's family computes its step size from
        it on the host, to the same bits.

        >>> import numpy
        >>> from fnet import optim
        >>> optim.Adam().init({"W": numpy.zeros(2)}).with_array_count().t.dtype
        dtype('int64')
        """
        return attrs.evolve(self, t=numpy.asarray(self.t, dtype=numpy.int64)[()])


@attrs.frozen
class _Leaf:
    """How one parameter is updated: its path, whether it is updated, and its hyperparameter overrides."""

    path: str
    enabled: bool
    overrides: dict


def _resolve(values: dict, t: int) -> dict:
    return {k: v(t) if callable(v) else v for k, v in values.items()}


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


def _leaf_plan(op: str, defaults: dict, flags: tuple, per_param: PerParam, path: str) -> _Leaf:
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


def _check_state(op: str, state) -> None:
    if not isinstance(state, OptimizerState):
        raise InvalidInputError(
            message(
                op,
                f"expected an OptimizerState, got {type(state).__name__}",
                hint="pass the state that this optimizer's init(params) (or its last update) returned",
            )
        )


def _unchanged(p):
    """The update of a frozen parameter: -0.0, the one number whose sum with any ``p`` is ``p``."""
    return backend.xp(p).full_like(p, -0.0)


def gradient_method(
    op: str,
    hyperparam: dict,
    init_slots: InitSlots,
    kernel: Kernel,
    per_param: PerParam = None,
    flags: tuple[str, ...] = (),
) -> Transform:
    """The Transform running ``kernel`` on every enabled parameter, with Chainer's per-parameter rules.

    Args:
        op: the optimizer's name, for its repr and its messages.
        hyperparam: the hyperparameters by name (numbers, bools, or schedules ``t -> value``).
        init_slots: ``init_slots(p, hp) -> {name: array}``, a parameter's state arrays.
        kernel: ``kernel(p, g, s, hp, t) -> (u, new_slots)`` (see the module's docstring).
        per_param: ``path -> dict or None``: a parameter's overrides, ``{"enabled": False}`` to
            freeze it (its update is -0.0, so that ``p + u`` is ``p`` bit for bit).
        flags: the hyperparameters that are switches (bools), not numbers.
    """
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
    update_op = f"{op}.update"

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

    def update(grads, state, params=None):
        _check_state(update_op, state)
        if params is None:
            raise InvalidInputError(
                message(
                    update_op, "expected params, got None", hint="Chainer's update rules read the parameters"
                )
            )
        leaves, structure, leaf_plans = plan(params)
        g_leaves, g_structure = tree.flatten(grads)
        if g_structure != structure:
            raise tree.structure_mismatch(update_op, grads, params, ("grads", "params"))
        base = _resolve(hyperparam, state.t)
        t = state.t + 1
        slots, out = {}, []
        for leaf, p, g in zip(leaf_plans, leaves, g_leaves):
            s = state.slots.get(leaf.path)
            if s is None:
                raise TreeStructureError(
                    message(
                        update_op,
                        f"the state has no entry for parameter {leaf.path!r}",
                        hint="the params tree changed since init: call init(params) again",
                    )
                )
            if not leaf.enabled:
                slots[leaf.path] = s
                out.append(_unchanged(p))
                continue
            _check_param(update_op, leaf.path, p)
            _check_grad(update_op, leaf.path, p, g)
            hp = {**base, **_resolve(leaf.overrides, state.t)} if leaf.overrides else base
            if p.ndim == 0:  # the kernels work in their fresh arrays: give them 1-d ones
                u, new = kernel(p.reshape(1), g.reshape(1), {k: a.reshape(1) for k, a in s.items()}, hp, t)
                u, new = u.reshape(()), {k: a.reshape(()) for k, a in new.items()}
            else:
                u, new = kernel(p, g, s, hp, t)
            slots[leaf.path] = new
            out.append(u)
        return tree.unflatten(structure, out), OptimizerState(t, slots)

    def values(state, last_update: bool) -> dict:
        _check_state(f"{op}.hyperparams", state)
        return _resolve(hyperparam, max(state.t - 1, 0) if last_update else state.t)

    return Transform(
        init, update, description=_describe(op, **hyperparam, per_param=per_param), values=values
    )
