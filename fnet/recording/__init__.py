"""Capture and replay (``fnet.capture``): a step recorded once runs again as a flat list of raw NumPy calls.

``step = fnet.capture(train_step)`` records, on the first call with a given input signature,
every raw array call the step makes (forward pass, backward pass, optimizer update: all of it,
whatever made it), and compiles them into one Python function. Later calls with the same
signature run that function: no tracer, no tape, no tree walk, no dispatch; the same NumPy calls
in the same order, so the results are the eager step's, bit for bit.

The signature is the input tree's structure, each array leaf's type, shape, dtype and strides,
and each non-array leaf's value (Python numbers are static: a new value records again), with
the ``static_argnums``/``static_argnames`` arguments' values. A new signature records again; at
most ``max_records`` recordings are kept (the least recently used goes).

What a recording cannot follow is refused while recording, naming the line: Python control
flow on array values (``if loss > 0``, ``float(x)``), printing a value, or writing one into an
array the recording does not know. Random keys are arrays, so they are inputs: a replay with a
new key draws new numbers. Under an outer transform (``fnet.grad(captured)``) the step runs
eagerly. On CuPy arrays the recording holds CuPy's calls (``_device``), replayed on the device.

>>> import numpy, fnet
>>> step = fnet.capture(lambda w, x: fnet.grad(lambda w: fnet.ops.sum(fnet.ops.tanh(x @ w)))(w))
>>> w, x = numpy.ones((3, 2)), numpy.ones((4, 3))
>>> bool((step(w, x) == step(w, x)).all()), step.stats()["records"], step.stats()["replays"]
(True, 1, 1)
"""

from __future__ import annotations

import collections
import functools
from collections.abc import Callable, Sequence

from .. import backend
from .. import tree as _tree
from ..errors import ArgumentTypeError, message
from ._device import on_device
from ._plan import Plan, compile_plan
from ._record import (
    CapturedArray,
    Recorder,
    _active,
    _captured_in,
    _is_traced,
    active_recorder,
    layout_of,
    record_call,
    recordings,
)

__all__ = ["capture", "Captured", "CapturedArray", "opaque", "is_recording"]


def is_recording() -> bool:
    """Whether a captured step is being recorded in this context (for code with side effects,
    such as a reporter, that must refuse to run inside one)."""
    return active_recorder() is not None


def opaque(fn: Callable) -> Callable:
    """Record each call of ``fn`` on captured arrays as one op, called again on replay, instead
    of following it inside (decorator). For functions whose inside a recording cannot follow but
    whose result depends only on their arguments, such as a random draw from a key, or a check
    of values that raises on bad ones (a call that returns no array is kept for its effect)."""

    @functools.wraps(fn)
    def kept_whole(*args, **kwargs):
        if _active.get() is None or not (_captured_in(args) or _captured_in(kwargs)):
            return fn(*args, **kwargs)
        return record_call(fn, args, kwargs)

    return kept_whole


class Captured:
    """A captured step (see the module): call it as the function it wraps."""

    def __init__(self, fn: Callable, static_argnums=(), static_argnames=(), max_records: int = 8):
        if not callable(fn):
            raise ArgumentTypeError(
                message("fnet.capture", f"expected a function to capture, got {type(fn).__name__}")
            )
        if isinstance(max_records, bool) or not isinstance(max_records, int) or max_records < 1:
            raise ArgumentTypeError(
                message("fnet.capture", f"max_records must be a positive int, got {max_records!r}")
            )
        self.fn = fn
        nums, names = static_argnums, static_argnames
        self.static_argnums = (nums,) if isinstance(nums, int) else tuple(nums)
        self.static_argnames = (names,) if isinstance(names, str) else tuple(names)
        self.max_records = max_records
        self._plans: collections.OrderedDict = collections.OrderedDict()
        self._counts = {"records": 0, "replays": 0, "evictions": 0}
        functools.update_wrapper(self, fn)

    def stats(self) -> dict:
        """Counts: ``records`` (recordings made), ``replays``, ``evictions`` (recordings dropped
        for new signatures), ``cached`` (recordings kept now)."""
        return {**self._counts, "cached": len(self._plans)}

    def plans(self) -> list[Plan]:
        """The compiled recordings kept now, least recently used first (their ``source`` shows
        the calls a replay makes)."""
        return list(self._plans.values())

    def __call__(self, *args, **kwargs):
        if active_recorder() is not None:  # inside another recording: it records this too
            return self.fn(*args, **kwargs)
        statics, dynamic_args, dynamic_kwargs = self._split(args, kwargs)
        leaves, structure = _tree.flatten((dynamic_args, dynamic_kwargs))
        if any(_is_traced(leaf) for leaf in leaves):
            return self.fn(*args, **kwargs)  # under an outer transform: eager
        key = (structure, statics, tuple(layout_of(leaf) for leaf in leaves))
        try:
            plan = self._plans.get(key)
        except TypeError as error:
            raise ArgumentTypeError(
                message(
                    "fnet.capture",
                    f"every argument that is not an array must be hashable (it is part of the "
                    f"signature a recording is kept under): {error}",
                    hint="pass it as an array, or as a static argument of a hashable type "
                    "(a tuple, not a list)",
                )
            ) from error
        if plan is None:
            return self._record(key, leaves, structure, args, kwargs)
        self._plans.move_to_end(key)
        self._counts["replays"] += 1
        outputs = plan.replay(*[leaves[i] for i in plan.array_leaves])
        return _tree.unflatten(plan.out_structure, outputs)

    def _static_positions(self, n: int) -> set:
        """The positions among ``n`` positional arguments that ``static_argnums`` names."""
        return {i % n for i in self.static_argnums if -n <= i < n}

    def _split(self, args: tuple, kwargs: dict):
        nums = self._static_positions(len(args))
        statics = tuple(args[i] for i in sorted(nums)) + tuple(
            (k, kwargs[k]) for k in self.static_argnames if k in kwargs
        )
        dynamic_args = tuple(a for i, a in enumerate(args) if i not in nums)
        dynamic_kwargs = {k: v for k, v in sorted(kwargs.items()) if k not in self.static_argnames}
        return statics, dynamic_args, dynamic_kwargs

    def _record(self, key, leaves: list, structure, args: tuple, kwargs: dict):
        recorder = Recorder()
        array_leaves = [i for i, leaf in enumerate(leaves) if backend.is_array(leaf)]
        inputs = {i: recorder.input(leaves[i]) for i in array_leaves}
        stand_ins = [inputs.get(i, leaf) for i, leaf in enumerate(leaves)]
        dynamic_args, dynamic_kwargs = _tree.unflatten(structure, stand_ins)
        call_args, call_kwargs = self._merge(args, kwargs, dynamic_args, dynamic_kwargs)
        token = _active.set(recorder)
        recordings.count += 1
        try:
            result = self.fn(*call_args, **call_kwargs)
        finally:
            recordings.count -= 1
            _active.reset(token)
            recorder.open = False
        recorder.check_constants()
        out_leaves, out_structure = _tree.flatten(result)
        plan = compile_plan(
            recorder.ops,
            [inputs[i] for i in array_leaves],
            out_leaves,
            out_structure,
            array_leaves,
            getattr(self.fn, "__name__", "step"),
            reuse=not on_device(list(inputs.values())),
        )
        self._plans[key] = plan
        self._counts["records"] += 1
        if len(self._plans) > self.max_records:
            self._plans.popitem(last=False)
            self._counts["evictions"] += 1
        values = [o.value if type(o) is CapturedArray else o for o in out_leaves]
        return _tree.unflatten(out_structure, values)

    def _merge(self, args, kwargs, dynamic_args, dynamic_kwargs):
        n = len(args)
        nums = self._static_positions(n)
        it = iter(dynamic_args)
        call_args = tuple(args[i] if i in nums else next(it) for i in range(n))
        call_kwargs = {k: (kwargs[k] if k in self.static_argnames else dynamic_kwargs[k]) for k in kwargs}
        return call_args, call_kwargs


def capture(
    fn: Callable,
    static_argnums: int | Sequence[int] = (),
    static_argnames: str | Sequence[str] = (),
    max_records: int = 8,
) -> Captured:
    """Capture ``fn`` (see the module): the result is called as ``fn`` is, and gives what
    ``fn`` gives, replayed from a recording after the first call of each signature."""
    return Captured(fn, static_argnums, static_argnames, max_records)
