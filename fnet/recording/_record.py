"""Recording a step: ``CapturedArray`` stands in for each array, and every NumPy call made on
one becomes an ``Op`` of the ``Recorder`` that is active.

A captured array holds the real value, so the step computes as it does eagerly while it is
recorded; NumPy hands every ufunc and array function that meets one to its
``__array_ufunc__``/``__array_function__``, its methods and operators are its own, and each
records the raw call it makes. What cannot be recorded is refused, naming the line: turning a
value into a Python number or bool (control flow on values), into a plain NumPy array, or
writing it into an array that the recording does not know.
"""

from __future__ import annotations

import contextvars
import hashlib
import os
import sys

import numpy

from .. import backend
from ..errors import CaptureError, message

__all__ = [
    "CapturedArray",
    "Op",
    "Recorder",
    "active_recorder",
    "record_call",
    "record_effect",
    "call_recorded",
    "concrete_error",
    "recordings",
    "layout_of",
]

_active: contextvars.ContextVar[Recorder | None] = contextvars.ContextVar("fnet_capture", default=None)


class _Recordings:
    """How many recordings are under way, in every context: while none is, code on the hot
    path (a primitive's application) skips looking up the active recorder."""

    __slots__ = ("count",)

    def __init__(self):
        self.count = 0


recordings = _Recordings()

_FNET_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_CAPTURE_DIR = os.path.dirname(os.path.abspath(__file__))

# Array functions whose result's shape depends on the values: their shapes are checked on replay.
_VALUE_SHAPED = frozenset(
    {
        numpy.nonzero,
        numpy.argwhere,
        numpy.flatnonzero,
        numpy.unique,
        numpy.extract,
        numpy.compress,
        numpy.trim_zeros,
        numpy.setdiff1d,
        numpy.intersect1d,
        numpy.union1d,
    }
)
# Array functions that read only shapes and dtypes: answered without recording anything.
_STATIC = frozenset(
    {numpy.shape, numpy.ndim, numpy.size, numpy.result_type, numpy.iscomplexobj, numpy.isrealobj}
)
# Methods that change the array they are called on.
_IN_PLACE_METHODS = frozenset({"fill", "sort", "partition", "put", "itemset", "resize", "setfield"})
_PLAIN = (int, float, complex, bool, numpy.bool_)


def active_recorder() -> Recorder | None:
    """The recorder of the step being recorded in this context, or None."""
    return _active.get()


def _where() -> str:
    """The line of the caller's code (and of fnet's, when fnet made the call) that is running."""
    frame = sys._getframe(1)
    inner = None
    while frame is not None:
        filename = os.path.abspath(frame.f_code.co_filename)
        if not filename.startswith(_CAPTURE_DIR) and "numpy" not in filename.split(os.sep)[-3:-1]:
            here = f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}"
            if not filename.startswith(_FNET_DIR):
                return here if inner is None else f"{here} (in fnet at {inner})"
            inner = inner or here
        frame = frame.f_back
    return inner or "an unknown line"


def concrete_error(what: str, value) -> CaptureError:
    """The error for turning a recorded value into ``what`` (a Python value, a NumPy array)."""
    return CaptureError(
        message(
            "fnet.capture",
            f"the step being captured turns a value that depends on its inputs into {what}, at "
            f"{_where()}: a recording cannot follow Python code that depends on array values",
            {"value": value},
            "either make that value static (compute it from a static argument: "
            "capture(fn, static_argnums=...), or from shapes and dtypes only), or keep this step "
            "eager (call fn itself, not its captured form)",
        )
    )


class Op:
    """One raw call of a recorded step.

    ``kind`` is ``"call"`` (``fn(*args, **kwargs)``), ``"method"`` (``args[0].fn(*args[1:],
    **kwargs)``, ``fn`` a name), ``"attr"`` (``args[0].fn``), ``"getitem"`` (``args[0][args[1]]``)
    or ``"setitem"`` (``args[0][args[1]] = args[2]``). In ``args`` and ``kwargs`` a
    ``CapturedArray`` stands for the value that the recording gave it; anything else is a
    constant. ``result`` is a ``CapturedArray``, a tuple or list of results, or None.
    ``mutates`` lists the captured arrays written in place; ``fresh`` marks a result that shares
    memory with no operand (a ufunc's); ``guard`` one whose shape depends on values; ``effect``
    an op kept for what it does, not what it returns (a check that raises on bad values).
    """

    __slots__ = ("kind", "fn", "args", "kwargs", "result", "mutates", "fresh", "guard", "effect")

    def __init__(self, kind, fn, args, kwargs, result, mutates=(), fresh=False, guard=False, effect=False):
        self.kind, self.fn, self.args, self.kwargs = kind, fn, args, kwargs
        self.result, self.mutates, self.fresh, self.guard = result, mutates, fresh, guard
        self.effect = effect

    def __repr__(self):
        name = self.fn if isinstance(self.fn, str) else getattr(self.fn, "__name__", repr(self.fn))
        return f"Op({self.kind} {name})"


class Recorder:
    """The ops of one recording, in the order the step made them, and its captured arrays."""

    def __init__(self):
        self.ops: list[Op] = []
        self.slots = 0
        self.open = True
        # the plain arrays the ops read (constants of the replay), by id: (array, digest)
        self.constants: dict[int, tuple] = {}

    def input(self, value) -> CapturedArray:
        """A captured array standing for an input of the step."""
        return self._new(value)

    def _new(self, value) -> CapturedArray:
        array = CapturedArray(value, self.slots, self)
        self.slots += 1
        return array

    def wrap(self, raw, reuse: dict | None = None):
        """``raw`` (a call's result) with each array in it made a captured array (or, for an
        array written through ``out=``, the captured array that stood for it)."""
        if reuse and id(raw) in reuse:
            return reuse[id(raw)]
        if backend.is_array(raw):
            return self._new(raw)
        if type(raw) in (tuple, list):
            return type(raw)(self.wrap(r, reuse) for r in raw)
        if isinstance(raw, tuple) and hasattr(raw, "_fields"):  # a named tuple (linalg's results)
            return type(raw)(*(self.wrap(r, reuse) for r in raw))
        if raw is None or isinstance(raw, (str, numpy.dtype, type)):
            return raw
        raise concrete_error(f"a Python {type(raw).__name__}", raw)

    def record(self, op: Op):
        if not self.open:
            raise CaptureError(
                message(
                    "fnet.capture",
                    "a value of a finished recording was used after it ended (it was stored "
                    "outside the captured step, e.g. in a global or a closure)",
                    hint="return every value the step makes from the step itself",
                )
            )
        for array in _plain_arrays_in((op.args, op.kwargs)):
            if id(array) not in self.constants:
                self.constants[id(array)] = (array, _digest(array))
        self.ops.append(op)
        return op.result

    def check_constants(self) -> None:
        """Refuse a recording in which a plain array was changed in place after an op read it:
        a replay would give that op the array's last values, not those it read."""
        for array, digest in self.constants.values():
            if _digest(array) != digest:
                raise CaptureError(
                    message(
                        "fnet.capture",
                        "a plain array (not made from the step's inputs) that the step used was "
                        "changed in place later in the step: a replay would read its last values "
                        "where the recording read earlier ones",
                        {"array": array},
                        "make a new array instead of changing it, or make it from a recorded one "
                        "(numpy.zeros_like(x)), or keep this step eager",
                    )
                )


def _plain_arrays_in(template) -> list:
    """The NumPy arrays (not captured ones) in ``template``."""
    return _leaves_of_type(template, numpy.ndarray)


def _digest(array) -> bytes:
    """A digest of the array's contents (object arrays: their identity only)."""
    if array.dtype.kind == "O":
        return b""
    return hashlib.blake2b(array.tobytes(), digest_size=16).digest()


def _raw(template, recorder: Recorder):
    """``template`` with each captured array replaced by its value (through tuples, lists, dicts
    and slices); a captured array of another recording is an error."""
    kind = type(template)
    if kind is CapturedArray:
        if template.recorder is not recorder:
            raise CaptureError(
                message(
                    "fnet.capture",
                    "a value recorded by another captured step (or an earlier recording) was used here",
                    hint="pass it to this step as an argument instead of closing over it",
                )
            )
        return template.value
    if kind is tuple or kind is list:
        return kind(_raw(t, recorder) for t in template)
    if kind is dict:
        return {k: _raw(v, recorder) for k, v in template.items()}
    if kind is slice:
        return slice(*(_raw(t, recorder) for t in (template.start, template.stop, template.step)))
    return template


def _captured_in(template) -> list:
    """The captured arrays in ``template``."""
    return _leaves_of_type(template, CapturedArray)


def _leaves_of_type(template, leaf_type: type) -> list:
    """The objects of exactly ``leaf_type`` in ``template`` (through tuples, named tuples, lists,
    dicts and slices: the containers NumPy calls take their operands in and give results in)."""
    kind = type(template)
    if kind is leaf_type:
        return [template]
    if kind is tuple or kind is list or (isinstance(template, tuple) and hasattr(template, "_fields")):
        return [c for t in template for c in _leaves_of_type(t, leaf_type)]
    if kind is dict:
        return [c for t in template.values() for c in _leaves_of_type(t, leaf_type)]
    if kind is slice:
        return _leaves_of_type((template.start, template.stop, template.step), leaf_type)
    return []


def layout_of(x) -> tuple:
    """What a recording assumes of an input leaf: an array's type, shape, dtype and strides (a
    replay on another layout could take other paths through BLAS), or a non-array's value."""
    if backend.is_array(x):
        return (type(x), x.shape, x.dtype, getattr(x, "strides", None))
    return (type(x), x)


def _is_traced(x) -> bool:
    """An autodiff tracer (seen from below the tape): it records its operations itself."""
    return hasattr(x, "record") and hasattr(x, "level")


def _is_plain_array(x) -> bool:
    return type(x) is not CapturedArray and backend.is_array(x)


def record_call(fn, args: tuple, kwargs: dict):
    """Call ``fn`` on the values of the captured arrays in ``args``/``kwargs`` and record the
    call as one op (``fnet.recording.opaque`` uses this for functions kept whole, the device
    module's recording form for each of its functions). Captured arrays passed as ``out=`` are
    recorded as written in place. A call that returns no array and writes none (a check) is
    kept for its effect: a replay calls it again."""
    recorder = _active.get()
    written = tuple(_captured_in(kwargs.get("out")))
    raw = fn(*_raw(args, recorder), **_raw(kwargs, recorder))
    result = recorder.wrap(raw, {id(t.value): t for t in written})
    effect = not _captured_in(result) and not written
    return recorder.record(Op("call", fn, args, kwargs, result, mutates=written, effect=effect))


def record_effect(fn, args: tuple, kwargs: dict, written=()):
    """Call ``fn`` and record the call as one op that a replay always makes (code with side
    effects, such as Chainer's ``static_code``), whether or not it is given captured arrays;
    the captured arrays in ``written`` are ones it writes into in place."""
    recorder = _active.get()
    raw = fn(*_raw(args, recorder), **_raw(kwargs, recorder))
    result = recorder.wrap(raw)
    mutates = tuple(_captured_in(written))
    return recorder.record(Op("call", fn, args, kwargs, result, mutates=mutates, effect=True))


def call_recorded(impl, args: tuple, kwargs: dict):
    """``impl(*args, **kwargs)`` while a step is recorded: followed inside, op by op; if the
    recording cannot follow it (it branches on values, converts to NumPy...), its ops are
    dropped and the call is recorded whole, as ``opaque`` would (a primitive's ``impl``, or a
    VJP called by the backward engine on plain values)."""
    recorder = _active.get()
    if recorder is None or not (_captured_in(args) or _captured_in(kwargs)):
        return impl(*args, **kwargs)
    mark = len(recorder.ops)
    try:
        return impl(*args, **kwargs)
    except CaptureError:
        del recorder.ops[mark:]
        return record_call(impl, args, kwargs)


def _ufunc(self, ufunc, method, inputs, kwargs):
    recorder = self.recorder
    for x in inputs:
        if _is_traced(x):
            return NotImplemented  # a tracer: its own operators take over
    out = kwargs.get("out")
    if method == "at":
        targets = [inputs[0]]
    else:
        targets = list(out if type(out) is tuple else (() if out is None else (out,)))
    for target in targets:
        if _is_plain_array(target):
            raise CaptureError(
                message(
                    f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else f".{method}"),
                    f"the step being captured writes a recorded value into an array that the "
                    f"recording does not know (made by numpy.zeros, numpy.empty... or closed over), "
                    f"at {_where()}",
                    hint="make that array from a recorded one (numpy.zeros_like(x, shape=...)), or "
                    "build the result without writing in place",
                )
            )
    captured_targets = tuple(t for t in targets if type(t) is CapturedArray)
    raw = getattr(ufunc, method)(*_raw(inputs, recorder), **_raw(kwargs, recorder))
    reuse = {id(t.value): t for t in captured_targets}
    result = recorder.wrap(raw, reuse)
    fn = ufunc if method == "__call__" else getattr(ufunc, method)
    fresh = method == "__call__" and out is None
    return recorder.record(Op("call", fn, inputs, kwargs, result, mutates=captured_targets, fresh=fresh))


def _array_function(self, func, types_, args, kwargs):
    recorder = self.recorder
    if func in _STATIC:
        return func(*_raw(args, recorder), **_raw(kwargs, recorder))
    guard = func in _VALUE_SHAPED or (func is numpy.where and len(args) + len(kwargs) == 1)
    out = kwargs.get("out")
    if _is_plain_array(out):
        raise concrete_error("a plain array (through out=)", self)
    mutates = (out,) if type(out) is CapturedArray else ()
    raw = func(*_raw(args, recorder), **_raw(kwargs, recorder))
    result = recorder.wrap(raw, {id(out.value): out} if mutates else None)
    return recorder.record(Op("call", func, args, kwargs, result, mutates=mutates, guard=guard))


def _method(name: str):
    in_place = name in _IN_PLACE_METHODS

    def method(self, *args, **kwargs):
        recorder = self.recorder
        raw = getattr(self.value, name)(*_raw(args, recorder), **_raw(kwargs, recorder))
        if in_place:
            result, mutates = None, (self,)
        else:
            result, mutates = recorder.wrap(raw), ()
        return recorder.record(Op("method", name, (self, *args), kwargs, result, mutates=mutates))

    method.__name__ = name
    method.__doc__ = f"``ndarray.{name}``, recorded."
    return method


def _attribute(name: str):
    def get(self):
        recorder = self.recorder
        result = recorder.wrap(getattr(self.value, name))
        return recorder.record(Op("attr", name, (self,), {}, result))

    return property(get, doc=f"``ndarray.{name}``, recorded.")


def _binary(ufunc, reflected: bool = False, in_place: bool = False):
    def op(self, other):
        if not (type(other) is CapturedArray or isinstance(other, _PLAIN) or backend.is_array(other)):
            return NotImplemented
        if in_place and not isinstance(self.value, numpy.generic):  # a NumPy scalar is immutable
            return ufunc(self, other, out=(self,))
        return ufunc(other, self) if reflected else ufunc(self, other)

    return op


def _static(name: str):
    return property(lambda self: getattr(self.value, name), doc=f"``ndarray.{name}`` (no recording needed).")


class CapturedArray:
    """An array of a step being recorded: its value, and the slot that stands for it."""

    __slots__ = ("value", "slot", "recorder", "__weakref__")
    __array_priority__ = 100.0
    __hash__ = object.__hash__

    def __init__(self, value, slot: int, recorder: Recorder):
        self.value = value
        self.slot = slot
        self.recorder = recorder

    shape = _static("shape")
    dtype = _static("dtype")
    ndim = _static("ndim")
    size = _static("size")
    itemsize = _static("itemsize")
    nbytes = _static("nbytes")
    strides = _static("strides")
    flags = _static("flags")
    device = _static("device")

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        return _ufunc(self, ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types_, args, kwargs):
        return _array_function(self, func, types_, args, kwargs)

    def __array__(self, dtype=None, copy=None):
        raise concrete_error("a plain NumPy array", self)

    def __cupy_override_elementwise_kernel__(self, ufunc, *inputs, **kwargs):
        """A CuPy ufunc met a captured operand (``device_array - captured``): NumPy's ufunc of
        that name (CuPy's are NumPy's with ``cupy_`` before the name) records it."""
        name = getattr(ufunc, "name", "").removeprefix("cupy_")
        if not isinstance(getattr(numpy, name, None), numpy.ufunc):
            raise CaptureError(
                message(
                    f"cupy ufunc {getattr(ufunc, 'name', ufunc)!r}",
                    "the step being captured applies a CuPy operation that has no NumPy ufunc of "
                    f"its name to a recorded value, at {_where()}",
                    {"value": self},
                    "use the fnet.ops function of the same purpose, or keep this step eager",
                )
            )
        return _ufunc(self, getattr(numpy, name), "__call__", inputs, kwargs)

    def __getitem__(self, index):
        recorder = self.recorder
        raw = self.value[_raw(index, recorder)]
        guard = any(c.dtype == numpy.bool_ for c in _captured_in(index))
        return recorder.record(Op("getitem", None, (self, index), {}, recorder.wrap(raw), guard=guard))

    def __setitem__(self, index, value):
        recorder = self.recorder
        self.value[_raw(index, recorder)] = _raw(value, recorder)
        recorder.record(Op("setitem", None, (self, index, value), {}, None, mutates=(self,)))

    def __len__(self):
        return len(self.value)

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    def __repr__(self):
        return f"CapturedArray({self.dtype}{list(self.shape)}, slot {self.slot})"

    def __str__(self):
        raise CaptureError(
            message(
                "fnet.capture",
                f"the step being captured prints (or formats) a value that depends on its inputs, "
                f"at {_where()}: a replay would not print it",
                {"value": self},
                "return the value from the step and print it after the call, or keep this step eager",
            )
        )

    def __format__(self, spec):
        return self.__str__()

    def __bool__(self):
        raise concrete_error("a Python bool (an if, a while, and/or, or a comparison's truth)", self)

    def __float__(self):
        raise concrete_error("a Python float", self)

    def __int__(self):
        raise concrete_error("a Python int", self)

    def __index__(self):
        raise concrete_error("a Python int (an index or a size)", self)

    def __complex__(self):
        raise concrete_error("a Python complex", self)

    def __contains__(self, item):
        raise concrete_error("a Python bool (an 'in' test)", self)

    def __reduce__(self):
        raise concrete_error("a pickle", self)

    def item(self, *args):
        raise concrete_error("a Python scalar (.item())", self)

    def tolist(self):
        raise concrete_error("a Python list (.tolist())", self)

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()


for _name in (
    "reshape transpose astype sum mean max min prod all any argmax argmin cumsum cumprod std var "
    "ravel flatten copy squeeze swapaxes dot clip repeat take conj conjugate round diagonal trace "
    "argsort nonzero view fill sort partition put searchsorted compress choose ptp"
).split():
    setattr(CapturedArray, _name, _method(_name))
for _name in ("T", "mT", "real", "imag"):
    setattr(CapturedArray, _name, _attribute(_name))
for _name, _ufn in {
    "add": numpy.add,
    "sub": numpy.subtract,
    "mul": numpy.multiply,
    "truediv": numpy.true_divide,
    "floordiv": numpy.floor_divide,
    "mod": numpy.remainder,
    "pow": numpy.power,
    "matmul": numpy.matmul,
    "and": numpy.bitwise_and,
    "or": numpy.bitwise_or,
    "xor": numpy.bitwise_xor,
    "lshift": numpy.left_shift,
    "rshift": numpy.right_shift,
}.items():
    setattr(CapturedArray, f"__{_name}__", _binary(_ufn))
    setattr(CapturedArray, f"__r{_name}__", _binary(_ufn, reflected=True))
    setattr(CapturedArray, f"__i{_name}__", _binary(_ufn, in_place=True))
for _name, _ufn in {
    "lt": numpy.less,
    "le": numpy.less_equal,
    "gt": numpy.greater,
    "ge": numpy.greater_equal,
    "eq": numpy.equal,
    "ne": numpy.not_equal,
}.items():
    setattr(CapturedArray, f"__{_name}__", _binary(_ufn))
CapturedArray.__divmod__ = _binary(numpy.divmod)
CapturedArray.__rdivmod__ = _binary(numpy.divmod, reflected=True)
CapturedArray.__neg__ = lambda self: numpy.negative(self)
CapturedArray.__pos__ = lambda self: numpy.positive(self)
CapturedArray.__abs__ = lambda self: numpy.absolute(self)
CapturedArray.__invert__ = lambda self: numpy.invert(self)
del _name, _ufn

backend.register_array_type(CapturedArray)
