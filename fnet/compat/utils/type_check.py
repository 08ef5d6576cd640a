"""Chainer's type checks: conditions on input types that explain themselves when they fail.

A function's ``check_type_forward(in_types)`` receives one ``Variable`` per input whose value
is a :class:`TypeInfo` (shape, dtype, ndim, size). Attribute access, indexing, calls and
operators on such an expression build a new expression instead of a value, so that
``expect(x_type.ndim == 2)`` can show both the condition and the values that broke it::

    Expect: in_types[0].ndim == 2
    Actual: 3 != 2

In *light mode* (``with light_mode:``) the inputs are the arrays themselves and every
condition is a plain value: a check costs next to nothing. Functions run their check in light
mode first and only build expressions again to explain a failure (:func:`check_forward_types`).
"""

from __future__ import annotations

import abc
import contextlib
import functools
import math
import operator
import threading
from collections.abc import Callable, Sequence

import numpy

from ... import backend
from ...errors import InvalidInputError

__all__ = [
    "Expr",
    "Atom",
    "Constant",
    "Variable",
    "GetAttr",
    "GetItem",
    "Call",
    "UnaryOperator",
    "BinaryOperator",
    "BoolBinaryOperator",
    "Testable",
    "TypeInfo",
    "TypeInfoTuple",
    "LightTypeInfoTuple",
    "InvalidType",
    "get_types",
    "get_light_types",
    "expect",
    "same_types",
    "eval",
    "make_variable",
    "argname",
    "prod",
    "expect_broadcast_shapes",
    "light_mode",
    "LightMode",
    "get_function_check_context",
    "in_light_mode",
    "check_forward_types",
]

# Python's operator precedence, as used to decide where the text of an expression needs
# parentheses (higher binds tighter).
_COMPARISON, _OR, _XOR, _AND, _SHIFT, _SUM, _PRODUCT, _UNARY, _POWER, _ATOM = -1, 0, 1, 2, 3, 4, 5, 6, 7, 8


class InvalidType(InvalidInputError):
    """The inputs of a function do not have the types, shapes or number it needs.

    ``expect`` and ``actual`` describe the condition and what was found; the message is
    ``"Expect: <expect>\\nActual: <actual>"``, headed by the function's label when ``function``
    is given, or ``msg`` itself when one is given.

    >>> print(InvalidType("x.ndim == 2", "3 != 2", function="Linear"))
    <BLANKLINE>
    Invalid operation is performed in: Linear (Forward)
    <BLANKLINE>
    Expect: x.ndim == 2
    Actual: 3 != 2
    """

    def __init__(self, expect: str, actual: str, msg: str | None = None, *, function: str | None = None):
        self.expect = expect
        self.actual = actual
        self.msg = msg
        self.function = _checked_function() if function is None else function
        super().__init__(self._text())

    def _text(self) -> str:
        if self.msg is not None:
            return self.msg
        text = f"Expect: {self.expect}\nActual: {self.actual}"
        if self.function is None:
            return text
        return f"\nInvalid operation is performed in: {self.function} (Forward)\n\n{text}"

    def __reduce__(self):
        return functools.partial(type(self), function=self.function), (self.expect, self.actual, self.msg)

    @classmethod
    def from_error(cls, error: Exception) -> InvalidType:
        """The InvalidType for fnet's input error ``error``, keeping its message.

        ``expect`` and ``actual`` are read from the message's first line when it has fnet's form
        ``"<op>: expected <condition>, got <values>"``; otherwise they are empty.
        """
        first_line = str(error).split("\n", 1)[0]
        _, found, problem = first_line.partition(": expected ")
        expect, _, actual = problem.partition(", got ") if found else ("", "", "")
        kind = _InvalidTypeAndTypeError if isinstance(error, TypeError) else cls
        return kind(expect, actual, str(error))


class _InvalidTypeAndTypeError(InvalidType, TypeError):
    """An InvalidType made from a wrong type (an fnet ``DTypeError``): Chainer raises TypeError
    for those (e.g. ``F.sum(x, axis=[0])``), so it is both."""


# -- expressions -------------------------------------------------------------------------------
def _evaluate(value):
    """The value of an expression; lists and tuples are evaluated item by item."""
    if isinstance(value, Expr):
        return value.eval()
    if type(value) in (list, tuple):
        return type(value)(_evaluate(v) for v in value)
    if isinstance(value, slice):
        return slice(_evaluate(value.start), _evaluate(value.stop), _evaluate(value.step))
    return value


def _text(value) -> str:
    """How an operand is written inside an expression: expressions by their text, the rest by repr."""
    if isinstance(value, Expr):
        return str(value)
    if isinstance(value, list):
        return f"[{', '.join(map(_text, value))}]"
    if isinstance(value, tuple):
        return f"({_text(value[0])},)" if len(value) == 1 else f"({', '.join(map(_text, value))})"
    return repr(value)


_repr = _text  # Chainer's name for it (its tests read type_check._repr)


def _grouped(value, loosest: int) -> str:
    """The text of ``value``, parenthesized when it is an expression binding looser than ``loosest``."""
    if isinstance(value, Expr) and value.priority < loosest:
        return f"({value})"
    return _text(value)


def _subscript_text(key) -> str:
    if key is Ellipsis:
        return "..."
    if isinstance(key, slice):
        parts = ["" if v is None else _text(v) for v in (key.start, key.stop, key.step)]
        return ":".join(parts if key.step is not None else parts[:2])
    if isinstance(key, tuple):
        return ", ".join(map(_subscript_text, key))
    return _text(key)


class Expr(abc.ABC):
    """An expression over input types, kept as a tree: ``eval()`` computes its value and
    ``str()`` writes it as Python source.

    Comparisons make conditions for :func:`expect`; arithmetic, attribute access, indexing and
    calls make larger expressions. An expression has no truth value (``and``/``or`` would
    silently drop conditions): pass several conditions to ``expect`` instead.

    >>> x, y = Variable(2, "x"), Variable(3, "y")
    >>> condition = x * 2 == y + 1
    >>> str(condition), condition.eval()
    ('x * 2 == y + 1', True)
    """

    def __init__(self, priority: int):
        self.priority = priority

    @abc.abstractmethod
    def eval(self):
        """The value of the expression."""

    def __getattr__(self, name: str):
        if name.startswith("__") and name.endswith("__"):  # protocols (copy, numpy...) are not attributes
            raise AttributeError(name)
        return GetAttr(self, name)

    def __getitem__(self, key):
        return GetItem(self, key)

    def __call__(self, *args):
        return Call(self, args)

    def __iter__(self):
        raise TypeError(
            f"type_check: the expression {self} cannot be iterated or unpacked\n"
            "  hint: index it (x_type.shape[0]) or get its value with type_check.eval(...)"
        )

    def __bool__(self):
        raise RuntimeError(
            "An Expr instance cannot be evaluated as bool. "
            "Please use chainer.utils.type_check.eval() to evaluate an expression."
        )


def _binary(symbol: str, priority: int, function: Callable, right_associative: bool = False):
    def forward(self, other):
        return BinaryOperator(priority, self, other, symbol, function, right_associative)

    def reflected(self, other):
        return BinaryOperator(priority, other, self, symbol, function, right_associative)

    return forward, reflected


def _comparison(symbol: str, inverse: str, function: Callable):
    def compare(self, other):
        return BoolBinaryOperator(self, other, symbol, inverse, function)

    return compare


def _unary(symbol: str, function: Callable):
    def apply(self):
        return UnaryOperator(_UNARY, self, symbol, function)

    return apply


_BINARY_OPERATORS = {
    "add": ("+", _SUM, operator.add),
    "sub": ("-", _SUM, operator.sub),
    "mul": ("*", _PRODUCT, operator.mul),
    "truediv": ("/", _PRODUCT, operator.truediv),
    "floordiv": ("//", _PRODUCT, operator.floordiv),
    "mod": ("%", _PRODUCT, operator.mod),
    "lshift": ("<<", _SHIFT, operator.lshift),
    "rshift": (">>", _SHIFT, operator.rshift),
    "and": ("&", _AND, operator.and_),
    "xor": ("^", _XOR, operator.xor),
    "or": ("|", _OR, operator.or_),
}
for _name, (_symbol, _priority, _function) in _BINARY_OPERATORS.items():
    _forward, _reflected = _binary(_symbol, _priority, _function)
    setattr(Expr, f"__{_name}__", _forward)
    setattr(Expr, f"__r{_name}__", _reflected)
Expr.__pow__, Expr.__rpow__ = _binary("**", _POWER, operator.pow, right_associative=True)
for _name, (_symbol, _inverse, _function) in {
    "eq": ("==", "!=", operator.eq),
    "ne": ("!=", "==", operator.ne),
    "lt": ("<", ">=", operator.lt),
    "le": ("<=", ">", operator.le),
    "gt": (">", "<=", operator.gt),
    "ge": (">=", "<", operator.ge),
}.items():
    setattr(Expr, f"__{_name}__", _comparison(_symbol, _inverse, _function))
for _name, (_symbol, _function) in {
    "neg": ("-", operator.neg),
    "pos": ("+", operator.pos),
    "invert": ("~", operator.invert),
}.items():
    setattr(Expr, f"__{_name}__", _unary(_symbol, _function))
Expr.__hash__ = None
del _name, _symbol, _priority, _function, _forward, _reflected, _inverse


class Atom(Expr):
    """An expression that binds tightest: a name, a constant, an attribute, an item, a call."""

    def __init__(self):
        super().__init__(_ATOM)


class Constant(Atom):
    """A constant value, written as its repr."""

    def __init__(self, value):
        super().__init__()
        self.value = value

    def __str__(self):
        return _text(self.value)

    def eval(self):
        return self.value


class Variable(Atom):
    """A value with a name: messages show the name, ``eval()`` gives the value.

    >>> x_type = get_types((numpy.zeros((3, 4)),), "in_types", False)[0]
    >>> in_size = Variable(5, "in_size")
    >>> try:
    ...     expect(x_type.shape[1] == in_size)
    ... except InvalidType as error:
    ...     print(error)
    Expect: in_types[0].shape[1] == in_size
    Actual: 4 != 5
    """

    def __init__(self, value, name: str):
        super().__init__()
        self.value = value
        self.name = name

    def __str__(self):
        return self.name

    def eval(self):
        return self.value


class GetAttr(Atom):
    """``obj.name`` (``name`` may be a string or a Constant holding one)."""

    def __init__(self, obj, name):
        super().__init__()
        self.obj = obj
        self.name = name

    def __str__(self):
        name = self.name.value if isinstance(self.name, Constant) else self.name
        if isinstance(name, str):
            return f"{_grouped(self.obj, _ATOM)}.{name}"
        return f"getattr({_text(self.obj)}, {_text(self.name)})"

    def eval(self):
        return getattr(_evaluate(self.obj), _evaluate(self.name))


class GetItem(Atom):
    """``obj[key]``; the key may contain expressions, slices and Ellipsis."""

    def __init__(self, obj, key):
        super().__init__()
        self.obj = obj
        self.key = key

    def __str__(self):
        return f"{_grouped(self.obj, _ATOM)}[{_subscript_text(self.key)}]"

    def eval(self):
        return _evaluate(self.obj)[_evaluate(self.key)]


class Call(Atom):
    """``obj(*args)``: a call evaluated only when the expression is."""

    def __init__(self, obj, args: tuple):
        super().__init__()
        self.obj = obj
        self.args = tuple(args)

    def __str__(self):
        return f"{_grouped(self.obj, _ATOM)}({', '.join(map(_text, self.args))})"

    def eval(self):
        return _evaluate(self.obj)(*(_evaluate(a) for a in self.args))


class UnaryOperator(Expr):
    """``-x``, ``+x`` or ``~x``."""

    def __init__(self, priority: int, term, exp: str, func: Callable):
        super().__init__(priority)
        self.term = term
        self.exp = exp
        self.func = func

    def eval(self):
        return self.func(_evaluate(self.term))

    def __str__(self):
        return self.exp + _grouped(self.term, self.priority)


class BinaryOperator(Expr):
    """``lhs <exp> rhs`` for an arithmetic or bitwise operator."""

    def __init__(self, priority: int, lhs, rhs, exp: str, func: Callable, right_associative: bool = False):
        super().__init__(priority)
        self.lhs = lhs
        self.rhs = rhs
        self.exp = exp
        self.func = func
        self.right_associative = right_associative

    def eval(self):
        return self.func(_evaluate(self.lhs), _evaluate(self.rhs))

    def __str__(self):
        # An operand of the same precedence needs parentheses on the side the operator does not
        # group from: x - (y - z), (x ** y) ** z.
        left = _grouped(self.lhs, self.priority + (1 if self.right_associative else 0))
        right = _grouped(self.rhs, self.priority + (0 if self.right_associative else 1))
        return f"{left} {self.exp} {right}"


class Testable(abc.ABC):
    """A condition that :func:`expect` can test."""

    @abc.abstractmethod
    def expect(self) -> None:
        """Raise :class:`InvalidType` if the condition does not hold."""


class BoolBinaryOperator(BinaryOperator, Testable):
    """A comparison ``lhs <exp> rhs``; when it fails, ``Actual`` shows both values with the
    inverse operator ``inv`` (``3 != 2``)."""

    def __init__(self, lhs, rhs, exp: str, inv: str, func: Callable):
        super().__init__(_COMPARISON, lhs, rhs, exp, func)
        self.inv = inv

    def expect(self) -> None:
        left, right = _evaluate(self.lhs), _evaluate(self.rhs)
        if not self.func(left, right):
            raise InvalidType(f"{self.lhs} {self.exp} {self.rhs}", f"{left} {self.inv} {right}")


# -- type information --------------------------------------------------------------------------
class TypeInfo:
    """The type of an array as a type check sees it: ``shape``, ``dtype``, ``ndim`` and ``size``."""

    def __init__(self, shape: tuple, dtype):
        self.shape = shape
        self.dtype = dtype
        self.ndim = len(shape)

    @property
    def size(self) -> int:
        """The number of elements (the product of the shape)."""
        return math.prod(self.shape)

    def __repr__(self):
        return f"TypeInfo(shape={self.shape}, dtype={self.dtype})"


class TypeInfoTuple(tuple):
    """The types of a function's inputs: a tuple of :class:`Variable` expressions over
    :class:`TypeInfo`; ``name`` is how messages call it (``in_types``)."""

    name = "in_types"

    def size(self) -> Variable:
        """The number of inputs, as an expression named ``<name>.size``."""
        return Variable(len(self), f"{self.name}.size")


class LightTypeInfoTuple(tuple):
    """The inputs themselves, for checks in light mode (``size()`` is a plain int)."""

    def size(self) -> int:
        """The number of inputs."""
        return len(self)


def _type_of(name: str, index: int, array, accept_none: bool, shape) -> Variable:
    label = f"{name}[{index}]"
    if array is None and accept_none:  # a gradient that was not given
        return Variable(TypeInfo((), None), label)
    if not backend.is_array(array):
        raise InvalidType(f"isinstance({label}, ndarray)", f"type({label}) == {type(array)}")
    return Variable(TypeInfo(array.shape if shape is None else tuple(shape), array.dtype), label)


def get_types(
    data: Sequence, name: str, accept_none: bool, *, shapes: Sequence | None = None
) -> TypeInfoTuple:
    """The types of the arrays ``data`` as a :class:`TypeInfoTuple` whose items are named
    ``<name>[i]``; None items are allowed when ``accept_none``. ``shapes`` replaces the arrays'
    own shapes (for layouts whose semantic shape differs)."""
    if not isinstance(data, (tuple, list)):
        raise AssertionError(  # Chainer's type for this misuse
            f"get_types: expected the tuple of input (or output) arrays, got {type(data).__name__}\n"
            "  hint: pass in_data as the tuple the function received, e.g. get_types((x,), 'in_types', False)"
        )
    data = tuple(data)
    shapes = (None,) * len(data) if shapes is None else tuple(shapes)
    types = TypeInfoTuple(_type_of(name, i, x, accept_none, s) for i, (x, s) in enumerate(zip(data, shapes)))
    types.name = name
    return types


def get_light_types(data: Sequence, *, shapes: Sequence | None = None) -> LightTypeInfoTuple:
    """The inputs for a check in light mode: the arrays themselves, or TypeInfos of ``shapes``."""
    if shapes is None:
        return LightTypeInfoTuple(data)
    return LightTypeInfoTuple(TypeInfo(tuple(s), x.dtype) for x, s in zip(data, shapes))


# -- light mode ---------------------------------------------------------------------------------
_local = threading.local()


def in_light_mode() -> bool:
    """Whether checks in this thread run in light mode (plain values, no expressions)."""
    return getattr(_local, "light", False)


class LightMode:
    """The context in which type checks work on plain values (per thread; nestable); use the
    instance ``light_mode``."""

    def __enter__(self):
        saved = _local.__dict__.setdefault("saved", [])
        saved.append(in_light_mode())
        _local.light = True
        return self

    def __exit__(self, *exc):
        _local.light = _local.saved.pop()
        return False


light_mode = LightMode()


@contextlib.contextmanager
def get_function_check_context(f):
    """Within this block, an :class:`InvalidType` made without a ``function`` names ``f`` (its
    ``label``) as the function whose inputs are checked."""
    saved = getattr(_local, "function", None)
    _local.function = f
    try:
        yield
    finally:
        _local.function = saved


def _checked_function() -> str | None:
    """The label of the function of the enclosing ``get_function_check_context``, if any."""
    f = getattr(_local, "function", None)
    return None if f is None else getattr(f, "label", str(f))


# -- checking ----------------------------------------------------------------------------------
def _holds(condition) -> bool:
    return bool(condition.eval() if isinstance(condition, Expr) else condition)


def expect(*bool_exprs) -> None:
    """Test each condition in order; raise :class:`InvalidType` for the first that fails.

    The conditions are comparisons of expressions (``x_type.ndim == 2``); in light mode they
    are plain booleans.

    >>> x_type, = get_types((numpy.zeros((2, 3, 4), numpy.float32),), "in_types", False)
    >>> try:
    ...     expect(x_type.dtype.kind == "f", x_type.ndim == 2)
    ... except InvalidType as error:
    ...     print(error)
    Expect: in_types[0].ndim == 2
    Actual: 3 != 2
    """
    if in_light_mode():
        if not all(_holds(c) for c in bool_exprs):
            raise InvalidType("", "")
        return
    for condition in bool_exprs:
        if not isinstance(condition, Testable):
            raise TypeError(
                f"type_check.expect: expected comparisons of type-check expressions, got "
                f"{type(condition).__name__} {condition!r}\n"
                "  hint: compare the expressions themselves (x_type.ndim == 2), not values taken out of them"
            )
        condition.expect()


def eval(exp):
    """The value of ``exp`` (in light mode, ``exp`` already is one)."""
    return exp if in_light_mode() else _evaluate(exp)


def make_variable(value, name: str):
    """A named :class:`Variable` of ``value`` (in light mode, the value itself)."""
    return value if in_light_mode() else Variable(value, name)


def same_types(*arrays) -> bool:
    """Whether the arrays are all NumPy arrays or all CuPy arrays."""
    if all(isinstance(x, numpy.ndarray) for x in arrays):
        return True
    return all(backend.is_array(x) and backend.xp(x) is not numpy for x in arrays)


def argname(in_types: Sequence, names: Sequence[str]) -> None:
    """Check that there is one input per name in ``names``, and use the names in messages.

    >>> types = get_types((numpy.zeros(3), numpy.zeros(2)), "in_types", False)
    >>> argname(types, ("x", "W"))
    >>> str(types[1].ndim == 2)
    'W.ndim == 2'
    """
    if len(in_types) != len(names):
        raise InvalidType(f"{len(names)} argument(s) ({', '.join(names)})", f"{len(in_types)} argument(s)")
    for in_type, name in zip(in_types, names):
        if isinstance(in_type, Variable):
            in_type.name = name


_argname = argname  # the name Chainer's own functions use


def _product(values) -> int:
    return math.prod(values)


_prod = Variable(_product, "prod")


def prod(xs):
    """The product of ``xs`` (a shape), as an expression ``prod(...)`` (a value in light mode)."""
    return _product(xs) if in_light_mode() else _prod(xs)


def expect_broadcast_shapes(*shape_types) -> None:
    """Check that shapes (expressions such as ``x_type.shape``) broadcast together."""
    shapes = [tuple(eval(s)) for s in shape_types]
    try:
        numpy.broadcast_shapes(*shapes)
    except ValueError:
        lines = ["cannot broadcast inputs of the following shapes:"]
        lines += [f"{shape_type} = {shape}" for shape_type, shape in zip(shape_types, shapes)]
        raise InvalidType("", "", msg="\n".join(lines)) from None


def check_forward_types(check: Callable, in_data: Sequence, label: str) -> None:
    """Run a function's ``check_type_forward`` on its input arrays, as Chainer does.

    The check runs in light mode first; only when it fails does it run again on expressions,
    so that the :class:`InvalidType` raised names the condition, the values and ``label``.
    """
    in_data = tuple(in_data)
    try:
        with light_mode:
            check(get_light_types(in_data))
        return
    except InvalidType:
        pass
    try:
        check(get_types(in_data, "in_types", False))
    except InvalidType as error:
        raise InvalidType(error.expect, error.actual, error.msg, function=label) from None
