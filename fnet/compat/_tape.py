"""The Chainer layer's bookkeeping on fnet's tape: which Variable and which node stand for a Record.

A Variable holds a traced value; the Record that made the value is where Chainer's graph is read
from. This module keeps what the Chainer layer knows about records (the Variables presenting
them, the ones ``unchain`` cut, the nodes of built-in functions noted on them), the primitive
that applies a user's ``FunctionNode``, and the views that answer Chainer's questions: a
record's creator node (``node_of``), a traced value's ``VariableNode`` (``tracer_node``), and a
value's rank (``rank_of``). It stands below ``variable`` and ``function_node``, which both use it.
"""

from __future__ import annotations

import weakref

from ..autodiff import Primitive, Record, Tracer
from ..autodiff.primitive import take_output

__all__ = [
    "apply_node",
    "owners",
    "cut_records",
    "old_style",
    "label",
    "VariableNode",
    "PrimitiveNode",
    "attach",
    "attached",
    "attach_untraced",
    "untraced_creator",
    "node_of",
    "creator_of",
    "tracer_node",
    "rank_of",
]

# The Variables that present intermediate values, by the Record that made their value: backward
# with ``retain_grad`` gives them their grads, and graph views find their names.
owners: weakref.WeakValueDictionary = weakref.WeakValueDictionary()
# The Records of variables cut from their creators by ``unchain``: each stays in the graph of
# the values computed from it (so that backward reaches it) and is its variable's leaf there.
# Each maps to (a weak reference to the variable, the parents the record had).
cut_records: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
# The input records of gradients that an old-style Function's backward made in a recorded
# backward pass, with the Function's label: a gradient that cannot be differentiated again.
old_style: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# -- the primitive of a user's FunctionNode ---------------------------------------------------------
def _forward_impl(*inputs, node):
    return node._run_forward(inputs)


apply_node = Primitive(_forward_impl, name="FunctionNode")


@apply_node.defvjp_variadic
def _apply_node_vjp(index: int):
    def vjp(g, ans, *inputs, node):
        return node._gradient(index, g, ans, inputs)

    return vjp


# -- variables' nodes -------------------------------------------------------------------------------
def label(shape, dtype) -> str:
    """Chainer's label of a variable: ``(2, 3), float32``, the dtype alone for a scalar."""
    if shape is None:
        return "None"
    if shape == ():
        return str(dtype)
    return f"({', '.join(map(str, shape))}), {dtype}"


def _gone():
    """The weak reference of a node made for no variable: always dead."""
    return None


class VariableNode:
    """A variable's place in the graph: what made it, its shape and dtype, its name.

    A Variable has one node for its lifetime; a node whose variable is gone keeps what it
    showed (name, shape, dtype) for graph views. ``_rank`` pins the rank (Chainer keeps a
    variable's rank when it is cut from its creator); None derives it from the creator.
    """

    _rank = None

    def __init__(self, variable, name: str | None = None, **kwargs):
        if kwargs:
            if "grad" in kwargs:  # a v1 argument, refused with ValueError as Chainer v7 does
                raise ValueError(
                    "VariableNode: unexpected keyword argument 'grad'\n"
                    "  hint: pass the gradient to the Variable instead (Variable(data, grad=g) or v.grad = g)"
                )
            raise TypeError(f"VariableNode() got unexpected keyword argument(s) {', '.join(sorted(kwargs))}")
        self._variable = weakref.ref(variable)
        data = variable._data
        self._record = data.record if type(data) is Tracer else None
        self._name = variable.name if name is None else name
        array = variable.array
        self._shape = None if array is None else array.shape
        self._dtype = None if array is None else array.dtype
        self._requires_grad = variable.requires_grad

    @classmethod
    def _of_tracer(cls, tracer: Tracer) -> VariableNode:
        """The node of a traced value that no Variable presents (what it showed, for graph views)."""
        node = object.__new__(cls)
        node._variable = _gone
        node._record = tracer.record
        node._name = None
        value = tracer.value
        node._shape = value.shape
        node._dtype = value.dtype
        node._requires_grad = True
        return node

    def _seen(self, field: str):
        """``field`` of the live variable, or the value it had when last seen."""
        v = self._variable()
        if v is None:
            return getattr(self, "_" + field)
        array = v.array
        if field == "shape":
            return None if array is None else array.shape
        return None if array is None else array.dtype

    @property
    def name(self):
        v = self._variable()
        return self._name if v is None else v.name

    @name.setter
    def name(self, value) -> None:
        self._name = value
        v = self._variable()
        if v is not None:
            v.name = value

    @property
    def shape(self):
        return self._seen("shape")

    @property
    def dtype(self):
        return self._seen("dtype")

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @property
    def rank(self) -> int:
        v = self._variable()
        if v is not None:
            return v.rank
        if self._rank is not None:
            return self._rank
        creator = self.creator_node
        return 0 if creator is None else creator.rank + 1

    @property
    def data(self):
        """The variable's array; once the variable is gone, the array a function retained."""
        v = self._variable()
        return self._retained if v is None else v.array

    _retained = None

    def _retain(self, array) -> None:
        """Keep ``array`` (a function retained it for its backward) past the variable's life."""
        self._retained = array

    @property
    def creator_node(self):
        """The node that made the variable; it outlives the variable, as in Chainer's graph."""
        v = self._variable()
        if v is not None:
            return v.creator_node
        return None if self._record is None else creator_of(self._record)

    @property
    def creator(self):
        node = self.creator_node
        return getattr(node, "function", node) if node is not None else None

    @property
    def label(self) -> str:
        """A short text for the node: its variable's shape and dtype."""
        return label(self.shape, self.dtype)

    def unchain(self) -> None:
        """Cut the variable from its creator (see ``Variable.unchain``)."""
        v = self._variable()
        if v is not None:
            v.unchain()

    def get_variable(self):
        """The Variable of this node (or None once it is gone)."""
        return self._variable()

    def get_variable_or_none(self):
        return self._variable()


def tracer_node(tracer: Tracer) -> VariableNode:
    """The VariableNode of the variable ``tracer`` stands for."""
    record = tracer.record
    variable = record.owner if record.owned else owners.get(record)
    return variable._node if variable is not None else VariableNode._of_tracer(tracer)


# -- functions' nodes -------------------------------------------------------------------------------
class PrimitiveNode:
    """A view of a built-in operation in the graph, in the shape of a FunctionNode (for the
    operations that no Chainer class stands for)."""

    def __init__(self, record: Record):
        self._record = record

    @property
    def label(self) -> str:
        return self._record.primitive.name

    @property
    def inputs(self) -> tuple:
        return tuple(tracer_node(p) for p in self._record.parents if p is not None)

    @property
    def params(self) -> dict:
        """The operation's keyword parameters (a pooling's ``plan``, ...)."""
        return self._record.params

    @property
    def rank(self) -> int:
        return max((rank_of(p) for p in self._rank_inputs()), default=0)

    def _rank_inputs(self) -> list:
        return [p for p in self._record.parents if p is not None]

    def _know_rank(self, rank: int) -> None:
        """Nothing to keep: a view is made afresh each time."""

    def __eq__(self, other):
        return type(other) is PrimitiveNode and other._record is self._record

    def __hash__(self):
        return hash(id(self._record))


def attach(record: Record, node) -> None:
    """Make ``node`` (a built-in function's node) the creator of the value ``record`` made (kept
    in the record's ``note``: it lives as long as the record)."""
    record.note = node


def attached(record: Record):
    """The built-in function's node attached to ``record`` (None if there is none). A note of
    ``(make, value, pure, args, kwargs)`` left by a call of ``pure`` becomes the node
    ``make(value, pure)`` on first use."""
    note = getattr(record, "note", None)
    if type(note) is tuple:
        make, value, pure, args, kwargs = note
        note = make(value, pure)
        note._attach(args, kwargs, Tracer(record.ans, record.level, record))
    return note


# Built-in functions applied to arrays only make Variables without a record; Chainer still gives
# them a creator (while backprop is enabled). By the Variable's id, with a weak reference to it.
_untraced: dict = {}


def attach_untraced(variable, node) -> None:
    """Make ``node`` the creator of ``variable``, an output that holds a plain array."""
    key = id(variable)
    forget = _untraced.pop  # bound now: the callback may run while the interpreter exits
    _untraced[key] = (weakref.ref(variable, lambda _, key=key: forget(key, None)), node)


def untraced_creator(variable):
    """The node attached to ``variable`` by :func:`attach_untraced` (None if none)."""
    entry = _untraced.get(id(variable))
    return entry[1] if entry is not None and entry[0]() is variable else None


def node_of(record: Record):
    """The node that made ``record``: a built-in function's node attached to it, a user's
    FunctionNode, or a view of a built-in operation."""
    node = attached(record)
    if node is not None:
        return node
    primitive = record.primitive
    if primitive is take_output:
        parent = record.parents[0]
        return None if parent is None else node_of(parent.record)
    if primitive is apply_node:
        return record.params["node"]
    return PrimitiveNode(record)


def creator_of(record: Record):
    """The node that made the traced value of ``record``: None for a leaf, or for a value cut
    from its creator (``unchain``)."""
    if record.owned:
        return None
    if record.parents and not any(p is not None for p in record.parents):
        return None
    return node_of(record)


def rank_of(tracer: Tracer) -> int:
    """The rank of the variable ``tracer`` stands for: 0 for a leaf, else its creator's + 1.

    The graph is walked with a stack of its own (a deep graph does not recurse). A node whose
    rank comes from its inputs has ``_rank_inputs()``, its traced inputs (None once it knows its
    rank), and ``_know_rank(rank)``, told the rank found; other nodes keep their ``rank``.
    """
    ranks: dict[int, int] = {}  # id(record) -> rank, for the records under ``tracer``
    stack = [tracer.record]
    while stack:
        record = stack[-1]
        if id(record) in ranks:
            stack.pop()
            continue
        node = None if record.primitive is None else node_of(record)
        inputs = getattr(node, "_rank_inputs", None)
        inputs = None if inputs is None else inputs()
        if inputs is None:
            ranks[id(record)] = 0 if node is None else node.rank + 1
            stack.pop()
            continue
        waiting = [x.record for x in inputs if id(x.record) not in ranks]
        if waiting:
            stack.extend(waiting)
            continue
        rank = max((ranks[id(x.record)] for x in inputs), default=0)
        node._know_rank(rank)
        ranks[id(record)] = rank + 1
        stack.pop()
    return ranks[id(tracer.record)]
