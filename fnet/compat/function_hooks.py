"""Function hooks (``chainer.function_hooks``): objects called around each function's forward and
backward.

A hook is active within its ``with`` block (in this thread), or for one node after
``node.add_hook(hook)``. User-defined ``FunctionNode`` and ``Function`` objects call the hooks
themselves. Built-in functions (``chainer.functions``) call them through :func:`observe`, which
``functions.lift`` takes only while a hook is active, the node has hooks of its own, or debug mode
is on: the ``function`` the hooks see is the node of that call, an instance of the Chainer class
the function stands for (``ReLU``, ``LinearFunction``: its ``label`` is Chainer's), or a
:class:`BuiltinFunction` labelled with the function's name for the few built-ins that Chainer
composes of other functions (``'average'``).

The backward of a built-in function is a run of recorded primitives. :func:`observe` brackets it
with two marker primitives that pass values through unchanged: the marker on the outputs calls
``backward_preprocess`` when the backward pass reaches it, the marker on the inputs calls
``backward_postprocess`` (and, in debug mode, checks the input gradients for NaN) once every
primitive of the function has been differentiated. A token operand links the two markers, so
the second is always reached after the first. Only functions whose forward ran under a hook or
debug mode have markers: a hook entered around ``backward()`` alone sees the backward of
user-defined functions only.
"""

from __future__ import annotations

import collections
import contextlib
import sys
import threading
import traceback
import warnings

import numpy

from .. import backend as _core_backend
from ..autodiff import Primitive, Tracer, grad_enabled, unbox_all
from ..autodiff.engine import set_record_observer
from ..autodiff.primitive import set_application_observer, take_output
from . import _debug_stack, configuration
from ._tape import attached
from ._timer import NestedCallTimer
from .backends import cuda
from .variable import Variable, set_backward_context

__all__ = [
    "FunctionHook",
    "BuiltinFunction",
    "TimerHook",
    "PrintHook",
    "CupyMemoryProfileHook",
    "CUDAProfileHook",
    "get_function_hooks",
    "active_hooks",
    "observing",
    "observe",
    "unmarked",
    "check_finite",
]


class _ThreadState(threading.local):
    """Per thread: the hooks entered with ``with``, by name, in order."""

    def __init__(self):
        self.hooks: dict = {}


_state = _ThreadState()
_config_store = configuration.config._local  # the thread's own configuration keys
_global_config = configuration.global_config


def get_function_hooks() -> dict:
    """The hooks active in this thread, by name, in the order they were entered."""
    return _state.hooks


def active_hooks(node) -> list:
    """The hooks that apply to ``node``: the thread's, then the node's own."""
    hooks = _state.hooks
    local = node._local_hooks
    if not hooks and not local:
        return []
    return [*hooks.values(), *(local or {}).values()]


def observing() -> bool:
    """Whether built-in functions must report to hooks: a hook is active in this thread, or
    debug mode is on (``config.debug``)."""
    return bool(_state.hooks or _config_store.__dict__.get("debug", _global_config.debug))


class FunctionHook:
    """Base of function hooks; override the callbacks you need. ``name`` keys the hook.

    >>> class Counter(FunctionHook):
    ...     name = "Counter"
    ...     calls = 0
    ...     def forward_preprocess(self, function, in_data):
    ...         self.calls += 1
    >>> import numpy, fnet.compat as chainer
    >>> with Counter() as counter:
    ...     _ = chainer.functions.relu(numpy.ones(3, numpy.float32))
    >>> counter.calls
    1
    """

    name = "FunctionHook"

    def __enter__(self):
        hooks = get_function_hooks()
        if self.name in hooks:
            raise KeyError(
                f"FunctionHook: a hook named {self.name!r} is already active in this thread\n"
                "  hint: give the second hook another name (set its .name) or leave the first block"
            )
        hooks[self.name] = self
        self.added(None)
        return self

    def __exit__(self, *exc):
        hook = get_function_hooks().pop(self.name)
        hook.deleted(None)

    def added(self, function=None) -> None:
        """Called when the hook is registered (``function`` None for a thread-wide hook)."""

    def deleted(self, function=None) -> None:
        """Called when the hook is unregistered."""

    def forward_preprocess(self, function, in_data) -> None:
        """Called before ``function``'s forward, with its input arrays."""

    def forward_postprocess(self, function, in_data) -> None:
        """Called after ``function``'s forward."""

    def backward_preprocess(self, function, in_data, out_grad) -> None:
        """Called before ``function``'s backward, with its inputs and output gradients."""

    def backward_postprocess(self, function, in_data, out_grad) -> None:
        """Called after ``function``'s backward."""


# -- built-in functions --------------------------------------------------------------------------
class BuiltinFunction:
    """What hooks see of one call of a built-in function that no Chainer class stands for: its
    name as ``label``, and its input arrays (kept for the backward callbacks)."""

    __slots__ = ("label", "in_data", "_out_grad", "_pending", "stack")
    _local_hooks = None

    @property
    def _impl_name(self) -> str:
        """The name profiling hooks file this call under: the function's name."""
        return self.label

    def __init__(self, label: str, in_data: tuple):
        self.label = label
        self.in_data = in_data
        self._out_grad = None
        self._pending = False
        self.stack = None

    def __repr__(self) -> str:
        return f"<BuiltinFunction {self.label}>"


def _arrays(value, found: list) -> list:
    """The arrays and traced values in ``value`` (looking into lists and tuples), in order."""
    t = type(value)
    if t is list or t is tuple:
        for v in value:
            _arrays(v, found)
    elif t is Tracer or isinstance(value, numpy.ndarray) or type(value).__module__.startswith("cupy"):
        found.append(value)
    return found


def _replace(value, new: dict):
    """``value`` with the traced values in ``new`` (by id) replaced, inside lists and tuples."""
    t = type(value)
    if t is list or t is tuple:
        return t(_replace(v, new) for v in value)
    if t is Tracer:
        return new.get(id(value), value)
    return value


def _distinct_level0(values) -> list:
    """The traced values of level 0 (the Chainer layer's) among ``values``, each once."""
    return list({id(x): x for x in values if type(x) is Tracer and x.level == 0}.values())


def _outputs_of(packed, n: int) -> list:
    """The ``n`` outputs of a marker's application."""
    return [take_output(packed, index=i) for i in range(n)]


def observe(node, run, args: list, kwargs: dict):
    """Run a built-in function, ``run(args, kwargs)``, in view of the active hooks and debug mode.

    Calls the hooks' forward callbacks around it with the input arrays, marks its traced inputs
    and outputs so that its backward calls the backward callbacks (see the module's text), and
    in debug mode raises ``RuntimeError`` when an output holds NaN. ``node`` is what the hooks
    see (a node of the call, or the function's name for a :class:`BuiltinFunction`); the key of
    a noise function (``kwargs['key']``) is not one of its inputs.
    """
    found = _arrays(args, [])
    _arrays([v for k, v in kwargs.items() if k != "key"], found)
    in_data = tuple(unbox_all(x) for x in found)
    if type(node) is str:
        node = BuiltinFunction(node, in_data)
    else:
        node.in_data = in_data
    hooks = active_hooks(node)
    for hook in hooks:
        hook.forward_preprocess(node, node.in_data)
    inputs = _distinct_level0(found)
    token = None
    if inputs and grad_enabled():
        token, *marked = _outputs_of(_enter(*inputs, node=node), len(inputs) + 1)
        new = dict(zip(map(id, inputs), marked))
        args = _replace(args, new)
        kwargs = {k: _replace(v, new) for k, v in kwargs.items()}
    if token is not None:
        node._hooked = True  # its markers call the backward callbacks
    out = run(args, kwargs)
    outputs = _distinct_level0(_arrays(out, [])) if token is not None else []
    if outputs:
        marked = _outputs_of(_exit(token, *outputs, node=node), len(outputs))
        out = _replace(out, dict(zip(map(id, outputs), marked)))
    for hook in hooks:
        hook.forward_postprocess(node, node.in_data)
    if configuration.config.debug:
        check_finite(node.label, "forward", [unbox_all(y) for y in _arrays(out, [])])
        node.stack = traceback.extract_stack()
    return out


@contextlib.contextmanager
def _hooks_see_backward():
    """While hooks are active in this thread, a backward pass shows them what Chainer's shows:
    the backward of each function (also of those applied before the hooks were entered) and,
    as applications, the operations that compute the gradients."""
    if not _state.hooks:
        yield
        return
    applications = set_application_observer(_show_application)
    records = set_record_observer(_show_backward)
    try:
        yield
    finally:
        set_application_observer(applications)
        set_record_observer(records)


def _show_application(primitive, args, params):
    if any(type(a) is Tracer for a in args):  # a recorded backward pass: its own graph
        return primitive.impl(*args, **params)
    return observe(primitive.name, lambda a, k: primitive.impl(*a, **k), list(args), params)


def _show_backward(record, g, starting: bool) -> None:
    """The backward callbacks of a built-in function applied without hooks (no markers)."""
    node = attached(record)
    if node is None or getattr(node, "_hooked", False):
        return
    hooks = active_hooks(node)
    if not hooks:
        return
    in_data = tuple(unbox_all(a) for a in record.args)
    out_grad = tuple(None if gy is None else unbox_all(gy) for gy in (g if type(g) is tuple else (g,)))
    for hook in hooks:
        if starting:
            hook.backward_preprocess(node, in_data, out_grad)
        else:
            hook.backward_postprocess(node, in_data, out_grad)


set_backward_context(_hooks_see_backward)


def check_finite(label: str, phase: str, arrays) -> None:
    """Debug mode: fail on NaN in the results of ``label``'s ``phase`` ('forward', 'backward')."""
    for a in arrays:
        if a is not None and a.dtype.kind == "f" and _core_backend.xp(a).isnan(a).any():
            raise RuntimeError(f"NaN is detected on {phase} computation of {label}")


def _enter_impl(*xs, node):
    return (numpy.zeros(0, numpy.float32), *xs)


def _exit_impl(token, *ys, node):
    return ys


def _marker_vjps(shift: int, first):
    """The VJPs of a marker, by operand index. The backward engine calls the VJP of operand 0
    first: it runs ``first(node, g)``, which gives that operand's cotangent; operand ``i`` > 0
    gets slot ``i + shift`` of the cotangent tuple ``g``."""

    def make(index: int):
        if index == 0:
            return lambda g, ans, *operands, node: first(node, g)
        slot = index + shift
        return lambda g, ans, *operands, node: g[slot]

    return make


def _before_backward(node, g):
    """At the outputs' marker (operand 0: the token): the backward of ``node`` starts."""
    node._out_grad = tuple(None if gy is None else unbox_all(gy) for gy in g)
    node._pending = True
    if node.stack is not None:
        _debug_stack.in_backward().append(node)
    for hook in active_hooks(node):
        hook.backward_preprocess(node, node.in_data, node._out_grad)
    return numpy.zeros(0, numpy.float32)


def _after_backward(node, g):
    """At the inputs' marker (operand 0: the first input): every primitive of ``node`` has been
    differentiated."""
    if node._pending:
        node._pending = False
        if node.stack is not None and node in _debug_stack.in_backward():
            _debug_stack.in_backward().remove(node)
        for hook in active_hooks(node):
            hook.backward_postprocess(node, node.in_data, node._out_grad)
        if configuration.config.debug:
            check_finite(node.label, "backward", [None if gx is None else unbox_all(gx) for gx in g[1:]])
    return g[1]


_enter = Primitive(_enter_impl, name="function_hook_entry")
_enter.defvjp_variadic(_marker_vjps(1, _after_backward))  # operands: the inputs; outputs: (token, *inputs)
_exit = Primitive(_exit_impl, name="function_hook_exit")
_exit.defvjp_variadic(_marker_vjps(-1, _before_backward))  # operands: (token, *outputs); outputs: the outputs
_MARKER_SHIFT = {_enter: -1, _exit: 1}  # output slot -> operand index, per marker


def unmarked(record, *, through_exit: bool):
    """The record of the value that hook markers passed on as ``record``'s value.

    An input marker's output is its operand (the same variable); with ``through_exit``, an
    output marker's output is the value the function computed (whose record tells which
    operation made it). Other records come back as they are.
    """
    while record.primitive is take_output:
        parent = record.parents[0]
        marker = None if parent is None else parent.record
        shift = None if marker is None else _MARKER_SHIFT.get(marker.primitive)
        if shift is None or (marker.primitive is _exit and not through_exit):
            return record
        index = record.params["index"] + shift
        operand = marker.parents[index] if index >= 0 else None  # the token stands for no value
        if operand is None:
            return record
        record = operand.record
    return record


# -- concrete hooks ------------------------------------------------------------------------------
def _function_name(function) -> str:
    """The name profiling hooks file ``function`` under: the class of its node (of the wrapped
    ``Function`` for an old-style one), the label of a built-in function that has no class."""
    return function._impl_name


def _summarize(history, fields: tuple[str, ...]) -> dict:
    """Totals per function name of the measurements in ``history`` (name, *values), with the
    number of calls as ``occurrence``."""
    summary: dict = collections.OrderedDict()
    for name, *values in history:
        record = summary.setdefault(name, {**dict.fromkeys(fields, 0), "occurrence": 0})
        for field, value in zip(fields, values):
            record[field] += value
        record["occurrence"] += 1
    return summary


def _write_table(rows: list[list[str]], file) -> None:
    """Write ``rows`` as right-aligned columns two spaces apart, then flush."""
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        file.write("  ".join(cell.rjust(w) for cell, w in zip(row, widths)))
        file.write("\n")
    if hasattr(file, "flush"):
        file.flush()


def _check_unit(where: str, unit: str, allowed) -> None:
    if unit not in allowed and unit not in ("auto", "auto_foreach"):
        choices = ", ".join(repr(u) for u in (*allowed, "auto", "auto_foreach"))
        raise KeyError(f"{where}: unit must be one of {choices}, got {unit!r}")


class TimerHook(FunctionHook, NestedCallTimer):
    """Measures the time each function takes in forward and backward.

    ``call_history`` holds ``(function name, seconds)`` pairs; ``total_time()`` sums the
    outermost calls, ``summary()`` totals per name, ``print_report()`` prints the table.
    On GPU arrays the time is measured with CUDA events.

    >>> import numpy, fnet.compat as chainer
    >>> with TimerHook() as hook:
    ...     y = chainer.functions.relu(chainer.Variable(numpy.ones((2, 3), numpy.float32)))
    >>> [name for name, _ in hook.call_history]
    ['ReLU']
    >>> hook.summary()['ReLU']['occurrence']
    1
    """

    name = "TimerHook"

    def __init__(self):
        self.call_history: list = []
        self._running_stack: list = []
        self._depth = 0
        self._total_time = 0.0

    def forward_preprocess(self, function, in_data) -> None:
        self._start_timing(_core_backend.xp(*in_data))

    def backward_preprocess(self, function, in_data, out_grad) -> None:
        self._start_timing(_core_backend.xp(*(in_data + out_grad)))

    def forward_postprocess(self, function, in_data) -> None:
        self._stop_timing(_function_name(function))

    def backward_postprocess(self, function, in_data, out_grad) -> None:
        self._stop_timing(_function_name(function))

    def total_time(self) -> float:
        """The seconds spent in the outermost hooked calls (nested calls are not counted twice)."""
        return self._total_time

    def summary(self) -> dict:
        """Per function name: ``{'elapsed_time': seconds, 'occurrence': calls}``."""
        return _summarize(self.call_history, ("elapsed_time",))

    def print_report(self, unit: str = "auto", file=sys.stdout) -> None:
        """Print the time per function name: ``unit`` is 'sec', 'ms', 'us', 'ns', 'auto' (one
        unit fitting the largest time) or 'auto_foreach' (a unit per row)."""
        _check_unit("TimerHook.print_report", unit, self.table)
        summary = self.summary()
        rows = [["FunctionName", "ElapsedTime", "Occurrence"]]
        if unit == "auto" and summary:
            factor, unit = self._choose_unit(max(r["elapsed_time"] for r in summary.values()))
        elif unit in self.table:
            factor = self.table[unit]
        for name, record in summary.items():
            seconds = record["elapsed_time"]
            if unit == "auto_foreach":
                factor, shown = self._choose_unit(seconds)
            else:
                shown = unit
            rows.append([name, f"{seconds * factor:3.2f}{shown}", str(record["occurrence"])])
        _write_table(rows, file)


class PrintHook(FunctionHook):
    """Prints each function's label and a description of its inputs (and, in backward, of the
    output gradients) before it runs.

    ``sep`` is deprecated and ignored (as in Chainer); ``end`` ends each printed block; the text
    goes to ``file``, flushed after each function when ``flush`` is true.
    """

    name = "PrintHook"

    def __init__(self, sep=None, end: str = "\n", file=sys.stdout, flush: bool = True):
        if sep is not None:
            warnings.warn(
                "PrintHook: the sep argument is deprecated and ignored", DeprecationWarning, stacklevel=2
            )
        self.sep = sep
        self.end = end
        self.file = file
        self.flush = flush

    def _print(self, text: str) -> None:
        self.file.write(text + self.end)

    def _process(self, function, in_data, out_grad=None) -> None:
        self._print(f"function\t{function.label}")
        self._print("input data")
        for x in in_data:
            self._print("(removed)" if x is None else Variable(x, requires_grad=False).debug_print())
        if out_grad is not None:
            self._print("output gradient")
            for gy in out_grad:
                if gy is None:
                    shown = Variable()
                else:
                    shown = Variable(_core_backend.xp(gy).zeros_like(gy))
                    shown.grad = gy
                self._print(shown.debug_print())
        if self.flush and hasattr(self.file, "flush"):
            self.file.flush()

    def forward_preprocess(self, function, in_data) -> None:
        self._process(function, in_data)

    def backward_preprocess(self, function, in_data, out_grad) -> None:
        self._process(function, in_data, out_grad)


def _cuda():
    """``chainer.backends.cuda``, after checking that CuPy works (``RuntimeError`` otherwise)."""
    cuda.check_cuda_available()
    return cuda


def _cumulative_memory_hook(cupy):
    """A CuPy memory hook that adds up the bytes taken from the pool and from the device."""

    class CupyMemoryCumulativeHook(cupy.cuda.memory_hook.MemoryHook):
        name = "CupyMemoryCumulativeHook"

        def __init__(self):
            self.used_bytes = 0
            self.acquired_bytes = 0

        def alloc_preprocess(self, **kwargs):
            self.acquired_bytes += kwargs["mem_size"]

        def malloc_preprocess(self, **kwargs):
            self.used_bytes += kwargs["mem_size"]

    return CupyMemoryCumulativeHook()


class CupyMemoryProfileHook(FunctionHook):
    """Measures the GPU memory each function takes from CuPy's memory pool (needs CuPy).

    ``call_history`` holds ``(function name, used bytes, acquired bytes, depth)``: the bytes
    taken from the pool, and those the pool took from the device, during the call.
    """

    name = "CupyMemoryProfileHook"
    _units = ("B", "KB", "MB", "GB", "TB", "PB", "EB", "ZB")
    _table = {u: 1024.0**i for i, u in enumerate(_units)}

    def __init__(self):
        cuda = _cuda()
        self.call_history: list = []
        self._memory_hook = _cumulative_memory_hook(cuda.cupy)
        self._running_stack: list = []
        self._total_used_bytes = 0
        self._total_acquired_bytes = 0

    def added(self, function=None) -> None:
        self._memory_hook.__enter__()

    def deleted(self, function=None) -> None:
        self._memory_hook.__exit__()

    def _preprocess(self) -> None:
        self._running_stack.append((self._memory_hook.used_bytes, self._memory_hook.acquired_bytes))

    def _postprocess(self, function) -> None:
        used0, acquired0 = self._running_stack.pop()
        used = self._memory_hook.used_bytes - used0
        acquired = self._memory_hook.acquired_bytes - acquired0
        depth = len(self._running_stack)
        self.call_history.append((_function_name(function), used, acquired, depth))
        if depth == 0:
            self._total_used_bytes += used
            self._total_acquired_bytes += acquired

    def forward_preprocess(self, function, in_data) -> None:
        self._preprocess()

    def backward_preprocess(self, function, in_data, out_grad) -> None:
        self._preprocess()

    def forward_postprocess(self, function, in_data) -> None:
        self._postprocess(function)

    def backward_postprocess(self, function, in_data, out_grad) -> None:
        self._postprocess(function)

    def total_used_bytes(self) -> int:
        """Bytes the outermost hooked calls took from the memory pool."""
        return self._total_used_bytes

    def total_acquired_bytes(self) -> int:
        """Bytes the memory pool took from the device during the outermost hooked calls."""
        return self._total_acquired_bytes

    def summary(self) -> dict:
        """Per function name: ``{'used_bytes', 'acquired_bytes', 'occurrence'}``."""
        history = [(name, used, acquired) for name, used, acquired, _ in self.call_history]
        return _summarize(history, ("used_bytes", "acquired_bytes"))

    def _choose_unit(self, size: float) -> tuple[float, str]:
        denominator = 1.0
        if size <= 0:
            return denominator, self._units[0]
        for unit in self._units[:-1]:
            if size / (denominator * 1024) < 1:
                return denominator, unit
            denominator *= 1024
        return denominator, self._units[-1]

    def print_report(self, unit: str = "auto", file=sys.stdout) -> None:
        """Print the memory per function name: ``unit`` is 'B', 'KB', ..., 'ZB', 'auto' (one
        unit per column, fitting its largest value) or 'auto_foreach' (a unit per cell)."""
        _check_unit("CupyMemoryProfileHook.print_report", unit, self._table)
        summary = self.summary()
        rows = [["FunctionName", "UsedBytes", "AcquiredBytes", "Occurrence"]]
        columns = ("used_bytes", "acquired_bytes")
        scales = {}
        for column in columns:
            if unit == "auto" and summary:
                scales[column] = self._choose_unit(max(r[column] for r in summary.values()))
            elif unit in self._table:
                scales[column] = (self._table[unit], unit)
        for name, record in summary.items():
            cells = [name]
            for column in columns:
                denominator, shown = (
                    self._choose_unit(record[column]) if unit == "auto_foreach" else scales[column]
                )
                cells.append(f"{record[column] / denominator:3.2f}{shown}")
            rows.append([*cells, str(record["occurrence"])])
        _write_table(rows, file)


class CUDAProfileHook(FunctionHook):
    """Marks each function's forward and backward as NVTX ranges for the CUDA profiler (needs
    CuPy built with NVTX)."""

    name = "CUDAProfileHook"

    def __init__(self):
        cupy = _cuda().cupy
        if not cupy.cuda.nvtx_enabled:
            raise RuntimeError(
                "CUDAProfileHook: CuPy was built without NVTX\n  hint: install a CuPy build with NVTX support"
            )
        self._nvtx = cupy.cuda.nvtx

    def forward_preprocess(self, function, in_data) -> None:
        self._nvtx.RangePush(function.label + ".forward")

    def forward_postprocess(self, function, in_data) -> None:
        self._nvtx.RangePop()

    def backward_preprocess(self, function, in_data, out_grad) -> None:
        self._nvtx.RangePush(function.label + ".backward")

    def backward_postprocess(self, function, in_data, out_grad) -> None:
        self._nvtx.RangePop()
