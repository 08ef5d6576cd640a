"""onnx_chainer.replace_func: make a Python function appear as one FunctionNode in the graph, so
that an external converter writes it (``as_funcnode``, ``fake_as_funcnode``)."""

from __future__ import annotations

import functools
import inspect

from ... import tree
from ...onnx.graph import is_ndarray
from ..function_node import FunctionNode
from ..variable import Variable, grad

__all__ = ["WrappedFunctionNode", "fake_as_funcnode", "as_funcnode"]


def _unwrap(x):
    return x.array if isinstance(x, Variable) else x


def _fill(args, kwargs, values: dict):
    """``args``, ``kwargs`` with each Variable replaced by ``values[id(variable)]``."""

    def one(x):
        if isinstance(x, Variable):
            return values[id(x)]
        if isinstance(x, list | tuple):
            return type(x)(one(i) for i in x)
        return x

    return one(list(args)), {k: one(v) for k, v in kwargs.items()}


class WrappedFunctionNode(FunctionNode):
    """A FunctionNode called ``name`` that runs ``func(*args, **kwargs)``: its inputs are the
    Variables in the arguments (``arg_vars``), its attributes the other arguments. The backward
    pass differentiates ``func`` run again on the inputs (it must use Chainer functions)."""

    def __init__(self, name: str, func, args, kwargs, arg_vars, attributes=None):
        self.custom_function_node_name = name
        self.func = func
        self.args = args
        self.kwargs = kwargs
        self.arg_vars = arg_vars
        for key, value in (attributes or {}).items():
            setattr(self, key, value)

    def _call(self, xs, requires_grad: bool):
        """The inputs as new Variables, and the leaves of ``func``'s result on them (its
        structure, lists, tuples and dicts, is kept in ``skeleton``)."""
        inputs = [Variable(x, requires_grad=requires_grad) for x in xs]
        args, kwargs = _fill(self.args, self.kwargs, {id(v): i for v, i in zip(self.arg_vars, inputs)})
        leaves, self.skeleton = tree.flatten(self.func(*args, **kwargs))
        return inputs, leaves

    def forward(self, xs):
        _, results = self._call(xs, requires_grad=False)
        arrays = tuple(_unwrap(r) for r in results)
        if not all(hasattr(a, "shape") for a in arrays):
            raise ValueError(
                f"the function wrapped by as_funcnode ({self.custom_function_node_name}) must return "
                "arrays or Variables only"
            )
        return arrays

    def backward(self, target_input_indexes, grad_outputs):
        inputs, results = self._call([v.array for v in self.arg_vars], requires_grad=True)
        if not all(isinstance(r, Variable) for r in results):
            raise ValueError(
                f"the function wrapped by as_funcnode ({self.custom_function_node_name}) returns "
                "arrays, so it has no backward"
            )
        grads = grad(results, inputs, grad_outputs=list(grad_outputs))
        return tuple(g if i in target_input_indexes else None for i, g in enumerate(grads))


def _attributes(alt_func, args, kwargs, rename_attributes) -> dict:
    """The arguments that are not Variables, by parameter name (with the defaults not given;
    ``arg<N>`` where the signature names none), renamed by ``rename_attributes`` (pairs of old
    and new names)."""
    try:
        bound = inspect.signature(alt_func).bind_partial(*args, **kwargs)
        bound.apply_defaults()
        named = dict(bound.arguments)
    except (TypeError, ValueError):
        named = {f"arg{i}": a for i, a in enumerate(args)} | dict(kwargs)
    attributes = {k: v for k, v in named.items() if not _variables([v], {})}
    for old, new in rename_attributes or ():
        if old in attributes:
            attributes[new] = attributes.pop(old)
    return attributes


def _variables(args, kwargs) -> list:
    found = []

    def visit(x):
        if isinstance(x, Variable):
            found.append(x)
        elif isinstance(x, list | tuple):
            for i in x:
                visit(i)

    visit(list(args))
    visit(list(kwargs.values()))
    return found


def fake_as_funcnode(alt_func, name: str, rename_attributes=None, experimental_warning: bool = True):
    """``alt_func`` wrapped so that each call is one ``WrappedFunctionNode`` called ``name``;
    arrays among the arguments are made Variables (inputs), other arguments are attributes."""

    @functools.wraps(alt_func)
    def wrapped(*args, **kwargs):
        args = [Variable(a) if is_ndarray(a) else a for a in args]
        arg_vars = _variables(args, kwargs)
        attributes = _attributes(alt_func, args, kwargs, rename_attributes)
        node = WrappedFunctionNode(name, alt_func, args, kwargs, arg_vars, attributes)
        outputs = node.apply(arg_vars)
        return tree.unflatten(node.skeleton, outputs)

    return wrapped


def as_funcnode(name: str, rename_attributes=None):
    """Decorator form of ``fake_as_funcnode``."""
    return lambda func: fake_as_funcnode(func, name, rename_attributes)
