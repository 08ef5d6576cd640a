"""User-defined functions: Chainer's ``FunctionNode`` (new style) and ``Function`` (old style).

A node's application is one call of a primitive with several outputs: its forward runs the
user's ``forward`` on arrays, and its VJP calls the user's ``backward`` once per backward pass
(for all the inputs that need a gradient) with the output gradients as Variables. When the
backward pass is itself recorded (``enable_double_backprop``), those Variables carry a graph,
so a ``backward`` written with Chainer functions can be differentiated again. Old-style
``Function`` objects run through an adapter node whose backward works on plain arrays.
"""

from __future__ import annotations

import traceback
import weakref

import numpy

from .. import backend
from ..autodiff import Tracer, unbox_all
from ..autodiff.primitive import take_output
from . import _debug_stack, configuration, function_hooks
from ._chx import find, present
from ._tape import apply_node, old_style
from .backend import is_arrays_compatible
from .chainerx import ndarray as chainerx_ndarray
from .function_hooks import check_finite
from .utils import type_check
from .variable import (
    Variable,
    as_variable,
    grad,  # noqa: F401  (Chainer defines chainer.grad in chainer.function_node)
)

__all__ = ["FunctionNode", "Function", "FunctionAdapter", "Fallback"]


class _FallbackType:
    """The type of :data:`Fallback`."""

    def __repr__(self) -> str:
        return "Fallback"


Fallback = _FallbackType()  # what forward_chainerx returns to ask for the NumPy/CuPy path


def _is_array(x) -> bool:
    return isinstance(x, numpy.ndarray) or backend.is_array(x)


def _on_gpu(inputs) -> bool:
    """Whether an array of ``inputs`` is not a NumPy array (so the ``*_gpu`` method runs)."""
    return any(backend.xp(x) is not numpy for x in inputs if _is_array(x))


class _ForwardByDevice:
    """``forward`` running ``forward_cpu`` or ``forward_gpu`` (what FunctionNode and Function
    share); a subclass defines either ``forward`` or those two."""

    def forward(self, inputs):
        """The outputs (a tuple of arrays) for the input arrays; by default ``forward_cpu`` or
        ``forward_gpu`` by the inputs' array module."""
        if _on_gpu(inputs):
            return self.forward_gpu(inputs)
        return self.forward_cpu(inputs)

    def forward_cpu(self, inputs):
        raise NotImplementedError(f"{type(self).__name__} defines neither forward nor forward_cpu")

    def forward_gpu(self, inputs):
        raise NotImplementedError(f"{type(self).__name__} defines neither forward nor forward_gpu")


def _check_compatible(label: str, which: str, arrays) -> None:
    """Chainer's check that a node's forward inputs (or outputs) are all on one kind of device:
    NumPy, CuPy or ChainerX arrays, not a mix."""
    if not is_arrays_compatible(arrays):
        raise TypeError(
            f"incompatible array types are mixed in the forward {which} ({label}).\n"
            f"Actual: {', '.join(str(type(a)) for a in arrays)}\n"
            "  hint: move every array to one device first (to_device, or Variable.to_device)"
        )


class FunctionNode(_ForwardByDevice):
    """A function with a hand-written ``backward``, as in Chainer's new-style functions.

    Subclasses define ``forward(inputs)`` (or ``forward_cpu``/``forward_gpu``) on arrays,
    returning a tuple of arrays, and ``backward(target_input_indexes, grad_outputs)`` on
    Variables, returning one gradient Variable (or None) per input or per target index.
    ``apply(inputs)`` runs it and returns a tuple of Variables. A node is applied once.
    """

    inputs = None
    outputs = None
    rank = 0
    _input_indexes_to_retain = None
    _output_indexes_to_retain = None
    _retained_inputs = None
    _retained_outputs = None
    _targets: tuple = ()
    _cache = None
    _local_hooks = None
    stack = None  # in debug mode, where the node was applied (told when its backward fails)

    # -- what subclasses define -----------------------------------------------------------
    def check_type_forward(self, in_types) -> None:
        """Check the types of the inputs with ``utils.type_check.expect`` (nothing by default)."""

    def backward(self, target_input_indexes, grad_outputs):
        """The gradients of the inputs in ``target_input_indexes`` (Variables); none by default."""
        return (None,) * len(target_input_indexes)

    def forward_chainerx(self, inputs):
        """The outputs (a tuple of chainerx arrays) computed with ChainerX's routines from the
        inputs' ChainerX arrays, in their graph: ChainerX's backward differentiates them, and
        ``backward`` is not called. ``Fallback`` (the default): run ``forward`` on the data."""
        return Fallback

    def backward_accumulate(self, target_input_indexes, grad_outputs, grad_inputs):
        """``backward``'s gradients added to ``grad_inputs``, the gradients those inputs have so
        far (None: none). A subclass may define this instead of ``backward`` to fuse the sum;
        the backward pass of this layer sums gradients itself, so it passes None for each."""
        gxs = self._per_target(self.backward(target_input_indexes, grad_outputs), target_input_indexes)
        return tuple(
            gx if g_in is None else g_in if gx is None else gx + g_in for gx, g_in in zip(gxs, grad_inputs)
        )

    # -- what it offers --------------------------------------------------------------------
    @property
    def label(self) -> str:
        """The node's name in graphs and messages: its class name."""
        return type(self).__name__

    @property
    def _impl_name(self) -> str:
        """The name profiling hooks file this node under (Chainer's): its class name."""
        return type(self).__name__

    @property
    def local_function_hooks(self) -> dict:
        if self._local_hooks is None:
            self._local_hooks = {}
        return self._local_hooks

    def add_hook(self, hook, name: str | None = None) -> None:
        """Register a function hook for this node only."""
        name = name or hook.name
        if name in self.local_function_hooks:
            raise KeyError(f"hook {name} already exists")
        self.local_function_hooks[name] = hook
        hook.added(self)

    def delete_hook(self, name: str) -> None:
        hook = self.local_function_hooks.pop(name)
        hook.deleted(self)

    def retain_inputs(self, indexes) -> None:
        """Keep the inputs at ``indexes`` for ``get_retained_inputs`` in backward (call it in forward)."""
        self._input_indexes_to_retain = tuple(indexes)

    def retain_outputs(self, indexes) -> None:
        """Keep the outputs at ``indexes`` for ``get_retained_outputs`` in backward (call it in forward)."""
        self._output_indexes_to_retain = tuple(indexes)

    def get_retained_inputs(self) -> tuple:
        """The retained inputs, as Variables (with a graph during double backprop)."""
        if self._input_indexes_to_retain is None or self._retained_inputs is None:
            return ()
        inputs = self._retained_inputs
        nodes = self.inputs or (None,) * len(inputs)
        return tuple(_variable_of(nodes[i], inputs[i]) for i in self._input_indexes_to_retain)

    def get_retained_outputs(self) -> tuple:
        """The retained outputs, as Variables (with a graph during double backprop)."""
        if self._output_indexes_to_retain is None or self._retained_outputs is None:
            return ()
        outputs = self._retained_outputs
        values = unbox_all(outputs)
        if type(outputs) is Tracer:  # the backward pass is recorded: outputs keep their graph
            return tuple(
                None if values[i] is None else Variable._of(take_output(outputs, index=i))
                for i in self._output_indexes_to_retain
            )
        indexes = self._output_indexes_to_retain
        return tuple(None if outputs[i] is None else Variable._of(outputs[i]) for i in indexes)

    def unchain(self) -> None:
        """Cut the outputs that are still alive from this node, and forget the inputs and
        outputs (the graph around this node)."""
        for ref in self.outputs or ():
            node = ref()
            if node is not None:
                node.unchain()
        self.inputs = None
        self.outputs = None

    def __call__(self, *inputs):
        raise RuntimeError(
            f"{self.label}: a FunctionNode was called as if it were a function\n"
            "  hint: use its apply() method: y, = MyNode().apply((x,))"
        )

    def apply(self, inputs) -> tuple:
        """Run the node on ``inputs`` (Variables or arrays); a tuple of output Variables.

        As in Chainer, a node applied again forgets its previous inputs and outputs: make a
        new node for each call."""
        device = find(inputs)
        if device is not None and type(self).forward_chainerx is not FunctionNode.forward_chainerx:
            outputs = self._apply_chainerx(inputs, device)
            if outputs is not Fallback:
                return outputs
        variables = [as_variable(x) for x in inputs]
        data = [v._data for v in variables]
        arrays = [v.array for v in variables]
        _check_compatible(self.label, "input", arrays)
        if configuration.config.type_check:
            type_check.check_forward_types(self.check_type_forward, arrays, self.label)
        hooks = function_hooks.active_hooks(self)
        for hook in hooks:
            hook.forward_preprocess(self, tuple(arrays))
        self._targets = tuple(i for i, d in enumerate(data) if type(d) is Tracer)
        packed = apply_node(*data, node=self)
        n = len(packed.value) if type(packed) is Tracer else len(packed)
        if type(packed) is Tracer:  # an output that forward left None is a Variable of None
            values = packed.value
            outputs = tuple(
                Variable._of(None if values[i] is None else take_output(packed, index=i)) for i in range(n)
            )
        else:
            outputs = tuple(Variable._of(y) for y in packed)
        for hook in hooks:
            hook.forward_postprocess(self, tuple(arrays))
        self.inputs = tuple(v._node for v in variables)
        self.outputs = tuple(weakref.ref(y._node) for y in outputs)
        # as Chainer's, the nodes of retained inputs and outputs keep their arrays
        for i in self._input_indexes_to_retain or ():
            self.inputs[i]._retain(arrays[i])
        for i in self._output_indexes_to_retain or ():
            outputs[i]._node._retain(outputs[i].array)
        self.rank = max((v.rank for v in variables), default=0)
        if configuration.config.debug:
            check_finite(self.label, "forward", [y.array for y in outputs])
            self.stack = traceback.extract_stack()
        return outputs if device is None else present(outputs, device)  # ChainerX in, ChainerX out

    def _apply_chainerx(self, inputs, device):
        """``forward_chainerx`` on the inputs' ChainerX arrays in their graph (Chainer's
        ``chx_array``), its outputs as Variables in that graph; or ``Fallback``."""
        arrays = tuple(x.chx_array if isinstance(x, Variable) else x for x in inputs)
        outputs = self.forward_chainerx(arrays)
        if outputs is Fallback:
            return Fallback
        if not isinstance(outputs, tuple) or not all(type(y) is chainerx_ndarray for y in outputs):
            raise TypeError(
                f"{self.label}.forward_chainerx: expected a tuple of chainerx.ndarray (or Fallback), got "
                f"{_describe_outputs(outputs)}\n  hint: return (y,) for a single output"
            )
        return tuple(Variable._in_chainer_graph(y) for y in outputs)

    # -- inside the primitive --------------------------------------------------------------
    def _run_forward(self, inputs) -> tuple:
        outputs = self.forward(tuple(inputs))
        if not isinstance(outputs, tuple) or not all(y is None or _is_array(y) for y in outputs):
            raise TypeError(
                f"{self.label}.forward: forward output must be a tuple of ndarrays, got "
                f"{type(outputs).__name__}\n  hint: return (y,) for a single output"
            )
        _check_compatible(self.label, "output", outputs)
        self._retained_inputs = inputs
        self._retained_outputs = outputs if self._output_indexes_to_retain else None
        return outputs

    def _per_target(self, gxs, targets) -> tuple:
        """The gradients a backward method returned, one per target input (it may give one per
        input: those of the targets are taken)."""
        if not isinstance(gxs, (tuple, list)):
            gxs = (gxs,)
        n_inputs = len(self.inputs) if self.inputs is not None else len(gxs)
        if len(gxs) == n_inputs and len(gxs) != len(targets):
            gxs = [gxs[i] for i in targets]
        if len(gxs) != len(targets):
            raise ValueError(
                f"{self.label}.backward: number of gradients returned from backward is incorrect: "
                f"{len(gxs)} for {len(targets)} target inputs\n"
                "  hint: return one gradient per index in target_input_indexes (or one per input)"
            )
        return tuple(gxs)

    def _gradient(self, index: int, g, ans, inputs):
        """The cotangent of input ``index``; the user's backward runs once per pass (per ``g``)."""
        cache = self._cache
        if cache is None or cache[0] is not g:
            try:
                result = self._run_backward(g, ans, inputs)
            except Exception as error:
                _debug_stack.add_creation_stack(self, error)
                raise
            if configuration.config.debug:  # (Chainer's NaN error tells no stack)
                check_finite(self.label, "backward", [getattr(v, "value", v) for v in result.values()])
            cache = self._cache = (g, result)
        return cache[1].get(index)

    def _run_backward(self, g, ans, inputs) -> dict:
        self._retained_inputs = inputs
        self._retained_outputs = ans
        grad_outputs = tuple(None if gi is None else Variable._of(gi) for gi in g)
        hooks = function_hooks.active_hooks(self)
        in_arrays = tuple(x.value if type(x) is Tracer else x for x in inputs)
        out_grads = tuple(None if gi is None else gi.array for gi in grad_outputs)
        if hooks:  # as Chainer, hooks see None for an input the node did not retain
            kept = self._input_indexes_to_retain or ()
            in_data = tuple(x if i in kept else None for i, x in enumerate(in_arrays))
        for hook in hooks:
            hook.backward_preprocess(self, in_data, out_grads)
        targets = self._targets
        if type(self).backward_accumulate is FunctionNode.backward_accumulate:
            gxs = self.backward(targets, grad_outputs)
        else:  # the subclass's own: no gradient so far, this pass sums them
            gxs = self.backward_accumulate(targets, grad_outputs, (None,) * len(targets))
        gxs = self._per_target(gxs, targets)
        result = {}
        debug = configuration.config.debug
        for i, gx in zip(self._targets, gxs):
            if gx is None:
                continue
            if debug and not isinstance(gx, Variable):
                raise ValueError(
                    f"{self.label}.backward: type of gradients returned from backward is incorrect: "
                    f"expected Variables (or None), got {type(gx).__name__} for input {i}\n"
                    "  hint: wrap the gradient with chainer.Variable, or compute it with chainer.functions"
                )
            value = gx._data if isinstance(gx, Variable) else gx
            _check_gradient(self.label, i, value, in_arrays[i])
            result[i] = value
        for hook in hooks:
            hook.backward_postprocess(self, in_data, out_grads)
        return result


def _describe_outputs(outputs) -> str:
    if isinstance(outputs, tuple):
        return "a tuple of " + ", ".join(type(y).__name__ for y in outputs)
    return type(outputs).__name__


def _check_gradient(label: str, index: int, gx, x) -> None:
    """Chainer's rule: the gradient of an input is an array of its dtype and shape (a wrong
    dtype is a TypeError, or a ValueError in debug mode as Chainer's debug check)."""
    value = gx.value if type(gx) is Tracer else gx
    while type(value) is Tracer:
        value = value.value
    if not _is_array(value):
        raise TypeError(
            f"{label}.backward: type of gradients returned from backward is incorrect: input {index} "
            f"got a {type(value).__name__}\n  hint: return arrays (or None) from backward"
        )
    if value.dtype != x.dtype:
        raise (ValueError if configuration.config.debug else TypeError)(
            f"{label}.backward: dtype of gradients returned from backward is incorrect: input {index} "
            f"is {x.dtype}, its gradient {value.dtype}\n  hint: cast the gradient to the input's dtype"
        )
    if value.shape != x.shape:
        raise ValueError(
            f"{label}.backward: shape of gradients returned from backward is incorrect: input {index} "
            f"has shape {x.shape}, its gradient {value.shape}\n  hint: sum the gradient over broadcast axes"
        )


def _variable_of(node, x):
    """The Variable of a retained input ``x``: the caller's own when it is still alive and holds
    ``x`` (so its node is the input's node), else a new one."""
    if x is None:
        return None
    variable = None if node is None else node.get_variable()
    return variable if variable is not None and variable._data is x else as_variable(x)


class FunctionAdapter(FunctionNode):
    """The node that runs an old-style ``Function``."""

    def __init__(self, function: Function):
        self._function = function

    @property
    def function(self) -> Function:
        return self._function

    @property
    def label(self) -> str:
        return self._function.label

    @property
    def _impl_name(self) -> str:
        return type(self._function).__name__

    def check_type_forward(self, in_types) -> None:
        self._function.check_type_forward(in_types)

    def forward(self, inputs):
        function = self._function
        outputs = function.forward(inputs)
        if function._output_indexes_to_retain is not None:
            self.retain_outputs(function._output_indexes_to_retain)
        # an old-style function keeps every input unless told
        indexes = function._input_indexes_to_retain
        self.retain_inputs(range(len(inputs)) if indexes is None else indexes)
        return outputs

    def backward(self, target_input_indexes, grad_outputs):
        inputs = self._retained_inputs
        values = tuple(unbox_all(x) for x in inputs)
        # as Chainer: the function sees the inputs and outputs it retained, None for others
        kept = set(self._input_indexes_to_retain)
        in_data = tuple(v if i in kept else None for i, v in enumerate(values))
        out_grads = tuple(None if g is None else g.array for g in grad_outputs)
        function = self._function
        outs = tuple(unbox_all(o) for o in unbox_all(self._retained_outputs))
        kept = set(self._output_indexes_to_retain or ())
        function.output_data = tuple(o if i in kept else None for i, o in enumerate(outs))
        gxs = function.backward(in_data, out_grads)
        if not isinstance(gxs, (tuple, list)):
            gxs = (gxs,)
        for i, gx in enumerate(gxs[: len(values)]):
            if gx is not None:
                _check_gradient(self.label, i, gx, values[i])
        # In a recorded backward pass, a gradient is a leaf that refuses to be differentiated
        # again (Chainer's rule for old-style functions); otherwise a plain value.
        recorded = any(type(x) is Tracer for x in inputs)  # traced operands: create_graph is on
        return tuple(_old_style_gradient(gxs[i], function.label, recorded) for i in target_input_indexes)


def _old_style_gradient(gx, label: str, recorded: bool):
    if gx is None:
        return None
    if not recorded:
        return Variable(gx, requires_grad=False)
    g = Variable(gx)
    old_style[g._data.record] = label
    return g


class Function(_ForwardByDevice):
    """An old-style function: ``forward`` and ``backward`` both work on tuples of arrays.

    Calling it returns a Variable (or a tuple of them for several outputs). Its backward is
    not differentiable again, as in Chainer.
    """

    _input_indexes_to_retain = None
    _output_indexes_to_retain = None
    output_data = None
    _node = None

    def __call__(self, *inputs):
        node = self._node
        if node is None or node.inputs is not None:  # a node runs once; one made unused is kept
            node = self._node = FunctionAdapter(self)  # (with the hooks added to it before)
        outputs = node.apply(inputs)
        return outputs[0] if len(outputs) == 1 else outputs

    @property
    def node(self) -> FunctionAdapter:
        """The node that runs this function in the graph (made on first use)."""
        if self._node is None:
            self._node = FunctionAdapter(self)
        return self._node

    @property
    def label(self) -> str:
        return type(self).__name__

    @property
    def inputs(self):
        return None if self._node is None else self._node.inputs

    @property
    def outputs(self):
        return None if self._node is None else self._node.outputs

    @property
    def rank(self) -> int:
        return 0 if self._node is None else self._node.rank

    @property
    def local_function_hooks(self) -> dict:
        return {} if self._node is None else self._node.local_function_hooks

    def check_type_forward(self, in_types) -> None:
        """Check the input types (nothing by default)."""

    def backward(self, inputs, grad_outputs):
        if _on_gpu(inputs):
            return self.backward_gpu(inputs, grad_outputs)
        return self.backward_cpu(inputs, grad_outputs)

    def backward_cpu(self, inputs, grad_outputs):
        return tuple(None for _ in inputs)

    def backward_gpu(self, inputs, grad_outputs):
        return tuple(None for _ in inputs)

    def retain_inputs(self, indexes) -> None:
        self._input_indexes_to_retain = tuple(indexes)

    def retain_outputs(self, indexes, retain_after_backward: bool = False) -> None:
        self._output_indexes_to_retain = tuple(indexes)

    def add_hook(self, hook, name: str | None = None) -> None:
        """Add a hook to the function's node (before its first call: the node the call uses)."""
        self.node.add_hook(hook, name)

    def delete_hook(self, name: str) -> None:
        self.node.delete_hook(name)

    def unchain(self) -> None:
        if self._node is not None:
            self._node.unchain()
