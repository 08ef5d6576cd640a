"""Chainer's ``static_graph``: a chain's forward pass recorded once, then replayed.

On the first call with a given input signature (shapes and dtypes of the inputs, parameters
and persistent values; ``config.train`` and ``config.enable_backprop``) the chain's own code runs
once, define-by-run, while ``fnet.recording`` records every array call of its forward pass and,
on stand-in output gradients, of its backward pass. Later calls replay the forward recording as
one ``FunctionNode`` whose ``backward`` replays the backward recording: the chain's Python code
does not run again, as in Chainer, except functions marked ``@static_code`` (recorded whole and
called on every replay). A chain with a parameter still uninitialized (``L.Linear(None, ...)``)
runs define-by-run once first, to size it.

Persistent values (batch normalization's running statistics) are inputs and outputs of the
recording, so that a replay updates them. With ``enable_double_backprop=True`` the chain runs
define-by-run on every call (a replayed backward is not differentiable).
"""

from __future__ import annotations

import warnings

from ... import backend
from ...autodiff import Tracer, backward
from ...errors import CaptureError
from ...recording import CapturedArray, is_recording
from ...recording._phases import PhasedRecording
from .. import configuration
from ..function_node import FunctionNode
from ..link import persistent_array_slots
from ..variable import Variable

__all__ = ["static_graph", "ScheduleManager", "StaticScheduleFunction"]

_DEFINE_BY_RUN = "define-by-run"  # a signature whose recording failed: it runs define-by-run


class ScheduleManager:
    """The recorded schedules of one static chain, by input signature (``chain.schedule_manager``)."""

    def __init__(self, minimize_cache_size: bool = True, verbosity_level: int = 0):
        self.minimize_cache_size = minimize_cache_size
        self.verbosity_level = verbosity_level
        self.schedules: dict = {}

    def end_forward(self) -> None:
        """Chainer's signal that a forward pass without a backward pass has ended. Each replay
        here is a node of its own, so there is nothing to release."""

    def __repr__(self):
        kept = sum(1 for s in self.schedules.values() if s is not _DEFINE_BY_RUN)
        return f"ScheduleManager({kept} schedule(s), minimize_cache_size={self.minimize_cache_size})"


class _Schedule:
    """The plans of one signature: forward (with its residuals) and, when recorded, backward."""

    def __init__(self, forward, backward, n_outputs: int, n_persistent: int, out_shape):
        self.forward = forward
        self.backward = backward
        self.n_outputs = n_outputs
        self.n_persistent = n_persistent
        self.out_shape = out_shape  # how the chain's outputs nest

    def is_empty(self) -> bool:
        return False

    def __repr__(self):
        return f"StaticSchedule(forward ops={self.forward.ops_kept}, backward={self.backward is not None})"


class StaticScheduleFunction(FunctionNode):
    """One replay of a static chain: inputs are the parameters and the chain's input arrays."""

    def __init__(self, schedule: _Schedule, slots: list, n_inputs: int, recorded=None):
        self.schedule = schedule
        self.slots = slots  # (link, name) of each persistent value, in the recording's order
        self.n_inputs = n_inputs  # the chain's input arrays, after the parameters
        self.recorded = recorded  # the recording call's own (outputs, persistents, residuals)
        self.residuals = ()
        self.output_layouts = ()

    def forward(self, inputs):
        schedule = self.schedule
        if self.recorded is not None:
            outputs, persistents, residuals = self.recorded
            self.recorded = None
        else:
            current = [getattr(link, name) for link, name in self.slots]
            n_params = len(inputs) - self.n_inputs
            results = schedule.forward.replay(*inputs[:n_params], *current, *inputs[n_params:])
            outputs = results[: schedule.n_outputs]
            persistents = results[schedule.n_outputs : schedule.n_outputs + schedule.n_persistent]
            residuals = results[schedule.n_outputs + schedule.n_persistent :]
        for (link, name), value in zip(self.slots, persistents):
            if getattr(link, name) is not value:
                setattr(link, name, value)
        self.residuals = tuple(residuals)
        self.output_layouts = tuple((y.shape, y.dtype, backend.xp(y)) for y in outputs)
        return tuple(outputs)

    def backward(self, target_input_indexes, grad_outputs):
        if self.schedule.backward is None:
            raise RuntimeError(
                "static_graph: this schedule was recorded with config.enable_backprop False, so it "
                "has no backward pass\n  hint: call the chain with backprop enabled to train it"
            )
        gys = []
        for g, (shape, dtype, xp) in zip(grad_outputs, self.output_layouts):
            gys.append(xp.zeros(shape, dtype) if g is None else g.array)
        grads = self.schedule.backward.replay(*self.residuals, *gys)
        return tuple(None if grads[i] is None else Variable(grads[i]) for i in target_input_indexes)


def _flatten(args) -> tuple[list, object]:
    """The leaves of nested lists and tuples, and how to nest them again."""
    if isinstance(args, (list, tuple)):
        leaves, shapes = [], []
        for a in args:
            inner, shape = _flatten(a)
            leaves.extend(inner)
            shapes.append(shape)
        return leaves, (type(args), shapes)
    return [args], None


def _unflatten(leaves, shape):
    if shape is None:  # one Variable, the common case
        return leaves[0]
    it = iter(leaves)

    def build(s):
        if s is None:
            return next(it)
        kind, children = s
        return kind(build(c) for c in children)

    return build(shape)


def _signature(params, slots, variables) -> tuple:
    config = configuration.config
    layout = [(p.array.shape, p.array.dtype) for p in params]
    layout += [(getattr(link, name).shape, getattr(link, name).dtype) for link, name in slots]
    layout += [(v.array.shape, v.array.dtype, v.requires_grad) for v in variables]
    return bool(config.train), bool(config.enable_backprop), tuple(layout)


def _ones_on_its_device(y):
    """Ones shaped like the recorded output ``y``, on the device of its value (the seed of the
    recorded backward pass)."""
    value = y.value if type(y) is CapturedArray else y
    return backend.xp(value).ones(value.shape, value.dtype)


def _record(func, chain, args_shape, params, slots, variables, with_backward: bool, name: str):
    """Run ``func`` once, define-by-run, recording it; the schedule and this call's results."""
    recording = PhasedRecording()
    originals = [p.array for p in params]
    persistent_originals = [getattr(link, n) for link, n in slots]
    with recording.active():
        p_in = recording.inputs(originals)
        s_in = recording.inputs(persistent_originals)
        x_in = recording.inputs([v.array for v in variables])
        try:
            for p, a in zip(params, p_in):
                p.array = a
            for (link, n), a in zip(slots, s_in):
                setattr(link, n, a)
            stand_ins = [Variable(a, requires_grad=v.requires_grad) for v, a in zip(variables, x_in)]
            out = func(chain, *_unflatten(stand_ins, args_shape))
            out_leaves, out_shape = _flatten(out)
            out_vars = [y if isinstance(y, Variable) else Variable(y) for y in out_leaves]
            outputs = [y.array for y in out_vars]
            persistents = [getattr(link, n) for link, n in slots]
            recording.mark()
            gys, grads = [], []
            if with_backward:
                gys = recording.inputs([_ones_on_its_device(y) for y in outputs])
                roots = [(y._data, g) for y, g in zip(out_vars, gys) if type(y._data) is Tracer]
                got = backward(roots)
                for v in [*params, *stand_ins]:
                    data = v._data
                    grads.append(got.get(data.record) if type(data) is Tracer else None)
        finally:
            for p, a in zip(params, originals):
                p.array = a
    persistent_values = [p.value if type(p) is CapturedArray else p for p in persistents]
    for (link, n), value, original in zip(slots, persistent_values, persistent_originals):
        setattr(link, n, original if value is None else value)
    forward, backward_plan, residuals = recording.compile(
        [*p_in, *s_in, *x_in], [*outputs, *persistents], gys, grads, name
    )
    if recording.changed_after_mark(residuals):
        raise CaptureError(
            "static_graph: the backward pass writes into a value of the forward pass in place, so "
            "this call's recorded values cannot serve its backward pass"
        )
    schedule = _Schedule(
        forward, backward_plan if with_backward else None, len(outputs), len(slots), out_shape
    )
    values = [o.value if type(o) is CapturedArray else o for o in outputs]
    kept = [c.value for c in residuals]
    return schedule, (values, persistent_values, kept)


def static_graph(*args, **kwargs):
    """Mark a chain's ``__call__`` (or ``forward``) as a static graph (decorator, with or without
    Chainer's options ``force_test_define_by_run``, ``minimize_cache_size``,
    ``verbosity_level``, ``enable_double_backprop``)."""
    if len(args) == 1 and not kwargs and callable(args[0]):
        return _decorate(args[0], {})
    if args:
        raise TypeError("static_graph: options are keyword arguments, e.g. @static_graph(verbosity_level=1)")
    known = {"force_test_define_by_run", "minimize_cache_size", "verbosity_level", "enable_double_backprop"}
    unknown = set(kwargs) - known
    if unknown:
        raise TypeError(f"static_graph: unknown option(s) {sorted(unknown)}; Chainer's are {sorted(known)}")
    return lambda func: _decorate(func, kwargs)


def _decorate(func, options: dict):
    force_test_define_by_run = options.get("force_test_define_by_run", False)
    minimize_cache_size = options.get("minimize_cache_size", False)
    verbosity = options.get("verbosity_level", 0)
    double_backprop = options.get("enable_double_backprop", False)

    def static_chain_call(chain, *args, **kwargs):
        config = configuration.config
        if not config.use_static_graph or is_recording():
            return func(chain, *args, **kwargs)
        if kwargs:
            raise TypeError(
                "static_graph: a static chain takes no keyword arguments (Chainer's restriction)\n"
                "  hint: pass Variables, arrays, or lists and tuples of them, by position"
            )
        if verbosity >= 2:
            print("Calling static chain...")
        if not hasattr(chain, "schedule_manager"):
            chain.schedule_manager = ScheduleManager(minimize_cache_size, verbosity)
        manager = chain.schedule_manager
        if config.train is False and force_test_define_by_run:
            return func(chain, *args)
        leaves, shape = _flatten(args)
        # an array given as it is needs no gradient (as in define-by-run): no backward work for it
        variables = [x if isinstance(x, Variable) else Variable(x, requires_grad=False) for x in leaves]
        params = list(chain.params())
        if double_backprop or any(p.array is None for p in params):
            chain.static_schedule = manager.schedules.get(None, _DEFINE_BY_RUN)
            return func(chain, *_unflatten(variables, shape))  # sizes lazy parameters first
        slots = persistent_array_slots(chain)
        key = _signature(params, slots, variables)
        schedule = manager.schedules.get(key)
        if schedule is _DEFINE_BY_RUN:
            chain.static_schedule = schedule
            return func(chain, *_unflatten(variables, shape))
        recorded = None
        if schedule is None:
            name = f"{type(chain).__name__}.{func.__name__}"
            try:
                schedule, recorded = _record(
                    func, chain, shape, params, slots, variables, bool(config.enable_backprop), name
                )
            except CaptureError as error:
                warnings.warn(
                    f"static_graph: {name} cannot be recorded, so it runs define-by-run on every "
                    f"call:\n{error}",
                    RuntimeWarning,
                    stacklevel=2,
                )
                manager.schedules[key] = _DEFINE_BY_RUN
                chain.static_schedule = _DEFINE_BY_RUN
                return func(chain, *_unflatten(variables, shape))
            if manager.minimize_cache_size:
                manager.schedules.clear()
            manager.schedules[key] = schedule
            if verbosity >= 1:
                print(f"static_graph: recorded a new schedule for {name}: {schedule}")
        chain.static_schedule = schedule
        node = StaticScheduleFunction(schedule, slots, len(variables), recorded)
        outputs = node.apply([*params, *variables])
        return _unflatten(list(outputs), schedule.out_shape)

    static_chain_call.__name__ = getattr(func, "__name__", "static_chain_call")
    static_chain_call.__doc__ = func.__doc__
    static_chain_call.__wrapped__ = func
    return static_chain_call
