"""Chainer's optimizers (``chainer.optimizers``), running the transformations of ``fnet.optim``.

Each optimizer has Chainer's constructor, hyperparameter attributes (``optimizer.lr``, read
and written through ``optimizer.hyperparam``) and update rule class (``SGDRule``,
``AdamRule``...). A rule runs its ``fnet.optim`` transformation, built from its current
hyperparameter values, on its parameter; ``update`` runs it once over all the parameters that
share a step count and hyperparameter values (see ``fnet.compat.optimizer``).

>>> import numpy
>>> from fnet.compat import Parameter, optimizers
>>> from fnet.compat.link import Link
>>> link = Link()
>>> with link.init_scope():
...     link.w = Parameter(numpy.array([1.0, 2.0]))
>>> optimizer = optimizers.MomentumSGD(lr=0.1).setup(link)
>>> link.w.grad = numpy.array([1.0, -1.0])
>>> optimizer.update()
>>> link.w.array, optimizer.t, sorted(link.w.update_rule.state)
(array([0.9, 2.1]), 1, ['v'])
"""

from __future__ import annotations

import inspect
import numbers
import warnings
from collections.abc import Callable
from typing import Any

import numpy

from .. import optim
from .._foreign import check_keywords, keyword_names
from .optimizer import GradientMethod, Hyperparameter, HyperparameterProxy, UpdateRule, _to_param_device
from .variable import Variable

# The classes defined here, in order: each base's __init_subclass__ adds them, and __all__ is drawn from them
_OPTIMIZERS: list[str] = []
_RULES: list[str] = []

_BATCH_DTYPES = (numpy.float32, numpy.float64)  # float16 goes through the rule's own update


def _hyperparameters(factory: Callable[..., optim.Transform]) -> list[inspect.Parameter]:
    """The hyperparameters of a ``fnet.optim`` factory, with their defaults and in their order:
    its positional parameters (``per_param`` is fnet's own, keyword-only)."""
    parameters = inspect.signature(factory).parameters.values()
    return [p.replace(annotation=p.empty) for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD]


def _leaf_name(param: Variable) -> str:
    return param.name or "param"


class _PureRule(UpdateRule):
    """An update rule that runs a transformation of ``fnet.optim`` (``pure``, given by subclasses).

    ``class SGDRule(_PureRule, pure=optim.SGD)`` takes the hyperparameter names, their order
    and their defaults (Chainer's ``_default_hyperparam``) from the factory's signature.
    """

    is_elementwise = True
    _pure: Callable[..., optim.Transform]
    _names: tuple[str, ...] = ()
    _defaults: Hyperparameter
    _transforms: dict
    _batchable = False  # True for the built-in classes only: subclasses may change how to update
    _static: Any = None  # what the transformation depends on besides the hyperparameter values
    _switches: frozenset = frozenset()  # the hyperparameters that are switches (a bool default)

    def __init_subclass__(cls, pure: Callable[..., optim.Transform] | None = None, **kwargs):
        super().__init_subclass__(**kwargs)
        cls._batchable = pure is not None
        if pure is None:
            return
        if cls.__module__ == __name__:
            _RULES.append(cls.__name__)
        fields = _hyperparameters(pure)
        cls._pure = staticmethod(pure)
        cls._names = tuple(p.name for p in fields)
        # switches (amsgrad, eps_inside_sqrt...): Chainer reads them by truth value, whatever they are
        cls._switches = frozenset(p.name for p in fields if isinstance(p.default, bool))
        cls._defaults = Hyperparameter()
        for p in fields:
            setattr(cls._defaults, p.name, p.default)
        cls._transforms = {}
        cls.__signature__ = inspect.Signature(
            [inspect.Parameter("parent_hyperparam", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)]
            + [
                inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None)
                for n in cls._names
            ]
        )

    def __init__(self, parent_hyperparam: Hyperparameter | None = None, *args, **kwargs):
        """``parent_hyperparam`` (default: the optimizer's defaults), then this rule's own values."""
        super().__init__(parent_hyperparam or self._defaults)
        where = f"{type(self).__name__}()"
        if len(args) > len(self._names):
            raise TypeError(
                f"{where}: takes at most {len(self._names)} hyperparameters after parent_hyperparam "
                f"({', '.join(self._names)}), got {len(args)}"
            )
        values = dict(zip(self._names, args))
        for name, value in kwargs.items():
            if name not in self._names:
                raise TypeError(
                    f"{where}: unexpected hyperparameter {name!r}\n"
                    f"  hint: {type(self).__name__} takes {', '.join(self._names)}"
                )
            if name in values:
                raise TypeError(f"{where}: got hyperparameter {name!r} twice (by position and by name)")
            values[name] = value
        for name, value in values.items():
            if value is not None:
                setattr(self.hyperparam, name, value)

    def _values(self) -> tuple:
        """This rule's hyperparameter values, in the order of ``_names``."""
        hyperparam = self.hyperparam
        return tuple(getattr(hyperparam, n) for n in self._names)

    def _shared_values(self, shared: dict) -> tuple:
        """``_values()``, read once per parent (in ``shared``) for the rules with no entries of their own."""
        own = self.hyperparam.__dict__
        if len(own) > 1:
            return self._values()
        parent = own["_parent"]
        key = (id(parent), type(self))
        values = shared.get(key)
        if values is None:
            values = shared[key] = tuple(getattr(parent, n) for n in self._names)
        return values

    def _pure_kwargs(self, values: tuple) -> dict:
        """The arguments of the fnet.optim factory for hyperparameter ``values``."""
        return self._as_pure_arguments(dict(zip(self._names, values)))

    @classmethod
    def _as_pure_arguments(cls, hyperparams: dict) -> dict:
        """``hyperparams`` with each switch given as a number made a bool, as Chainer tests it by
        truth (``amsgrad=0.1`` is on); a switch of another type (``"yes"``) is left to be refused."""
        return {
            k: bool(v) if k in cls._switches and isinstance(v, numbers.Number) else v
            for k, v in hyperparams.items()
        }

    def _transform(self, values: tuple) -> optim.Transform:
        """The transformation for ``values`` (cached per class: building one costs microseconds)."""
        cache = self._transforms
        key = (values, self._static)
        try:
            tx = cache.get(key)
        except TypeError:  # an unhashable value (e.g. a 0-d array): no caching
            return self._pure(**self._pure_kwargs(values))
        if tx is None:
            if len(cache) >= 64:
                cache.clear()
            tx = cache[key] = self._pure(**self._pure_kwargs(values))
        return tx

    def init_state(self, param: Variable) -> None:
        """The state arrays of the transformation, for ``param``."""
        name = _leaf_name(param)
        self.state.update(self._transform(self._values()).init({name: param.array}).slots[name])

    def update_core(self, param: Variable) -> None:
        """One step of the transformation on ``param`` (in place), with the current hyperparameters."""
        array = param.array
        grad = None if array is None else param.grad  # an uninitialized parameter has no grad to read
        if grad is None:
            return
        if self._state is None:
            self._init_states(param)
        name = _leaf_name(param)
        state = optim.OptimizerState(self.t - 1, {name: self._state})
        new_state = optim.step_in_place(self._transform(self._values()), {name: grad}, state, {name: array})
        self._state.update(new_state.slots[name])

    update_core_cpu = update_core_gpu = update_core

    def _batch_key(self, param: Variable, shared: dict) -> Any:
        if not (self._batchable and self.enabled) or self._hookable.pre or self._hookable.post:
            return None
        array = param.array
        if array is None or array.dtype not in _BATCH_DTYPES or param.grad is None:
            return None
        if param._has_chainerx_array:
            return None  # one by one, through the data under the ChainerX arrays (UpdateRule.update)
        return (type(self), self.t, self._shared_values(shared), self._static)

    @classmethod
    def _update_batch(cls, key: tuple, members: list) -> None:
        """One step of the transformation over the parameters of ``members`` ``(path, param, rule)``."""
        _, t, values, _ = key
        tx = members[0][2]._transform(values)
        arrays, grads, fresh = {}, {}, []
        for name, param, rule in members:
            array, grad = param.array, param.grad
            loss_scale = getattr(param, "_loss_scale", None)
            if loss_scale is not None:
                grad /= loss_scale
            arrays[name] = array
            grads[name] = grad
            if rule._state is None:
                fresh.append((name, rule))
            else:
                _to_param_device(rule._state, array)
        if fresh:
            slots = tx.init({name: arrays[name] for name, _ in fresh}).slots
            for name, rule in fresh:
                rule._state = dict(slots[name])
        state = optim.OptimizerState(t, {name: rule._state for name, _, rule in members})
        new_state = optim.step_in_place(tx, grads, state, arrays)  # Chainer's parameters change in place
        for name, _, rule in members:
            rule._state.update(new_state.slots[name])
            rule.t = t + 1


class SGDRule(_PureRule, pure=optim.SGD):
    """SGD's update rule: ``param -= lr * grad``."""


class MomentumSGDRule(_PureRule, pure=optim.MomentumSGD):
    """MomentumSGD's update rule: ``v = momentum * v - lr * grad``, ``param += v``."""


class CorrectedMomentumSGDRule(_PureRule, pure=optim.CorrectedMomentumSGD):
    """CorrectedMomentumSGD's update rule: ``v = momentum * v - grad``, ``param += lr * v``."""


class NesterovAGRule(_PureRule, pure=optim.NesterovAG):
    """NesterovAG's update rule (Sutskever's form of Nesterov's momentum)."""


class AdaGradRule(_PureRule, pure=optim.AdaGrad):
    """AdaGrad's update rule: ``h += grad²``, ``param -= lr * grad / (sqrt(h) + eps)``."""


class AdaDeltaRule(_PureRule, pure=optim.AdaDelta):
    """AdaDelta's update rule (running means ``msg`` of grad² and ``msdx`` of the steps²)."""


class RMSpropRule(_PureRule, pure=optim.RMSprop):
    """RMSprop's update rule: ``ms = alpha ms + (1 - alpha) grad²``, ``param -= lr grad / (√ms + eps)``."""


class RMSpropGravesRule(_PureRule, pure=optim.RMSpropGraves):
    """RMSpropGraves's update rule (running standard deviation of the gradient, with momentum)."""


class SMORMS3Rule(_PureRule, pure=optim.SMORMS3):
    """SMORMS3's update rule (RMSprop with a per-element memory length ``mem``)."""


class MSVAGRule(_PureRule, pure=optim.MSVAG):
    """MSVAG's update rule (momentum SGD scaled by the estimated gradient variance)."""


def _adam_step_size(hyperparam, t: int, who: str) -> float:
    """Adam's bias-corrected step size ``alpha_t`` after ``t`` updates (``fnet.optim.adam_step_size``)."""
    if t == 0:
        raise RuntimeError(
            f"{who}: can't determine the learning rate of Adam optimizer because the update steps "
            "have not been started\n  hint: read alpha_t after the first update"
        )
    return optim.adam_step_size(hyperparam.alpha, hyperparam.beta1, hyperparam.beta2, t)


class AdamRule(_PureRule, pure=optim.Adam):
    """Adam's update rule, with AdamW's decoupled weight decay, AMSGrad and AdaBound.

    ``initial_alpha`` is ``alpha`` when the rule was made: AdaBound's bounds follow ``alpha``
    relative to it.
    """

    def __init__(self, parent_hyperparam: Hyperparameter | None = None, *args, **kwargs):
        super().__init__(parent_hyperparam, *args, **kwargs)
        self.initial_alpha = self.hyperparam.alpha

    @property
    def _static(self):
        return self.initial_alpha

    def _pure_kwargs(self, values: tuple) -> dict:
        kwargs = super()._pure_kwargs(values)
        # fnet.optim scales final_lr by alpha over its value when the transformation is built;
        # Chainer by alpha over its value when the rule was made (initial_alpha)
        if kwargs["adabound"] and kwargs["alpha"] != self.initial_alpha:
            kwargs["final_lr"] = kwargs["final_lr"] * kwargs["alpha"] / self.initial_alpha
        return kwargs

    @property
    def alpha_t(self) -> float:
        """The bias-corrected step size after this rule's ``t`` updates."""
        return _adam_step_size(self.hyperparam, self.t, "AdamRule.alpha_t")

    @property
    def lr(self) -> float:
        """``alpha_t`` (deprecated name)."""
        warnings.warn(
            "AdamRule.lr has been renamed to AdamRule.alpha_t. "
            "Use of AdamRule.lr is deprecated in Chainer v6.",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.alpha_t


class _PureGradientMethod(GradientMethod):
    """A GradientMethod whose rules are ``rule`` (a ``_PureRule``), with a property per hyperparameter.

    ``class SGD(_PureGradientMethod, rule=SGDRule)`` takes its constructor (the arguments,
    their order and defaults) from the rule's ``fnet.optim`` factory; ``class AdamW(Adam,
    pure=optim.AdamW)`` from the factory named, whose transformation gives the values of the
    hyperparameters it does not take (AdamW's ``amsgrad=False``...).
    """

    _rule: type[_PureRule]
    _pure: Callable[..., optim.Transform]

    def __init_subclass__(
        cls,
        rule: type[_PureRule] | None = None,
        pure: Callable[..., optim.Transform] | None = None,
        **kwargs,
    ):
        super().__init_subclass__(**kwargs)
        if rule is not None:
            cls._rule = rule
            for name in rule._names:
                setattr(cls, name, HyperparameterProxy(name))
        if rule is None and pure is None:
            return
        if cls.__module__ == __name__:
            _OPTIMIZERS.append(cls.__name__)
        cls._pure = staticmethod(pure or cls._rule._pure)
        cls.__init__ = _constructor(cls, cls._pure)

    def __new__(cls, *args, **kwargs):
        if kwargs:  # a keyword the constructor lacks (PyTorch's Adam(lr=...)): say fnet's spelling
            check_keywords(cls.__name__, keyword_names(cls.__init__), kwargs)
        return super().__new__(cls)

    def _set_hyperparams(self, values: dict) -> None:
        """Check ``values`` with fnet.optim's messages (by building the transformation), then set
        every hyperparameter of the rule: those of ``values``, and the others as the
        transformation has them."""
        super().__init__()
        tx = self._pure(**self._rule._as_pure_arguments(values))
        implied = tx.hyperparams(tx.init({}))
        for name in self._rule._names:
            setattr(self.hyperparam, name, values[name] if name in values else implied[name])

    def create_update_rule(self) -> _PureRule:
        """A new rule whose hyperparameters fall back to this optimizer's."""
        return self._rule(self.hyperparam)


def _constructor(cls: type, factory: Callable[..., optim.Transform]) -> Callable:
    """``cls.__init__``: the hyperparameters of ``factory``, by position or name, with its defaults."""
    hyperparameters = _hyperparameters(factory)
    shown = inspect.Signature(hyperparameters)  # what a message shows: the call, without self
    signature = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD), *hyperparameters]
    )

    def __init__(self, *args, **kwargs) -> None:
        try:
            bound = signature.bind(self, *args, **kwargs)
        except TypeError as error:  # too many arguments, or one given twice
            raise TypeError(f"{type(self).__name__}{shown}: {error}") from None
        bound.apply_defaults()
        del bound.arguments["self"]
        self._set_hyperparams(bound.arguments)

    __init__.__signature__ = signature
    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__.__doc__ = f"The hyperparameters of ``fnet.optim.{factory.__name__}``, with its defaults."
    return __init__


class SGD(_PureGradientMethod, rule=SGDRule):
    """Vanilla stochastic gradient descent: ``param -= lr * grad``."""


class MomentumSGD(_PureGradientMethod, rule=MomentumSGDRule):
    """Momentum SGD, the learning rate inside the velocity: ``v = momentum v - lr grad; param += v``."""


class CorrectedMomentumSGD(_PureGradientMethod, rule=CorrectedMomentumSGDRule):
    """Momentum SGD, the learning rate outside the velocity: ``v = momentum v - grad; param += lr v``."""


class NesterovAG(_PureGradientMethod, rule=NesterovAGRule):
    """Nesterov's accelerated gradient."""


class AdaGrad(_PureGradientMethod, rule=AdaGradRule):
    """AdaGrad: a per-element learning rate shrinking with the accumulated squared gradient."""


class AdaDelta(_PureGradientMethod, rule=AdaDeltaRule):
    """Zeiler's ADADELTA (no learning rate)."""


class Adam(_PureGradientMethod, rule=AdamRule):
    """Adam, with AdamW's decoupled weight decay (``eta``, ``weight_decay_rate``), AMSGrad and AdaBound."""

    @property
    def alpha_t(self) -> float:
        """The bias-corrected step size after ``t`` updates."""
        return _adam_step_size(self.hyperparam, self.t, f"{type(self).__name__}.alpha_t")

    @property
    def lr(self) -> float:
        """``alpha_t`` (deprecated name)."""
        warnings.warn(
            "Adam.lr has been renamed to AdamRule.alpha_t. Use of Adam.lr is deprecated in Chainer v6.",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.alpha_t


class AdamW(Adam, pure=optim.AdamW):
    """Adam with decoupled weight decay, which does not go through the moments.

    ``param -= eta (alpha_t m / (√v + eps) + weight_decay_rate * param)`` (a WeightDecay hook,
    instead, adds the decay to the gradient).
    """


class AMSGrad(Adam, pure=optim.AMSGrad):
    """Adam dividing by the running maximum of the second moment (``Adam(amsgrad=True)``)."""


class AdaBound(Adam, pure=optim.AdaBound):
    """Adam whose step size is clipped to bounds converging to ``final_lr`` (``Adam(adabound=True)``)."""


class AMSBound(Adam, pure=optim.AMSBound):
    """AdaBound with AMSGrad's running maximum (``Adam(amsgrad=True, adabound=True)``)."""


class RMSprop(_PureGradientMethod, rule=RMSpropRule):
    """RMSprop: divides by the root of a running mean of the squared gradient (``eps`` outside the root)."""


class RMSpropGraves(_PureGradientMethod, rule=RMSpropGravesRule):
    """Alex Graves's RMSprop: divides by the running standard deviation of the gradient, with momentum."""


class SMORMS3(_PureGradientMethod, rule=SMORMS3Rule):
    """Simon Funk's SMORMS3."""


class MSVAG(_PureGradientMethod, rule=MSVAGRule):
    """M-SVAG: momentum SGD scaled by an estimate of the gradient's variance, with decoupled weight decay."""


__all__ = [*_OPTIMIZERS, *_RULES]

# Chainer's module holds the optimizers only (programs list them by scanning it): the shared
# bases stay reachable through the optimizers' classes.
del GradientMethod, _PureGradientMethod
