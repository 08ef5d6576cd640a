"""Primitives: operations on raw arrays, with their derivatives written in fnet operations.

A primitive's positional arguments are its operands (arrays, Python scalars or tracers);
keyword-only arguments are static parameters, never traced, handed to the VJP unchanged.

>>> import numpy
>>> @primitive
... def cube(x):
...     return x * x * x
>>> @cube.defvjp
... def _cube_vjp(g, ans, x):
...     return g * 3 * x * x
>>> float(cube(numpy.float64(2.0)))
8.0
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

from .. import backend
from ..errors import FnetError
from ..recording._record import call_recorded, recordings
from . import tracer as _tracer
from .tracer import Record, Tracer, _no_grad, unbox_all

__all__ = [
    "Primitive",
    "VariadicVJPs",
    "primitive",
    "all_primitives",
    "take_output",
    "set_application_observer",
]

_registry: dict[str, Primitive] = {}
# Called as ``observer(primitive, args, params)`` in place of each application's ``impl`` when a
# layer above sets one (fnet.compat: the function hooks see what a backward pass applies).
_observer = None


def set_application_observer(observer):
    """From now on run every primitive application through ``observer(primitive, args,
    params)`` (None: directly); returns the previous one. The observer's own applications are
    not observed."""
    global _observer
    previous, _observer = _observer, observer
    return previous


def _operands(impl: Callable, args: tuple) -> dict:
    """The operands of a call of ``impl`` by parameter name (``xs[1]``: an item of ``*xs`` or of a
    sequence), for the message of an error."""
    try:
        params = inspect.signature(impl).parameters.values()
    except (TypeError, ValueError):
        params = ()
    names = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    rest = next((p.name for p in params if p.kind is p.VAR_POSITIONAL), "operand")
    named = {}
    for i, arg in enumerate(args):
        name = names[i] if i < len(names) else f"{rest}[{i - len(names)}]"
        if isinstance(arg, (list, tuple)):
            named.update({f"{name}[{j}]": item for j, item in enumerate(arg)})
        else:
            named[name] = arg
    return named


class Primitive:
    """An operation known to the tape: ``impl`` computes it, ``vjps`` differentiate it.

    Attributes:
        name: the operation's name, used in messages.
        impl: raw operands in, one raw array out; written once for NumPy and CuPy.
        vjps: one function per operand, ``(g, ans, *operands, **params) -> cotangent`` or
            None for a symbolic zero, looked up as ``vjps[index]``: a tuple (``defvjp``), or
            :class:`VariadicVJPs` for any number of operands (``defvjp_variadic``). Written in
            fnet operations, so it can be differentiated.
        differentiable: False for operations whose outputs carry no gradient (comparisons,
            argmax): their outputs are never boxed.
        explain: optional ``(error, *operands, **params) -> Exception | None``; turns an
            error raised by ``impl`` into a typed fnet error that names the operands.
    """

    __slots__ = ("name", "impl", "vjps", "differentiable", "explain", "__dict__")

    def __init__(self, impl: Callable, name: str | None = None, *, differentiable: bool = True):
        self.name = name or impl.__name__
        self.impl = impl
        self.vjps: tuple = ()
        self.differentiable = differentiable
        self.explain = None
        self.__doc__ = impl.__doc__
        self.__wrapped__ = impl
        _registry[f"{getattr(impl, '__module__', None)}.{self.name}"] = self

    def defvjp(self, *vjps: Callable | None) -> Callable | None:
        """Declare the VJP of each operand, in order; usable as a decorator for one operand."""
        self.vjps = vjps
        return vjps[0] if len(vjps) == 1 else None

    def defvjp_variadic(self, make_vjp: Callable[[int], Callable | None]) -> Callable:
        """Declare the VJPs of a primitive with any number of operands: ``make_vjp(index)``
        returns the VJP of operand ``index``, made when first needed and kept (decorator).

        >>> import numpy
        >>> @primitive
        ... def total(*xs):
        ...     return sum(xs)
        >>> @total.defvjp_variadic
        ... def _total_vjp(index):
        ...     return lambda g, ans, *xs: g
        >>> total.vjps[5] is total.vjps[5]
        True
        """
        self.vjps = VariadicVJPs(make_vjp)
        return make_vjp

    def defexplain(self, explain: Callable) -> Callable:
        """Declare how errors of ``impl`` are explained (decorator)."""
        self.explain = explain
        return explain

    def __call__(self, *args, **params):
        for a in args:
            if type(a) is Tracer:
                return self._bind(args, params)
        return self._apply(args, params)

    def _apply(self, args, params):
        """Run ``impl`` on operands free of tracers, turning its errors into typed ones."""
        try:
            if recordings.count:  # a step is being captured: record impl's calls
                return call_recorded(self.impl, args, params)
            if _observer is not None:
                return self._observed(args, params)
            return self.impl(*args, **params)
        except FnetError:
            raise
        except (ValueError, TypeError, IndexError) as error:
            if isinstance(error, TypeError):  # a device refuses a host operand (CuPy: TypeError)
                backend.check_same_device(self.name.lstrip("_"), _operands(self.impl, args))
            if self.explain is not None:
                better = self.explain(error, *args, **params)
                if better is not None:
                    raise better from error
            raise

    def _observed(self, args, params):
        global _observer
        observer, _observer = _observer, None
        try:
            return observer(self, args, params)
        finally:
            _observer = observer

    def _bind(self, args, params):
        """Apply to traced operands: compute on the level below, record on the top level."""
        if not self.differentiable and not _records_everything(args):
            return self(*[unbox_all(a) for a in args], **params)
        frozen = _no_grad.get(_tracer._frozen_default)
        if frozen >= 0:  # inside no_grad(): levels opened before it record nothing
            args = [unbox_all(a) if type(a) is Tracer and a.level <= frozen else a for a in args]
            if not any(type(a) is Tracer for a in args):
                return self._apply(args, params)
        top = -1
        nested = False
        for a in args:
            if type(a) is Tracer:
                level = a.level
                if level != top:
                    nested = top >= 0
                    if level > top:
                        top = level
        parents = []
        values = []
        for a in args:
            if type(a) is Tracer and a.level == top:
                parents.append(a)
                value = a.value
                if type(value) is Tracer:
                    nested = True
                values.append(value)
            else:
                parents.append(None)
                values.append(a)
        if nested:  # operands on lower levels: let them record there first
            ans = self(*values, **params)
        else:
            ans = self._apply(values, params)
        out = Tracer(ans, top, Record(self, parents, values, params, ans, top))
        if not self.differentiable:  # recorded only inside recording_everything
            _tracer._everything.get()[1].append(out.record)
        return out

    def __repr__(self):
        return f"<fnet primitive {self.name}>"


def _records_everything(args) -> bool:
    """Whether a non-differentiable primitive is recorded: its tracers are on the level that
    ``tracer.recording_everything`` names (ONNX export), and on no other."""
    level = _tracer._everything.get()[0]
    return level >= 0 and all(a.level == level for a in args if type(a) is Tracer)


class VariadicVJPs(dict):
    """The VJPs of a variadic primitive, by operand index: ``make(index)`` makes each on the
    first lookup (a ``dict``, so a lookup after that costs what a tuple's does)."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[int], Callable | None]):
        super().__init__()
        self.make = make

    def __missing__(self, index: int):
        vjp = self[index] = self.make(index)
        return vjp


def primitive(impl: Callable | None = None, *, name: str | None = None, differentiable: bool = True):
    """Make a function on raw arrays into a ``Primitive`` (decorator, with or without arguments)."""
    if impl is None:
        return lambda f: Primitive(f, name, differentiable=differentiable)
    return Primitive(impl, name, differentiable=differentiable)


def all_primitives() -> dict[str, Primitive]:
    """Every primitive defined so far, by the module of its ``impl`` and its name (two modules
    may each have a private ``_sum``; redefining one in the same module replaces it)."""
    return dict(_registry)


@primitive
def take_output(outputs, *, index: int):
    """Output ``index`` of a primitive that returns a tuple of arrays."""
    return outputs[index]


@take_output.defvjp
def _take_output_vjp(g, ans, outputs, *, index):
    return tuple(g if i == index else None for i in range(len(outputs)))
