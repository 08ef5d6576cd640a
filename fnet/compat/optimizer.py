"""Chainer's optimizer machinery (``chainer.optimizer``): ``Optimizer``, ``GradientMethod``, ``UpdateRule``.

The objects keep Chainer's state and protocol: an optimizer is ``setup`` with a link, gives
each of its parameters an ``UpdateRule`` (``param.update_rule``) whose ``Hyperparameter``
falls back to the optimizer's, counts updates (``t``) and epochs, calls hooks before and after
each update, and saves its state with Chainer's serializers under Chainer's keys (``t``,
``epoch``, ``<param path>/t``, ``<param path>/<state name>``).

The arithmetic is ``fnet.optim``'s. The update rules of the built-in optimizers
(``fnet.compat.optimizers``) run its pure transformations; ``GradientMethod.update`` gathers
all parameters whose rules can be run together (same rule class, step count and
hyperparameter values; no hooks of their own; enabled; float32 or float64) and runs the
transformation once over them as a flat params tree keyed by the parameters' paths, then
adds the updates into the parameters' arrays in place and keeps each rule's ``state`` dict.
Any other rule (a user-defined one, one with hooks, a float16 parameter) is updated on its own
with ``param.update()``, exactly as Chainer does.
"""

from __future__ import annotations

import copy
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy

from .. import backend
from . import initializers, optimizer_hooks
from ._captured_update import CapturedUpdate
from .chainerx._array import raw
from .link import Link
from .serializer import Deserializer
from .variable import Parameter, Variable

__all__ = [
    "Hyperparameter",
    "HyperparameterProxy",
    "UpdateRule",
    "Optimizer",
    "GradientMethod",
    "WeightDecay",
    "Lasso",
    "GradientClipping",
    "GradientHardClipping",
    "GradientNoise",
]

_TIMINGS = ("pre", "post", "auto")


class _Hookable:
    """Hooks registered by name, called before (``'pre'``) or after (``'post'``) an update."""

    def __init__(self, owner: str, fallback_to_pre: bool):
        self.owner = owner
        self.pre: dict = {}
        self.post: dict = {}
        self.fallback_to_pre = fallback_to_pre

    def add(self, hook, name: str | None, timing: str) -> None:
        where = f"{self.owner}.add_hook"
        if not callable(hook):
            raise TypeError(
                f"{where}: expected a callable hook, got {type(hook).__name__}\n"
                "  hint: pass a function or an object with __call__, e.g. optimizer_hooks.WeightDecay(1e-4)"
            )
        if timing not in _TIMINGS:
            raise ValueError(f"{where}: timing must be one of ('pre', 'post', 'auto'), got {timing!r}")
        if timing == "auto":
            timing = getattr(hook, "timing", "pre")
            if timing not in ("pre", "post") and self.fallback_to_pre:
                warnings.warn(
                    f"{where}: the hook's timing attribute {timing!r} is not 'pre' or 'post'; using 'pre'",
                    stacklevel=3,
                )
                timing = "pre"
        if name is None:
            name = getattr(hook, "name", getattr(hook, "__name__", None))
            if name is None:
                raise ValueError(
                    f"{where}: the hook has no name\n  hint: pass name=..., or give the hook a name attribute"
                )
        if name in self.pre or name in self.post:
            raise KeyError(f'{where}: hook "{name}" already exists (remove_hook({name!r}) first)')
        (self.pre if timing == "pre" else self.post)[name] = hook

    def remove(self, name: str) -> None:
        for hooks in (self.pre, self.post):
            if name in hooks:
                del hooks[name]
                return
        raise KeyError(f"{self.owner}.remove_hook: no hook named {name!r}; hooks: {[*self.pre, *self.post]}")

    def at(self, timing: str) -> dict:
        if timing == "pre":
            return self.pre
        if timing == "post":
            return self.post
        raise ValueError(f"{self.owner}.call_hooks: timing must be either 'pre' or 'post', got {timing!r}")


class Hyperparameter:
    """A set of hyperparameter entries, as attributes; an entry not set here is read from ``parent``.

    An update rule's hyperparameter has its optimizer's as parent, so that setting
    ``optimizer.lr`` changes every rule while ``rule.hyperparam.lr = ...`` overrides one.

    >>> parent = Hyperparameter()
    >>> parent.lr = 0.1
    >>> child = Hyperparameter(parent)
    >>> child.lr, child.get_dict()
    (0.1, {'lr': 0.1})
    >>> child.lr = 0.5
    >>> child
    Hyperparameter(lr=0.5)
    """

    def __init__(self, parent: Hyperparameter | None = None):
        self._parent = parent

    def __getattr__(self, name: str):
        d = self.__dict__
        if "_parent" not in d or name.startswith("__"):  # not set up yet (unpickling), or a special name
            raise AttributeError(name)
        parent = d["_parent"]
        if parent is None:
            raise AttributeError(
                f"Hyperparameter: no entry {name!r}; entries: {sorted(self.get_dict())}\n"
                f"  hint: set it first (hyperparam.{name} = value)"
            )
        return getattr(parent, name)

    def __repr__(self) -> str:
        d = self.get_dict()
        return "Hyperparameter(" + ", ".join(f"{k}={d[k]}" for k in sorted(d)) + ")"

    @property
    def parent(self) -> Hyperparameter | None:
        """The hyperparameter that unset entries are read from (or None)."""
        return self._parent

    def get_dict(self) -> dict:
        """All entries readable here (this object's and its parents'), as a dict."""
        d = {} if self._parent is None else self._parent.get_dict()
        d.update((k, v) for k, v in self.__dict__.items() if k != "_parent")
        return d


class HyperparameterProxy:
    """A property of an optimizer that reads and writes one entry of its ``hyperparam``.

    >>> class Opt:
    ...     lr = HyperparameterProxy("lr")
    ...     def __init__(self):
    ...         self.hyperparam = Hyperparameter()
    >>> opt = Opt()
    >>> opt.lr = 0.1
    >>> opt.hyperparam.lr
    0.1
    """

    def __init__(self, attr_name: str):
        self._attr_name = attr_name
        self.__doc__ = f"Alias to ``self.hyperparam.{attr_name}``"

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj.hyperparam, self._attr_name)

    def __set__(self, obj, value) -> None:
        setattr(obj.hyperparam, self._attr_name, value)


def _on_data(param: Variable) -> Variable:
    """``param``, or for a parameter holding ChainerX arrays, a parameter over the NumPy/CuPy data
    under them (the same memory): rules, states and hooks update that, as Chainer's fallback
    does for ChainerX parameters."""
    if not param._has_chainerx_array:
        return param
    view = Parameter(raw(param.array), name=param.name)
    if param.grad is not None:
        view.grad = raw(param.grad)
    loss_scale = getattr(param, "_loss_scale", None)
    if loss_scale is not None:
        view._loss_scale = loss_scale
    return view


class UpdateRule:
    """How one parameter is updated from its gradient: hyperparameters, state, step count and hooks.

    Subclasses override ``update_core`` (or ``update_core_cpu`` and ``update_core_gpu``) and,
    when they keep state, ``init_state`` (called at the first update, to fill ``state``).

    Attributes:
        enabled: whether ``update`` updates the parameter.
        hyperparam: this rule's ``Hyperparameter`` (unset entries come from the optimizer's).
        t: the number of updates made by this rule.
    """

    is_elementwise = False

    def __init__(self, parent_hyperparam: Hyperparameter | None = None):
        self._state: dict | None = None
        self.enabled = True
        self.hyperparam = Hyperparameter(parent_hyperparam)
        self.t = 0
        self._use_fp32_update = False
        self._fp32_param: Parameter | None = None
        self._hookable = _Hookable("UpdateRule", fallback_to_pre=False)

    @property
    def state(self) -> dict | None:
        """The state dictionary (None until the first update initializes it)."""
        return self._state

    def add_hook(self, hook: Callable, name: str | None = None, timing: str = "auto") -> None:
        """Add ``hook(rule, param)``, called before (``'pre'``) or after (``'post'``) each update.

        With ``timing='auto'`` the hook's ``timing`` attribute decides (``'pre'`` without one).
        """
        self._hookable.add(hook, name, timing)

    def remove_hook(self, name: str) -> None:
        """Remove the hook registered as ``name``."""
        self._hookable.remove(name)

    def update(self, param: Variable) -> None:
        """Update ``param`` from its gradient: count the step, prepare the state, undo the loss
        scale, then call the 'pre' hooks, ``update_core`` and the 'post' hooks."""
        if not self.enabled:
            return
        self.t += 1
        given, param = param, _on_data(param)
        array = param.array
        fp32 = self._use_fp32_update and _dtype_or_none(param) == numpy.float16
        target = self._fp32_target(param) if fp32 else param
        if array is not None:
            self._init_states(target)
            loss_scale = getattr(param, "_loss_scale", None)
            grad = target.grad
            if loss_scale is not None and grad is not None:
                grad /= loss_scale
        for hook in list(self._hookable.pre.values()):
            hook(self, target)
        if given is not param and not fp32:  # a parameter holding ChainerX arrays
            self.update_core_chainerx(given)
        else:
            self.update_core(target)
        for hook in list(self._hookable.post.values()):
            hook(self, target)
        if fp32:
            if array is not None:
                array[...] = target.array.astype(array.dtype)
            target.cleargrad()

    def _fp32_target(self, param: Variable) -> Parameter:
        """The float32 master copy of a float16 parameter, holding its gradient in float32 (an
        uninitialized float32 parameter while ``param`` is uninitialized, as in Chainer)."""
        array, master = param.array, self._fp32_param
        if master is None or (master.array is None and array is not None):
            if array is None:
                master = Parameter(initializers.NaN(numpy.float32), name=param.name)
            else:
                master = Parameter(array.astype(numpy.float32), name=param.name)
            self._fp32_param = master
        if array is not None:
            grad = param.grad
            master.grad = None if grad is None else grad.astype(numpy.float32)
        return master

    def update_core(self, param: Variable) -> None:
        """Update the parameter (calls ``update_core_cpu`` or ``update_core_gpu`` by its device)."""
        array = param.array
        if array is None or backend.xp(array) is numpy:
            self.update_core_cpu(param)
        else:
            self.update_core_gpu(param)

    def update_core_cpu(self, param: Variable) -> None:
        """Update a parameter held in NumPy: subclasses define it (or ``update_core``)."""
        raise NotImplementedError(
            f"{type(self).__name__}.update_core_cpu: an UpdateRule must override update_core "
            "(or update_core_cpu and update_core_gpu)"
        )

    def update_core_gpu(self, param: Variable) -> None:
        """Update a parameter held in CuPy: subclasses define it (or ``update_core``)."""
        raise NotImplementedError(
            f"{type(self).__name__}.update_core_gpu: an UpdateRule must override update_core "
            "(or update_core_cpu and update_core_gpu)"
        )

    def update_core_chainerx(self, param: Variable) -> None:
        """Update a parameter that holds ChainerX arrays (``update`` calls it for one): by default
        ``update_core`` on the NumPy/CuPy data under them (the same memory), as ChainerX's
        fallback does; override it to update the ChainerX arrays themselves."""
        self.update_core(_on_data(param))

    def init_state(self, param: Variable) -> None:
        """Fill ``self.state`` for ``param`` (nothing here: a rule without state)."""

    def _init_states(self, param: Variable) -> None:
        if self._state is None:
            self._state = {}
            self.init_state(param)
        _to_param_device(self._state, param.array)

    def serialize(self, serializer) -> None:
        """Save or load ``t`` and the state arrays (under their names) with a Chainer serializer.

        Loading into a rule that has no state yet creates the state's entries from
        ``init_state`` and reads each; if the snapshot has none, the state stays None (it is
        initialized at the next update).
        """
        self.t = serializer("t", self.t)
        if self._state is not None:
            for key in self._state:
                self._state[key] = serializer(key, self._state[key])
            return
        if not isinstance(serializer, Deserializer):
            return
        # the keys this rule's state would have: init_state on a stand-in parameter
        self._state = {}
        dummy = numpy.empty(1, numpy.float32)
        copy.copy(self).init_state(Variable(dummy, grad=dummy))
        for key in self._state:
            try:
                value = serializer(key, None)
            except KeyError:
                if self.enabled:
                    raise
                value = None
            if value is None:
                self._state = None
                return
            self._state[key] = value

    def use_fp32_update(self, flag: bool = True) -> None:
        """Update float16 parameters through a float32 master copy (mixed precision)."""
        self._use_fp32_update = flag

    def _batch_key(self, param: Variable, shared: dict) -> Any:
        """How ``GradientMethod.update`` may update this rule's parameter together with others:
        a key shared by the rules that can be run as one batch, or None (update it on its own)."""
        return None


def _to_param_device(state: dict, array) -> None:
    """Move the state arrays to the device of ``array`` (after the parameter moved)."""
    if array is None:
        return
    for key, value in state.items():
        if type(value) is not type(array) and backend.is_array(value):
            state[key] = backend.get_device_from_array(array).send(value)


def _dtype_or_none(param: Variable):
    """``param``'s dtype; None for an uninitialized parameter whose initializer gives none."""
    try:
        return param.dtype
    except RuntimeError:
        return None


def _reallocate(params) -> None:
    """Give zero gradients to the initialized parameters of ``params`` whose gradient is None."""
    for param in params:
        array = param.array
        if array is not None and param.grad is None:
            param.grad = backend.xp(array).zeros_like(array)


class Optimizer:
    """Base class of the optimizers: a target link, the update count ``t``, ``epoch``, hooks and loss scaling.

    Attributes:
        target: the link set by ``setup``.
        t: the number of updates done.
        epoch: the current epoch (``new_epoch()`` increments it).
        use_auto_new_epoch: True when an updater calls ``new_epoch`` for you.
    """

    target = None
    t = 0
    epoch = 0
    use_auto_new_epoch = False
    _hookable: _Hookable | None = None
    _loss_scale = None
    _loss_scale_max = 65504  # the largest float16
    _loss_scaling_is_dynamic = False
    _loss_scaling_isnan = False

    def __repr__(self) -> str:
        """The call that makes an optimizer of these hyperparameters (their current values).

        >>> from fnet.compat import optimizers
        >>> optimizers.MomentumSGD(lr=0.1)
        MomentumSGD(lr=0.1, momentum=0.9)
        """
        hyperparam = getattr(self, "hyperparam", None)
        values = hyperparam.get_dict() if isinstance(hyperparam, Hyperparameter) else {}
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in values.items())})"

    def setup(self, link) -> Optimizer:
        """Set ``link`` as the target, reset ``t``, ``epoch`` and the hooks; returns the optimizer."""
        if not isinstance(link, Link):
            raise TypeError(
                f"{type(self).__name__}.setup: the optimization target must be a link, got "
                f"{type(link).__name__}\n  hint: pass the model, e.g. optimizer.setup(model)"
            )
        self.target = link
        self.t = 0
        self.epoch = 0
        self._hookable = _Hookable("Optimizer", fallback_to_pre=True)
        return self

    def update(self, lossfun: Callable | None = None, *args, **kwds) -> None:
        """Update the parameters (``lossfun(*args, **kwds)`` gives the loss, when it is passed)."""
        raise NotImplementedError(
            f"{type(self).__name__}.update: an Optimizer must override update "
            "(or derive from GradientMethod, which defines it)"
        )

    def new_epoch(self, auto: bool = False) -> None:
        """Start a new epoch: ``epoch += 1``. Updaters pass ``auto=True``."""
        if auto and not self.use_auto_new_epoch:
            raise RuntimeError(
                f"{type(self).__name__}.new_epoch: invalid call with auto=True\n"
                "  hint: the updater must set optimizer.use_auto_new_epoch = True"
            )
        if not auto and self.use_auto_new_epoch:
            raise RuntimeError(
                f"{type(self).__name__}.new_epoch: duplicated new_epoch with the updater\n"
                "  hint: pass auto_new_epoch=False to the updater, or stop calling new_epoch yourself"
            )
        self.epoch += 1

    def _check_set_up(self, where: str) -> _Hookable:
        if self._hookable is None:
            raise RuntimeError(
                f"{type(self).__name__}.{where}: the optimizer is not set up\n"
                "  hint: call optimizer.setup(model) first"
            )
        return self._hookable

    def add_hook(self, hook: Callable, name: str | None = None, timing: str = "auto") -> None:
        """Register ``hook``, called at each update before (``'pre'``) or after (``'post'``) the update.

        A hook with ``call_for_each_param`` true is called as ``hook(rule, param)`` for every
        parameter, any other as ``hook(optimizer)``. ``name`` defaults to ``hook.name``;
        ``timing='auto'`` uses ``hook.timing`` (``'pre'`` without one).
        """
        self._check_set_up("add_hook").add(hook, name, timing)

    def remove_hook(self, name: str) -> None:
        """Remove the hook registered as ``name``."""
        self._check_set_up("remove_hook").remove(name)

    def call_hooks(self, timing: str = "pre") -> None:
        """Call the hooks of ``timing`` in registration order."""
        for hook in list(self._check_set_up("call_hooks").at(timing).values()):
            self.call_hook(hook)

    def call_hook(self, hook: Callable) -> None:
        """Call one hook: per parameter (``hook(rule, param)``) or with the optimizer."""
        if not getattr(hook, "call_for_each_param", False):
            hook(self)
            return
        pairs = [(param.update_rule, param) for param in self.target.params()]
        if isinstance(hook, optimizer_hooks._GradientHook) and type(hook).__call__ is _PER_PARAM_CALL:
            hook._apply(pairs)  # a built-in hook: one pass over all the gradients
        else:
            for rule, param in pairs:
                hook(rule, param)

    def serialize(self, serializer) -> None:
        """Save or load ``t``, ``epoch`` and every update rule's ``t`` and state (not the parameters).

        Keys are Chainer's: ``t``, ``epoch`` and ``<param path>/<key>`` (``l1/W/m``).
        """
        self.t = serializer("t", self.t)
        self.epoch = serializer("epoch", self.epoch)
        for name, param in self.target.namedparams():
            rule = getattr(param, "update_rule", None)
            if rule is not None:
                rule.serialize(serializer[name])

    def loss_scaling(self, interval: int = 1000, scale: float | None = None) -> None:
        """Scale the loss before backward: by ``scale``, or dynamically (``scale=None``).

        Dynamic scaling starts at 1, doubles at each update while the gradients are finite
        (after a non-finite one, grows by ``2 ** (1 / interval)``), and halves (skipping the
        update) when a gradient is not finite.
        """
        if scale is None:
            if interval < 1:
                raise ValueError(
                    f"{type(self).__name__}.loss_scaling: interval must be at least 1, got {interval}"
                )
            self._loss_scaling_is_dynamic = True
            self._loss_scale = 1.0
            self._loss_scaling_multiplier = math.pow(2.0, 1.0 / interval)
            self._loss_scaling_isnan_ever = False
        else:
            if scale <= 0:
                raise ValueError(
                    f"{type(self).__name__}.loss_scaling: loss_scale must be a positive number, got {scale}"
                )
            self._loss_scale = scale

    def set_loss_scale(self, loss_scale: float) -> None:
        """Use the static loss scale ``loss_scale``."""
        self.loss_scaling(scale=loss_scale)

    def check_nan_in_grads(self) -> None:
        """With dynamic loss scaling, look for non-finite gradients (warn, and skip this update)."""
        self._loss_scaling_isnan = False
        if not self._loss_scaling_is_dynamic:
            return
        for name, param in self.target.namedparams():
            grad = None if param.array is None else param.grad
            if grad is None:
                continue
            xp = backend.xp(grad)
            if not xp.all(xp.isfinite(grad)):
                self._loss_scaling_isnan = True
                self._loss_scaling_isnan_ever = True
                warnings.warn(
                    f"Non finite number found in param.grad of {name} "
                    f"(iteration: {self.t}, loss_scale: {self._loss_scale})",
                    stacklevel=2,
                )

    def is_safe_to_update(self) -> bool:
        """False when dynamic loss scaling found a non-finite gradient in this update."""
        return not self._loss_scaling_isnan

    def update_loss_scale(self) -> None:
        """Grow or shrink the dynamic loss scale after an update (within ``[1, 65504]``)."""
        if not self._loss_scaling_is_dynamic:
            return
        if self._loss_scaling_isnan:
            multiplier = 0.5
        elif self._loss_scaling_isnan_ever:
            multiplier = self._loss_scaling_multiplier
        else:
            multiplier = 2.0
        self._loss_scale = max(1, min(self._loss_scale_max, self._loss_scale * multiplier))


_PER_PARAM_CALL = optimizer_hooks._GradientHook.__call__


class GradientMethod(Optimizer):
    """Base class of the optimizers that update each parameter from its gradient, through update rules.

    Subclasses define ``create_update_rule()``; ``hyperparam`` is the parent of every rule's
    hyperparameters.
    """

    def __init__(self):
        self.hyperparam = Hyperparameter()
        self._use_fp32_update = False

    def setup(self, link) -> GradientMethod:
        """Set the target and give each of its parameters a new update rule; returns the optimizer."""
        super().setup(link)
        for param in link.params():
            param.update_rule = self.create_update_rule()
            if self._use_fp32_update:
                param.update_rule.use_fp32_update()
        return self

    def create_update_rule(self) -> UpdateRule:
        """A new update rule for one parameter: subclasses define it."""
        raise NotImplementedError(
            f"{type(self).__name__}.create_update_rule: a GradientMethod must override create_update_rule"
        )

    def reallocate_cleared_grads(self) -> None:
        """Give zero gradients to the initialized parameters whose gradient is None."""
        _reallocate(self.target.params(False))

    def call_hook(self, hook: Callable) -> None:
        """Call one hook, then give zero gradients to parameters whose gradient it cleared."""
        super().call_hook(hook)
        self.reallocate_cleared_grads()

    def update(self, lossfun: Callable | None = None, *args, **kwds) -> None:
        """Update the parameters from their gradients.

        With ``lossfun``: compute ``loss = lossfun(*args, **kwds)``, clear the target's
        gradients, and backpropagate (scaled by the loss scale); without: use the gradients
        already there. Parameters without a gradient get zeros (and are still updated). Then:
        the 'pre' hooks, ``t += 1``, every parameter's update rule, the 'post' hooks.

        After ``use_captured_update()`` (fnet's), an update with ``lossfun`` is recorded once
        per signature and replayed (see ``fnet.compat._captured_update``).
        """
        captured = getattr(self, "_captured_update", None)
        if lossfun is not None and captured is not None and captured(lossfun, args, kwds):
            return
        self._update_now(lossfun, args, kwds)

    def use_captured_update(self, flag: bool = True, max_records: int = 8) -> None:
        """fnet's opt-in: record ``update(lossfun, *args)`` once per signature (the shapes and
        dtypes of the arguments, parameters, states and persistent values; ``lossfun``; the
        configuration's ``train`` and ``enable_backprop``; the hooks) and replay it after, the
        loss function's Python code not running again (its ``report`` calls do). An update the
        recording cannot follow runs eagerly, with a warning. ``flag=False`` turns it off."""
        self._captured_update = CapturedUpdate(self, max_records) if flag else None

    def _update_now(self, lossfun: Callable | None, args, kwds) -> None:
        """``update`` itself, eagerly."""
        if lossfun is not None:
            loss = lossfun(*args, **kwds)
            if getattr(self, "_use_cleargrads", True):
                self.target.cleargrads()
            else:
                self.target.zerograds()
            loss.backward(loss_scale=self._loss_scale)
            del loss
        named = list(self.target.namedparams())
        params = [param for _, param in named]
        _reallocate(params)
        self.check_nan_in_grads()
        self.call_hooks("pre")
        self.t += 1
        if self.is_safe_to_update():
            self._update_params(named)
        _reallocate(params)
        self.call_hooks("post")
        self.update_loss_scale()

    def _update_params(self, named: list) -> None:
        """Update every parameter of ``named`` ``(path, param)`` with its rule: the batchable rules
        in batches, the others one by one."""
        batches: dict = {}
        shared: dict = {}  # per parent hyperparameter: its values, read once
        seen, again = set(), []  # a parameter reached twice (shared) is updated twice, as in Chainer
        for name, param in named:
            rule = param.update_rule
            if rule is None:
                continue
            if id(param) in seen:
                again.append(param)
                continue
            seen.add(id(param))
            # a rule that is not an UpdateRule (a duck-typed one, a mock) is only called
            key = rule._batch_key(param, shared) if isinstance(rule, UpdateRule) else None
            if key is None:
                param.update()
                continue
            try:
                batches.setdefault(key, []).append((name, param, rule))
            except TypeError:  # an unhashable hyperparameter value
                param.update()
        for key, members in batches.items():
            type(members[0][2])._update_batch(key, members)
        for param in again:
            param.update()

    def use_cleargrads(self, use: bool = True) -> None:
        """Choose ``cleargrads`` (True, the default) or ``zerograds`` in ``update`` (deprecated)."""
        warnings.warn("GradientMethod.use_cleargrads is deprecated.", DeprecationWarning, stacklevel=2)
        self._use_cleargrads = use

    def use_fp32_update(self, flag: bool = True) -> None:
        """Update float16 parameters through float32 master copies (set on every rule)."""
        self._use_fp32_update = flag
        link = self.target
        if link is not None:
            for param in link.params():
                param.update_rule.use_fp32_update(flag)


def make_deprecation_message(module_name: str) -> str:
    """The warning of the deprecated alias ``chainer.optimizer.<module_name>`` of a hook."""
    return (
        f"chainer.optimizer.{module_name} is deprecated from v4. "
        f"Use chainer.optimizer_hooks.{module_name} instead."
    )


def _deprecated_hook(hook_class: type) -> type:
    """``chainer.optimizer.<Hook>``: the hook of ``optimizer_hooks``, warning that the alias is deprecated."""

    def __init__(self, *args, **kwargs):
        warnings.warn(make_deprecation_message(hook_class.__name__), DeprecationWarning, stacklevel=2)
        hook_class.__init__(self, *args, **kwargs)

    doc = f"Deprecated alias of ``optimizer_hooks.{hook_class.__name__}``."
    return type(
        hook_class.__name__, (hook_class,), {"__init__": __init__, "__doc__": doc, "__module__": __name__}
    )


WeightDecay = _deprecated_hook(optimizer_hooks.WeightDecay)
Lasso = _deprecated_hook(optimizer_hooks.Lasso)
GradientClipping = _deprecated_hook(optimizer_hooks.GradientClipping)
GradientHardClipping = _deprecated_hook(optimizer_hooks.GradientHardClipping)
GradientNoise = _deprecated_hook(optimizer_hooks.GradientNoise)
