"""``optimizer.update(lossfun, *args)`` recorded once per signature and replayed (fnet's opt-in,
``GradientMethod.use_captured_update()``).

A step of a Chainer optimizer is Python objects all the way: parameters, their gradients,
each update rule's state and step count, the links' persistent values, the optimizer's count.
The recording swaps each of those arrays (and each count, as a 0-d int64 array) for a captured
one, runs the eager update once (loss, backward, hooks, every rule), reads them all back as
the outputs, and compiles that. A replay takes the current arrays and counts, runs the plan,
and puts the results back, so the objects end as the eager update leaves them; reports made
by the loss function are replayed too. An update the recording cannot follow (a hook that
converts a norm to a Python float) runs eagerly from then on, with a warning, and the values it
changed are put back as they were before the attempt.
"""

from __future__ import annotations

import warnings

import numpy

from .. import backend
from ..errors import CaptureError
from ..recording import CapturedArray
from ..recording._phases import PhasedRecording
from ..recording._record import layout_of
from . import configuration
from .link import persistent_array_slots
from .variable import Variable

__all__ = ["CapturedUpdate"]

_EAGER = "eager"  # a signature the recording could not follow


class _UpdatedObjects:
    """What an update changes: each parameter (array, grad), its rule (state arrays, count), the
    links' persistent arrays and the optimizer's count, read and written in one order."""

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.params = [p for _, p in optimizer.target.namedparams()]
        self.rules = [p.update_rule for p in self.params]
        self.ready = not optimizer._loss_scaling_is_dynamic and all(
            p.array is not None and r is not None and r.state is not None and r.enabled
            for p, r in zip(self.params, self.rules)
        )
        self.state_keys = [tuple(sorted(r.state)) for r in self.rules] if self.ready else []
        self.slots = persistent_array_slots(optimizer.target)

    def read(self, grads: bool) -> list:
        """The arrays (and counts), with the grads after the parameters when ``grads``."""
        values = [p.array for p in self.params]
        values += [p.grad for p in self.params] if grads else []
        values += [r.state[k] for r, keys in zip(self.rules, self.state_keys) for k in keys]
        values += [getattr(link, n) for link, n in self.slots]
        return values + [r.t for r in self.rules] + [self.optimizer.t]

    def write(self, values, grads: bool, count=int) -> None:
        """Put ``values`` (in ``read``'s order) back on the objects; ``count`` makes the counts."""
        it = iter(values)
        for p in self.params:
            value = next(it)
            if p.array is not value:
                p.array = value
        for p in self.params if grads else ():
            p.grad = next(it)
        for r, keys in zip(self.rules, self.state_keys):
            for k in keys:
                r.state[k] = next(it)
        for link, n in self.slots:
            value = next(it)
            if getattr(link, n) is not value:
                setattr(link, n, value)
        for r in self.rules:
            r.t = count(next(it))
        self.optimizer.t = count(next(it))

    @property
    def n_counts(self) -> int:
        """How many counts end ``read``'s list: each rule's and the optimizer's."""
        return len(self.rules) + 1

    def layout(self) -> tuple:
        """The layouts of the arrays (the counts are inputs, not part of a signature)."""
        return tuple(layout_of(v) for v in self.read(grads=False)[: -self.n_counts])


class CapturedUpdate:
    """The recorded updates of one optimizer, by signature."""

    def __init__(self, optimizer, max_records: int = 8):
        self.optimizer = optimizer
        self.max_records = max_records
        self.plans: dict = {}
        self.counts = {"records": 0, "replays": 0}

    def __call__(self, lossfun, args: tuple, kwds: dict) -> bool:
        """Run the update captured; False when it must run eagerly (the caller does then)."""
        objects = _UpdatedObjects(self.optimizer)
        if not objects.ready or any(isinstance(a, (list, tuple, dict)) for a in args):
            return False  # not set up yet (the first update makes the states), or nested arguments
        arrays = [a.array if isinstance(a, Variable) else a for a in args]
        is_array = [backend.is_array(a) for a in arrays]
        hooks = self.optimizer._hookable
        try:
            key = (
                lossfun,
                bool(configuration.config.train),
                bool(configuration.config.enable_backprop),
                objects.layout(),
                tuple(layout_of(a) for a in arrays),
                tuple(sorted(kwds.items())),
                tuple(id(h) for h in (*hooks.pre.values(), *hooks.post.values())),
            )
            plan = self.plans.get(key)
        except TypeError:  # an unhashable argument: no recording for it
            return False
        if plan is _EAGER:
            return False
        inputs = objects.read(grads=False)
        n = objects.n_counts
        inputs[-n:] = [numpy.asarray(t, numpy.int64) for t in inputs[-n:]]  # counts as 0-d arrays
        inputs += [a for a, flag in zip(arrays, is_array) if flag]
        if plan is None:
            return self._record(key, lossfun, args, kwds, objects, inputs, is_array)
        self.counts["replays"] += 1
        objects.write(plan.replay(*inputs), grads=True)
        return True

    def _record(self, key, lossfun, args, kwds, objects: _UpdatedObjects, inputs, is_array) -> bool:
        optimizer = self.optimizer
        saved = _Snapshot(objects)
        recording = PhasedRecording()
        with recording.active():
            captured = recording.inputs(inputs)
            n_own = len(captured) - sum(is_array)
            try:
                objects.write(captured[:n_own], grads=False, count=lambda t: t)
                it = iter(captured[n_own:])
                call_args = [
                    (
                        Variable(next(it), requires_grad=a.requires_grad)
                        if isinstance(a, Variable)
                        else next(it)
                    )
                    if flag
                    else a
                    for a, flag in zip(args, is_array)
                ]
                optimizer._update_now(lossfun, call_args, kwds)
                outputs = objects.read(grads=True)
            except CaptureError as error:
                saved.restore()
                warnings.warn(
                    f"{type(optimizer).__name__}.update: this update cannot be recorded, so it runs "
                    f"eagerly from now on:\n{error}",
                    RuntimeWarning,
                    stacklevel=4,
                )
                self.plans[key] = _EAGER
                return False
        plan, _, _ = recording.compile(captured, outputs, [], [], f"{type(optimizer).__name__}.update")
        objects.write([o.value if type(o) is CapturedArray else o for o in outputs], grads=True)
        if len(self.plans) >= self.max_records:
            self.plans.pop(next(iter(self.plans)))
        self.plans[key] = plan
        self.counts["records"] += 1
        return True


class _Snapshot:
    """Copies of everything an update changes, to undo an update the recording gave up on."""

    def __init__(self, objects: _UpdatedObjects):
        self.objects = objects
        self.values = objects.read(grads=True)
        self.copies = [v.copy() if backend.is_array(v) else v for v in self.values]

    def restore(self) -> None:
        for value, copy in zip(self.values, self.copies):
            if backend.is_array(value):
                value[...] = copy
        self.objects.write(self.values, grads=True)
