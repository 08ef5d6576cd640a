"""``optimizer.update(lossfun, *args)`` recorded once per signature and replayed (fnet's opt-in,
``GradientMethod.use_captured_update()``).

A step of a Chainer optimizer is Python objects all the way: parameters, their gradients,
each update rule's state and step count, the links' persistent values, the optimizer's count.
The recording swaps each of those arrays (and each count, as a 0-d int64 array) for a captured
one, runs the eager update once (loss, backward, hooks, every rule), reads them all back as
the outputs, and compiles that. A replay takes the current arrays and counts, runs the plan,
and puts the results back, so the objects end as the eager update leaves them; reports made
by the loss function are replayed too. An update the recording cannot follow (a hook that
converts a norm to a Python float, dynamic loss scaling) runs eagerly from then on, with a
warning, and its values are put back as they were before the attempt.
"""

from __future__ import annotations

import warnings

import numpy

from .. import backend
from ..errors import CaptureError
from ..recording import CapturedArray
from ..recording._phases import PhasedRecording
from . import configuration
from .variable import Variable

__all__ = ["CapturedUpdate"]

_EAGER = "eager"  # a signature the recording could not follow


class CapturedUpdate:
    """The recorded updates of one optimizer, by signature."""

    def __init__(self, optimizer, max_records: int = 8):
        self.optimizer = optimizer
        self.max_records = max_records
        self.plans: dict = {}
        self.counts = {"records": 0, "replays": 0}

    def __call__(self, lossfun, args: tuple, kwds: dict) -> bool:
        """Run the update captured; False when it must run eagerly (the caller does then)."""
        optimizer = self.optimizer
        params = [p for _, p in optimizer.target.namedparams()]
        rules = [p.update_rule for p in params]
        if optimizer._loss_scaling_is_dynamic or any(
            p.array is None or r is None or r.state is None or not r.enabled for p, r in zip(params, rules)
        ):
            return False  # not set up yet (the first update makes the states), or value-dependent
        if any(isinstance(a, (list, tuple, dict)) for a in args):
            return False
        state_keys = [tuple(sorted(r.state)) for r in rules]
        slots = _persistent_slots(optimizer.target)
        arrays = [a.array if isinstance(a, Variable) else a for a in args]
        is_array = [backend.is_array(a) for a in arrays]
        try:
            key = (
                lossfun,
                bool(configuration.config.train),
                bool(configuration.config.enable_backprop),
                tuple(_layout(p.array) for p in params),
                tuple(tuple(_layout(r.state[k]) for k in keys) for r, keys in zip(rules, state_keys)),
                tuple(_layout(getattr(link, n)) for link, n in slots),
                tuple(_layout(a) if flag else (type(a), a) for a, flag in zip(arrays, is_array)),
                tuple(sorted(kwds.items())),
                tuple(id(h) for h in optimizer._hookable.pre.values()),
                tuple(id(h) for h in optimizer._hookable.post.values()),
            )
            plan = self.plans.get(key)
        except TypeError:  # an unhashable argument: no recording for it
            return False
        if plan is _EAGER:
            return False
        counts = [numpy.asarray(r.t, numpy.int64) for r in rules] + [numpy.asarray(optimizer.t, numpy.int64)]
        inputs = [p.array for p in params]
        inputs += [r.state[k] for r, keys in zip(rules, state_keys) for k in keys]
        inputs += [getattr(link, n) for link, n in slots]
        inputs += counts
        inputs += [a for a, flag in zip(arrays, is_array) if flag]
        if plan is None:
            plan = self._record(key, lossfun, args, kwds, params, rules, state_keys, slots, inputs, is_array)
            if plan is None:
                return False
            return True
        self.counts["replays"] += 1
        outputs = plan.replay(*inputs)
        _put_back(outputs, params, rules, state_keys, slots, optimizer)
        return True

    def _record(self, key, lossfun, args, kwds, params, rules, state_keys, slots, inputs, is_array):
        optimizer = self.optimizer
        saved = _snapshot(params, rules, state_keys, slots, optimizer)
        recording = PhasedRecording()
        with recording.active():
            captured = recording.inputs(inputs)
            it = iter(captured)
            try:
                for p in params:
                    p.array = next(it)
                for r, keys in zip(rules, state_keys):
                    for k in keys:
                        r.state[k] = next(it)
                for link, n in slots:
                    setattr(link, n, next(it))
                for r in rules:
                    r.t = next(it)
                optimizer.t = next(it)
                call_args = [next(it) if flag else a for a, flag in zip(args, is_array)]
                call_args = [
                    Variable(c, requires_grad=a.requires_grad) if isinstance(a, Variable) else c
                    for a, c in zip(args, call_args)
                ]
                optimizer._update_now(lossfun, call_args, kwds)
                outputs = _read_back(params, rules, state_keys, slots, optimizer)
            except CaptureError as error:
                _restore(saved, params, rules, state_keys, slots, optimizer)
                warnings.warn(
                    f"{type(optimizer).__name__}.update: this update cannot be recorded, so it runs "
                    f"eagerly from now on:\n{error}",
                    RuntimeWarning,
                    stacklevel=4,
                )
                self.plans[key] = _EAGER
                return None
        plan, _, _ = recording.compile(captured, outputs, [], [], f"{type(optimizer).__name__}.update")
        _put_back(
            [o.value if type(o) is CapturedArray else o for o in outputs],
            params,
            rules,
            state_keys,
            slots,
            optimizer,
        )
        if len(self.plans) >= self.max_records:
            self.plans.pop(next(iter(self.plans)))
        self.plans[key] = plan
        self.counts["records"] += 1
        return plan


def _layout(a):
    return (type(a), a.shape, a.dtype, a.strides) if backend.is_array(a) else (type(a), a)


def _persistent_slots(target) -> list:
    slots = []
    for link in target.links():
        for name in sorted(getattr(link, "_persistent", ())):
            if backend.is_array(getattr(link, name, None)):
                slots.append((link, name))
    return slots


def _read_back(params, rules, state_keys, slots, optimizer) -> list:
    out = [p.array for p in params] + [p.grad for p in params]
    out += [r.state[k] for r, keys in zip(rules, state_keys) for k in keys]
    out += [getattr(link, n) for link, n in slots]
    out += [r.t for r in rules] + [optimizer.t]
    return out


def _put_back(outputs, params, rules, state_keys, slots, optimizer) -> None:
    it = iter(outputs)
    for p in params:
        value = next(it)
        if p.array is not value:
            p.array = value
    for p in params:
        p.grad = next(it)
    for r, keys in zip(rules, state_keys):
        for k in keys:
            r.state[k] = next(it)
    for link, n in slots:
        value = next(it)
        if getattr(link, n) is not value:
            setattr(link, n, value)
    for r in rules:
        r.t = int(next(it))
    optimizer.t = int(next(it))


def _snapshot(params, rules, state_keys, slots, optimizer) -> tuple:
    """Copies of everything an update changes, to undo an update the recording gave up on."""
    return (
        [(p.array, p.array.copy(), p.grad) for p in params],
        [{k: (r.state[k], r.state[k].copy()) for k in keys} for r, keys in zip(rules, state_keys)],
        [(getattr(link, n), getattr(link, n).copy()) for link, n in slots],
        [r.t for r in rules],
        optimizer.t,
    )


def _restore(saved, params, rules, state_keys, slots, optimizer) -> None:
    param_values, states, persistents, ts, t = saved
    for p, (array, copy, grad) in zip(params, param_values):
        array[...] = copy
        p.array = array
        p.grad = grad
    for r, values in zip(rules, states):
        for k, (array, copy) in values.items():
            array[...] = copy
            r.state[k] = array
    for (link, n), (array, copy) in zip(slots, persistents):
        array[...] = copy
        setattr(link, n, array)
    for r, rt in zip(rules, ts):
        r.t = rt
    optimizer.t = t
