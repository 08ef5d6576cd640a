"""Traced values: a Tracer boxes a value on a trace level and points at the Record that made it.

A Record is one application of a primitive: the primitive, the parent tracers of its operands,
the operands as seen on that level, its static parameters, its output and a sequence number.
Sequence numbers only grow, so sorting Records by descending number is a topological order.
Records hold their parents (not a global list), so an unused branch is garbage-collected.

Levels nest (HIPS autograd's idea): each transform opens a new, higher level; a primitive
unboxes only the tracers of the highest level among its operands and calls itself again on
the rest, so ``grad(grad(f))`` and gradients that close over outer tracers come out right.
"""

from __future__ import annotations

import contextlib
import contextvars
import itertools
import weakref

import numpy

from ..errors import InvalidInputError, TracerConversionError, aval, message

__all__ = [
    "Tracer",
    "Record",
    "new_level",
    "no_grad",
    "grad_mode",
    "grad_enabled",
    "set_grad_enabled",
    "restore_grad_enabled",
    "set_default_grad_enabled",
    "default_grad_enabled",
    "unbox",
    "unbox_all",
    "shape_of",
    "recording_everything",
]

_sequence = itertools.count()
_last_level = 0  # level 0 is kept for an always-on outer level (the Chainer layer)

# The levels that record nothing: those up to this one (-1: every level records). A context
# (thread) that never set it follows ``_frozen_default``, which ``set_default_grad_enabled`` sets.
_no_grad: contextvars.ContextVar[int] = contextvars.ContextVar("fnet_no_grad")
_frozen_default = -1

# The level on which non-differentiable primitives (comparisons, argmax) are recorded too, so
# that a walk over the tape (ONNX export) sees them, and the list their records are added to;
# level -1: none, their outputs stay unboxed.
_everything: contextvars.ContextVar[tuple[int, list | None]] = contextvars.ContextVar(
    "fnet_everything", default=(-1, None)
)


def new_level() -> int:
    """A fresh trace level, higher than every level opened before."""
    global _last_level
    _last_level += 1
    return _last_level


class Record:
    """One recorded primitive application (or, with ``primitive`` None, an input of a trace).

    A layer above may attach what it knows of the application to ``note`` (fnet.compat:
    Chainer's node) and cut a record from its parents (truncated backprop) with ``cut``.
    """

    # ``note``: unset, or what a layer above attaches to this application (fnet.compat: Chainer's node)
    __slots__ = ("primitive", "parents", "args", "params", "ans", "seq", "level", "note", "__weakref__")
    #: True for an input made with an owner (``Tracer.input(..., owner=...)``), even once it is gone.
    owned = False

    def __init__(self, primitive, parents, args, params, ans, level):
        self.primitive = primitive
        self.parents = parents  # per positional operand: the Tracer on this level, or None
        self.args = args  # the operands with this level's tracers unboxed
        self.params = params  # static keyword parameters
        self.ans = ans  # the output with this level unboxed
        self.seq = next(_sequence)
        self.level = level

    @property
    def owner(self):
        """The object an input record was made for (``Tracer.input(..., owner=...)``); None for
        other records, and once the owner is gone (it is held weakly)."""
        return None

    def cut(self) -> tuple:
        """Forget the parents, so that backward stops here and what made them can be freed;
        returns the parents the record had (``relink`` puts them back).

        >>> import fnet
        >>> x = Tracer.input(2.0, new_level())
        >>> y = fnet.ops.multiply(x, x)
        >>> parents = y.record.cut()
        >>> y.record.parents, len(parents)
        ((None, None), 2)
        """
        parents = self.parents
        self.parents = (None,) * len(parents)
        return parents

    def relink(self, parents) -> None:
        """Link the record to ``parents`` again: what ``cut`` returned."""
        if len(parents) != len(self.parents):
            raise InvalidInputError(
                message(
                    "Record.relink",
                    f"expected {len(self.parents)} parents (one per operand), got {len(parents)}",
                    hint="pass the tuple that cut() returned for this record",
                )
            )
        self.parents = tuple(parents)

    def __repr__(self):
        name = self.primitive.name if self.primitive is not None else "input"
        return f"Record({name}, seq={self.seq}, level={self.level})"


class _OwnedInput(Record):
    """An input record that knows, weakly, the object it was made for (``Tracer.input``)."""

    __slots__ = ("_owner",)
    owned = True

    def __init__(self, value, level: int, owner):
        Record.__init__(self, None, (), (), None, value, level)
        self._owner = weakref.ref(owner)

    @property
    def owner(self):
        return self._owner()


class Tracer:
    """A value on a trace level, with Python's operators (installed by ``fnet.ops``)."""

    __slots__ = ("value", "level", "record")
    __array_priority__ = 1000.0

    def __init__(self, value, level: int, record: Record):
        self.value = value
        self.level = level
        self.record = record

    @classmethod
    def input(cls, value, level: int, *, owner=None) -> Tracer:
        """Box ``value`` as an input of the trace on ``level``.

        ``owner`` (held weakly) is the object that presents this input, such as fnet.compat's
        Variable: backward's result is keyed by records, and ``record.owner`` leads back to it.
        """
        if owner is None:
            return cls(value, level, Record(None, (), (), None, value, level))
        return cls(value, level, _OwnedInput(value, level, owner))

    # -- array attributes -------------------------------------------------------------------
    @property
    def shape(self):
        return self.value.shape

    @property
    def ndim(self):
        return self.value.ndim

    @property
    def dtype(self):
        return self.value.dtype

    @property
    def size(self):
        return self.value.size

    def __len__(self):
        return len(self.value)

    def __repr__(self):
        return f"Tracer<level {self.level}>({self.value!r})"

    # -- concrete values: define-by-run, so Python control flow on values just works ----------
    def __bool__(self):
        return bool(self.value)

    def __float__(self):
        return float(self.value)

    def __int__(self):
        return int(self.value)

    def item(self):
        """The value as a Python scalar (not differentiable)."""
        return unbox_all(self).item()

    def __array__(self, dtype=None, copy=None):
        raise TracerConversionError(
            message(
                "numpy.asarray",
                "cannot convert a traced value to a NumPy array: the gradient would be lost",
                {"value": self},
                "use fnet.ops functions on traced values, or fnet.stop_gradient(x) "
                "if you want the value without its gradient",
            )
        )

    def __setitem__(self, index, value):
        raise TracerConversionError(
            message(
                "__setitem__",
                "traced values are immutable: in-place assignment would break the recorded graph",
                {"value": self},
                "build a new value instead: fnet.ops.where(mask, new, x), or "
                "x + fnet.ops.scatter_add(fnet.ops.zeros_like(x), index, delta)",
            )
        )

    def __iter__(self):
        return (self[i] for i in range(len(self)))

    __hash__ = object.__hash__


def unbox(x, level: int):
    """The value of ``x`` on ``level`` (``x`` itself if it is not a tracer of that level)."""
    return x.value if type(x) is Tracer and x.level == level else x


def unbox_all(x):
    """The concrete value of ``x``, through every level."""
    while type(x) is Tracer:
        x = x.value
    return x


def shape_of(x) -> tuple:
    """The shape of ``x``, traced or not (``()`` for Python scalars)."""
    return numpy.shape(unbox_all(x))


def grad_enabled() -> bool:
    """Whether operations on the traces open now are recorded (False inside ``no_grad()``)."""
    return _no_grad.get(_frozen_default) < 0


def set_grad_enabled(enabled: bool) -> contextvars.Token:
    """From now on in this context (thread): record operations (True), or record nothing on the
    traces open now (False; traces opened later record as usual). ``restore_grad_enabled(token)``
    undoes it; ``no_grad()`` is the two around a block."""
    return _no_grad.set(-1 if enabled else _last_level)


def restore_grad_enabled(token: contextvars.Token) -> None:
    """Undo the ``set_grad_enabled`` call that returned ``token``."""
    _no_grad.reset(token)


def set_default_grad_enabled(enabled: bool) -> None:
    """``set_grad_enabled`` for every context (thread) that has not set its own."""
    global _frozen_default
    _frozen_default = -1 if enabled else _last_level


def default_grad_enabled() -> bool:
    """What ``set_default_grad_enabled`` set last (True at start)."""
    return _frozen_default < 0


@contextlib.contextmanager
def grad_mode(enabled: bool):
    """Within this block, record operations (True, even inside ``no_grad()``) or record nothing
    on the traces open when it is entered (False); ``set_grad_enabled`` and its undo around it."""
    token = set_grad_enabled(enabled)
    try:
        yield
    finally:
        restore_grad_enabled(token)


def no_grad():
    """Within this block, operations on traced values are computed but not recorded.

    It applies to the traces open when the block is entered; a ``grad`` called inside the
    block opens a new trace and works as usual.

    >>> import fnet
    >>> def f(x):
    ...     with fnet.no_grad():
    ...         constant = x * x  # a plain value: no gradient flows through it
    ...     return constant * x
    >>> float(fnet.grad(f)(3.0))
    9.0
    """
    return grad_mode(False)


@contextlib.contextmanager
def recording_everything(level: int):
    """Within this block, non-differentiable primitives applied to tracers of ``level`` are
    recorded on it as well (their records have no VJP; nothing differentiates them). Yields
    the list of those records, in order: a walk over the tape can tell which of them it never
    reached (values read as data: indices, masks, Python ``if``).

    >>> import fnet
    >>> level = new_level()
    >>> x = Tracer.input(numpy.array([1.0, -1.0]), level)
    >>> with recording_everything(level) as made:
    ...     y = fnet.ops.greater(x, 0)
    >>> y.record.primitive.name, made == [y.record]
    ('greater', True)
    """
    made: list = []
    token = _everything.set((level, made))
    try:
        yield made
    finally:
        _everything.reset(token)


def describe(x) -> str:
    """Describe a value, traced or not, for messages."""
    return aval(unbox_all(x))
