"""The FunctionNode classes of Chainer's built-in functions (``ReLU``, ``LinearFunction``...).

Each class is made by :func:`node_class` from one line of ``_tree.py``'s table: its Chainer
name, its constructor's parameters and the lifted function it stands for. It holds no math:
``ReLU().apply((x,))`` calls ``functions.relu`` with the constructor's arguments as keywords,
and ``functions.relu(x).creator`` is a ``ReLU`` whose ``inputs``, ``outputs`` and ``rank`` are
those of that call. The lift makes the node (without running ``__init__``) and files it under
its outputs' records with :func:`_tape.attach`, so ``y.creator`` finds it.
"""

from __future__ import annotations

import functools
import inspect
import weakref

from ... import backend
from ...autodiff import Tracer
from .._tape import VariableNode, attach, attach_untraced, rank_of, tracer_node
from ..function_node import FunctionNode
from ..utils.type_check import InvalidType
from ..variable import Variable

__all__ = ["BuiltinNode", "node_class", "parse"]

APPEND = "*"  # in a class's parameter table: the value is an operand after the inputs


class BuiltinNode(FunctionNode):
    """The node of one call of a built-in function (a Chainer FunctionNode class's instance).

    The constructor takes Chainer's parameters (kept as attributes of their names); ``apply``
    runs the lifted function on the inputs with them. A node may be applied again, as in Chainer
    (``Dropout(0.5)`` applied twice uses the same mask): its graph is then that of the last call.
    """

    _call = None  # the lift's runner: _call(node, args, kwargs) -> the result, as Variables
    _parameters: tuple = ()  # (Chainer's parameter name, keyword of the function / APPEND / None)
    _keeps: tuple = ()  # attributes a call sets from the function's ``return_<name>`` results
    _sequence = False  # the function takes the inputs as one list (``concat(xs, axis)``)
    _pure = None  # the pure function the lift runs (for the number of inputs, and arguments())
    _args = None  # the operands of the last call (Variables unwrapped)
    _kwargs = None  # and its keyword arguments
    in_data = None  # the input arrays, while function hooks watch the call
    _out_grad = None
    _pending = False
    _rank_known = None  # (the operands of the call, its rank), once a rank was asked for

    def __init__(self, *args, **kwargs):
        names = [name for name, _ in self._parameters]
        if len(args) > len(names):
            raise TypeError(
                f"{type(self).__name__}() takes at most {len(names)} arguments ({len(args)} given)"
            )
        for name, value in zip(names, args):
            setattr(self, name, value)
        for name, value in kwargs.items():
            if name not in names:
                raise TypeError(f"{type(self).__name__}() got an unexpected keyword argument {name!r}")
            setattr(self, name, value)

    @classmethod
    def made(cls, value=None, pure=None):
        """A node made without its constructor for a call of ``pure`` (when it is not the class's
        function: a link's, whose call makes this node in Chainer), holding the constant ``value``
        of an operator's node (``x * 2``: a ``MulConstant`` of value 2) unless None."""
        node = cls.__new__(cls)
        if value is not None:
            node.value = value
        if pure is not None and pure is not cls._pure:
            node._pure = pure
        return node

    def apply(self, inputs) -> tuple:
        """Run the function on ``inputs`` (Variables or arrays); a tuple of output Variables."""
        operands = list(inputs)
        if self._sequence:
            operands = [operands]
        kwargs = {}
        for name, keyword in self._parameters:
            if name not in self.__dict__ or keyword is None:
                continue
            if keyword == APPEND:
                operands.append(self.__dict__[name])
            else:
                kwargs[keyword] = self.__dict__[name]
        _check_count(type(self), len(operands))
        out = type(self)._call(self, operands, kwargs)
        return out if isinstance(out, tuple) else (out,)

    @property
    def _impl_name(self) -> str:
        """The name profiling hooks file the node under: its class's."""
        return type(self).__name__

    @property
    def inputs(self):
        """The input VariableNodes of the last call (None before it)."""
        if self._args is None:
            return None
        return tuple(
            tracer_node(x) if type(x) is Tracer else Variable(x, requires_grad=False)._node
            for x in _operands(self._args)
        )

    @property
    def outputs(self):
        """Weak references to the output VariableNodes of the last call."""
        outs = self.__dict__.get("_outs")
        if outs is None:
            return None
        return tuple(weakref.ref(_output_node(ref())) for ref in outs)

    @property
    def rank(self) -> int:
        """The largest rank of the inputs (0 for leaves), found once per call."""
        inputs = self._rank_inputs()
        if inputs is None:
            return self._rank_known[1]
        rank = max((rank_of(x) for x in inputs), default=0)
        self._know_rank(rank)
        return rank

    def _rank_inputs(self) -> list | None:
        """The traced inputs of the last call; None when their rank is known (see ``rank_of``)."""
        known = self._rank_known
        if known is not None and known[0] is self._args:
            return None
        return [] if self._args is None else [x for x in _operands(self._args) if type(x) is Tracer]

    def _know_rank(self, rank: int) -> None:
        self._rank_known = (self._args, rank)  # kept while the node's graph is that of this call

    def arguments(self) -> dict:
        """The arguments of the last call, by the pure function's parameter names (defaults
        filled in)."""
        bound = inspect.signature(self._pure).bind(*self._args, **self._kwargs)
        bound.apply_defaults()
        return bound.arguments

    def unchain(self) -> None:
        self._args = self._rank_known = None
        self.__dict__.pop("_outs", None)

    def _attach(self, args, kwargs, out) -> bool:
        """Become the creator of the traced values in ``out``, the result of a call on ``args``
        and ``kwargs``; whether there were any."""
        if type(out) is Tracer:  # the common case, kept short
            record = out.record
            self._args = args
            self._kwargs = kwargs
            self._outs = (weakref.ref(record),)  # weak: the outputs' records hold the node
            record.note = self
            return True
        outs = [t for t in (out if type(out) is tuple or type(out) is list else ()) if type(t) is Tracer]
        if not outs:
            return False
        self._args = args
        self._kwargs = kwargs
        self._outs = [weakref.ref(t.record) for t in outs]
        for t in outs:
            attach(t.record, self)
        return True

    def _attach_untraced(self, args, kwargs, result) -> None:
        """Become the creator of the Variables in ``result``, made from arrays only (as Chainer
        records a node whenever backprop is enabled)."""
        outs = [v for v in (result if type(result) is tuple else (result,)) if isinstance(v, Variable)]
        self._args = args
        self._kwargs = kwargs
        self._outs = [weakref.ref(v) for v in outs]
        for v in outs:
            attach_untraced(v, self)


def _output_node(output):
    """The VariableNode of an output (its record, or its Variable when it holds an array; None
    when it is gone: then a node of nothing)."""
    if output is None or isinstance(output, Variable):
        return VariableNode(Variable(None) if output is None else output)
    return tracer_node(Tracer(output.ans, output.level, output))


def _operands(args) -> list:
    """The arrays and traced values among a call's arguments, as Chainer orders a node's inputs:
    those in lists and tuples first, then those in dicts (the parameters given to a link's spec)."""
    found, params = [], []

    def visit(value) -> None:
        t = type(value)
        if t is list or t is tuple:
            for v in value:
                visit(v)
        elif t is dict:
            params.append(value)
        elif t is Tracer or hasattr(value, "__array_interface__") or backend.is_array(value):
            found.append(value)

    visit(args)
    while params:
        for v in params.pop(0).values():
            visit(v)
    return found


@functools.cache
def _input_range(cls: type) -> tuple[int, int | None]:
    """How many inputs ``cls.apply`` takes: the pure function's leading positional parameters
    that no constructor parameter gives (those without a default are required)."""
    given = {keyword for _, keyword in cls._parameters if keyword not in (None, APPEND)}
    low = high = 0
    for p in inspect.signature(cls._pure).parameters.values():
        if p.kind is p.VAR_POSITIONAL:
            return low, None
        if p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) or p.name in given:
            break
        high += 1
        low += p.default is p.empty
    return low, high


def _check_count(cls: type, n: int) -> None:
    """Chainer's type check of the number of inputs, before the function runs."""
    low, high = _input_range(cls)
    if n < low or (high is not None and n > high):
        expected = f"{low} <= len(inputs)" + ("" if high is None else f" <= {high}")
        raise InvalidType(expected, f"len(inputs) == {n}", function=cls.__name__)


def parse(spec: str) -> tuple[str, tuple, tuple, str, bool]:
    """One class of the table: ``"Dropout(dropout_ratio=ratio, mask, return_mask) -> mask: dropout"``.

    A parameter is passed as the keyword of its name, or of the name after ``=``; ``p=*`` makes
    it an operand after the inputs, ``p=`` keeps it as an attribute only. ``-> a b`` names the
    attributes the call sets from ``return_a``... results. ``dropout[]`` takes the inputs as one
    list. Returns (class name, parameters, kept attributes, function name, takes a list).
    """
    head, function = (part.strip() for part in spec.rsplit(":", 1))
    head, _, keeps = head.partition("->")
    name, _, params = head.strip().partition("(")
    parameters = []
    for item in filter(None, (p.strip() for p in params.rstrip(") ").split(","))):
        key, eq, keyword = (s.strip() for s in item.partition("="))
        parameters.append((key, (keyword or None) if eq else key))
    sequence = function.endswith("[]")
    return name.strip(), tuple(parameters), tuple(keeps.split()), function.removesuffix("[]"), sequence


def node_class(spec: str, module: str, lifted, label=None, derived=None) -> type:
    """The Chainer class ``spec`` describes (see :func:`parse`), living in ``module`` and applied
    by the lifted function ``lifted``; ``label`` (a function of the node) replaces the class name
    as its label; ``derived`` adds attributes computed from the call's ``arguments()``."""
    name, parameters, keeps, function, sequence = parse(spec)
    namespace = {
        "__module__": module,
        "__qualname__": name,
        "__doc__": f"Chainer's ``{name}`` node: ``apply`` runs ``chainer.functions.{function}``.",
        "_call": staticmethod(lifted.run),
        "_pure": staticmethod(lifted.__wrapped__),
        "_parameters": parameters,
        "_keeps": keeps,
        "_sequence": sequence,
    }
    if label is not None:
        namespace["label"] = property(label)
    for attribute, compute in (derived or {}).items():
        namespace[attribute] = property(lambda node, compute=compute: compute(node.arguments()))
    return type(name, (BuiltinNode,), namespace)
