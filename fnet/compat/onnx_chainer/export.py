"""onnx_chainer.export: a Chainer model as an ONNX model, through fnet.onnx's converters.

The model runs once (``chainer.config.train`` as ``train``) with the non-differentiable
functions recorded too; the walk from its outputs to its inputs writes each primitive with
fnet.onnx's converter. Chainer's names are kept: inputs ``Input_0``..., parameters
``param_<path>`` (``param_l1_W``), persistent arrays the same way (``param_bn_avg_mean``),
outputs after the function that made them (``LinearFunction_1``). A user's FunctionNode (and a
built-in function named in ``external_converters``) is converted by the converter given for
its class name, which receives a ``FunctionConverterParams``.
"""

from __future__ import annotations

import collections
import contextlib
import warnings

import numpy
import onnx

from ...autodiff.tracer import Tracer, recording_everything, unbox_all
from ...errors import ExportError, message
from ...io.atomic import atomic_write
from ...onnx import CONVERTERS, MAX_OPSET, MIN_OPSET, Unsupported, records_between, write
from ...onnx.graph import dtype_of, host, is_ndarray
from .. import configuration
from .._tape import apply_node, attached
from ..variable import Variable
from . import onnx_helper
from .context import Context
from .functions import FunctionConverterParams

__all__ = [
    "export",
    "convert_parameter",
    "MINIMUM_OPSET_VERSION",
    "MAXIMUM_OPSET_VERSION",
]

#: The opsets written (fnet.onnx's range; Chainer's own exporter wrote 7 to 11).
MINIMUM_OPSET_VERSION = MIN_OPSET
MAXIMUM_OPSET_VERSION = MAX_OPSET


def convert_parameter(parameter, context: Context) -> onnx.TensorProto:
    """A Parameter, Variable or array (on any device) as a TensorProto named by ``context``; the
    values are copied to the host."""
    if isinstance(parameter, Variable):
        array = parameter.array
    elif is_ndarray(parameter):
        array = parameter
    else:
        raise ValueError(
            f"convert_parameter: expected a Parameter, Variable or array, got {type(parameter).__name__}"
        )
    return onnx.numpy_helper.from_array(host(array), context.get_name(parameter))


def _as_input(x) -> Variable:
    """A Variable whose value is an input of the trace (level 0); an array stays on its device."""
    if isinstance(x, Variable) and type(x._data) is Tracer:
        return x
    value = x.array if isinstance(x, Variable) else x
    return Variable(value if is_ndarray(value) else numpy.asarray(value))


def _inputs(args, input_names):
    """The model's call arguments with Variables for arrays, and the ``(name, Variable)`` pairs
    of the graph inputs in order."""
    if isinstance(args, tuple | list):
        call = [_as_input(a) for a in args]
        keys = list(range(len(call)))
        values = call
    elif isinstance(args, dict):
        call = {k: _as_input(a) for k, a in args.items()}
        keys = list(call)
        values = list(call.values())
    elif isinstance(args, Variable) or is_ndarray(args):
        call = _as_input(args)
        keys, values = [0], [call]
    else:
        raise ValueError(
            "onnx_chainer.export: args should be a list, tuple, dict, array or Variable, "
            f"got {type(args).__name__}"
        )
    names = _rename(keys, input_names, "Input", "input")
    return call, list(zip(names, values))


def _rename(keys: list, given, prefix: str, what: str) -> list:
    if given is None:
        return [f"{prefix}_{i}" for i in range(len(keys))]
    if isinstance(given, str):
        given = [given]
    if isinstance(given, dict):
        missing = [k for k in keys if k not in given]
        if missing or len(given) != len(keys):
            raise ValueError(
                f"onnx_chainer.export: the {what} names {given!r} do not fit the {what}s {keys!r}"
            )
        return [given[k] for k in keys]
    given = list(given)
    if len(given) != len(keys):
        raise ValueError(f"onnx_chainer.export: {len(given)} {what} names for {len(keys)} {what}s: {given!r}")
    return given


def _outputs(outputs) -> tuple[list, list]:
    if isinstance(outputs, Variable):
        return [0], [outputs]
    if isinstance(outputs, tuple | list):
        keys, values = list(range(len(outputs))), list(outputs)
    elif isinstance(outputs, dict):
        keys, values = list(outputs), list(outputs.values())
    else:
        raise RuntimeError(f"onnx_chainer.export: unexpected output type from the model: {type(outputs)}")
    if not all(isinstance(v, Variable) for v in values):
        raise ValueError("onnx_chainer.export: every output of the model must be a chainer.Variable")
    return keys, values


def _label(record) -> str | None:
    """The Chainer class name of the function whose output ``record`` made, if any."""
    if record.primitive is apply_node:
        node = record.params["node"]
        return getattr(node, "custom_function_node_name", type(node).__name__)
    node = attached(record) if getattr(record, "note", None) is not None else None
    return None if node is None else type(node).__name__


def _call_operands(record) -> list:
    """The array operands of the Chainer function call noted on ``record`` (Variables' values)."""
    note = record.note
    args = note[3] if type(note) is tuple else getattr(note, "_args", ())
    operands = []
    for a in args:
        if isinstance(a, Variable):
            operands.append(a._data)
        elif type(a) is Tracer or is_ndarray(a):
            operands.append(a)
    return operands


def _external(converter, name: str, node, opset: int, context: Context):
    """A fnet.onnx converter that calls a Chainer-style converter on ``FunctionConverterParams``."""

    def convert(g, call):
        outputs = call.ans if isinstance(call.ans, tuple) else (call.ans,)
        out_names = [g.name(f"{name}_{len(g.nodes)}") for _ in outputs]
        onnx_helper.set_func_name(name)
        params = FunctionConverterParams(node, opset, list(call.inputs), out_names, context)
        nodes = converter(params)
        g.nodes.extend(context.constants)
        context.constants.clear()
        for param_name, array in context.parameters:
            g.initializer(array, param_name)
        context.parameters.clear()
        g.nodes.extend(nodes if isinstance(nodes, list | tuple) else [nodes])
        return out_names if isinstance(call.ans, tuple) else out_names[0]

    return convert


@contextlib.contextmanager
def _traced_persistents(model):
    """While the block runs, the model's persistent arrays (running averages) are inputs of
    the trace, so that what the model computes from them is recorded; yields their
    ``(name, tracer)`` pairs (``param_bn_avg_mean``)."""
    swapped = []
    for path, link in model.namedlinks():
        for attr in sorted(getattr(link, "_persistent", ())):
            value = getattr(link, attr, None)
            if is_ndarray(value) and value.dtype.kind == "f":
                name = onnx_helper.cleanse_param_name(f"{path.rstrip('/')}/{attr}")
                swapped.append((link, attr, value, name, Tracer.input(value, 0)))
    try:
        for link, attr, _, _, traced in swapped:
            object.__setattr__(link, attr, traced)
        yield [(name, traced) for *_, name, traced in swapped]
    finally:  # the arrays back, or what the forward set in their place (training updates them)
        for link, attr, value, _, traced in swapped:
            current = getattr(link, attr)
            object.__setattr__(link, attr, value if current is traced else unbox_all(current))


def _attribute(call, name: str):
    return getattr(call.params["node"], name)


def _like(call, value):
    return host(value, dtype_of(call.args[0]))


#: Converters of FunctionNodes that ``replace_func`` wraps under the name of a Chainer function,
#: reading that function's attributes from the node (``AddConstant.value``...).
CHAINER_NAMED = {
    "Add": lambda g, call: [g.node("Sum", call.inputs)],
    "AddConstant": lambda g, call: [
        g.node("Add", [call.inputs[0], g.const(_like(call, _attribute(call, "value")))])
    ],
    "MulConstant": lambda g, call: [
        g.node("Mul", [call.inputs[0], g.const(_like(call, _attribute(call, "value")))])
    ],
    "Reshape": lambda g, call: [g.node("Reshape", [call.inputs[0], g.cast(call.inputs[1], numpy.int64)])],
}


def export(
    model,
    args,
    filename=None,
    export_params: bool = True,
    graph_name: str = "Graph",
    save_text: bool = False,
    opset_version: int | None = None,
    train: bool = False,
    return_named_inout: bool = False,
    external_converters: dict | None = None,
    external_opset_imports: dict | None = None,
    input_names=None,
    output_names=None,
    input_shapes=None,
    no_testcase: bool = False,
):
    """Export ``model`` called on ``args`` as an ONNX model (Chainer's ``onnx_chainer.export``).

    Returns the ``ModelProto``, or ``(model, inputs, outputs)`` with the named input and output
    Variables when ``return_named_inout``. ``filename`` receives the model (atomically).
    """
    opset = MAXIMUM_OPSET_VERSION if opset_version is None else opset_version
    if not no_testcase and filename is not None:
        warnings.warn(
            "onnx_chainer.export without test cases is deprecated; use onnx_chainer.export_testcase",
            DeprecationWarning,
            stacklevel=2,
        )
    if opset not in range(MINIMUM_OPSET_VERSION, MAXIMUM_OPSET_VERSION + 1):
        raise ExportError(
            message(
                "onnx_chainer.export",
                f"expected opset_version in {MINIMUM_OPSET_VERSION}..{MAXIMUM_OPSET_VERSION}, got {opset}",
                hint="fnet writes opsets 13 and newer; pass opset_version=None for the newest",
            )
        )
    converters = dict(external_converters or {})
    context = Context(model)
    call, inputs = _inputs(args, input_names)
    with (
        configuration.using_config("train", train),
        _traced_persistents(model) as persistents,
        recording_everything(0) as made,
    ):
        if isinstance(call, dict):
            result = model(**call)
        elif isinstance(call, list):
            result = model(*call)
        else:
            result = model(call)
    keys, out_vars = _outputs(result)
    out_tracers = [v._data for v in out_vars]
    stop = {id(v._data.record) for _, v in inputs}

    def substitute(record):
        label = _label(record)
        if label is None or label not in converters:
            if record.primitive is apply_node:
                if label in CHAINER_NAMED:  # a wrapped function named after a Chainer function
                    return [
                        p if p is not None else a for p, a in zip(record.parents, record.args)
                    ], CHAINER_NAMED[label]
                raise_missing(record, label)
            return None
        node = record.params["node"] if record.primitive is apply_node else attached(record)
        operands = (
            [p if p is not None else a for p, a in zip(record.parents, record.args)]
            if record.primitive is apply_node
            else _call_operands(record)
        )
        return operands, _external(converters[label], label, node, opset, context)

    def raise_missing(record, label):
        raise ExportError(
            message(
                "onnx_chainer.export",
                f"the FunctionNode {label!r} has no converter",
                hint=f"pass external_converters={{{label!r}: converter}} (a function of "
                "FunctionConverterParams returning ONNX nodes)",
            )
        )

    records, _ = records_between(out_tracers, 0, stop, substitute)
    counts: collections.Counter = collections.Counter()
    produced = {}
    for record in records:
        label = _label(record)
        if label is not None and record.primitive is not None:
            produced[id(record)] = f"{label}_{counts[label]}"
            counts[label] += 1
    default_out = [
        produced.get(id(getattr(t, "record", None)), f"Output_{i}") for i, t in enumerate(out_tracers)
    ]
    out_names = _rename(keys, output_names, "Output", "output") if output_names is not None else default_out
    params = []
    for name, param in model.namedparams():
        if param.array is None:
            warnings.warn(
                f"The parameter {name!r} is not initialized, skip setting to ONNX graph", stacklevel=2
            )
            continue
        if type(param._data) is Tracer:
            params.append((onnx_helper.cleanse_param_name(name), param._data))
    params += persistents
    try:
        onnx_model = write(
            out_tracers,
            0,
            opset=opset,
            inputs=[(name, v._data) for name, v in inputs],
            params=params,
            made=made,
            site=lambda record: "the model's forward",
            table=CONVERTERS,
            output_names=out_names,
            graph_name=graph_name,
            substitute=substitute,
            inputs_must_be_used=False,
        )
    except Unsupported as problem:  # pragma: no cover - write turns these into ExportError
        raise ExportError(problem.problem) from None
    _finish(onnx_model, export_params, input_shapes, inputs, external_opset_imports, converters)
    if filename is not None:
        data = onnx_model.SerializeToString()
        atomic_write("onnx_chainer.export", filename, lambda f: f.write(data))
        if save_text:
            text = onnx.printer.to_text(onnx_model).encode()
            atomic_write("onnx_chainer.export", f"{filename}.txt", lambda f: f.write(text))
    if return_named_inout:
        named_in = collections.OrderedDict((name, v) for name, v in inputs)
        named_out = collections.OrderedDict(zip(out_names, out_vars))
        return onnx_model, named_in, named_out
    return onnx_model


def _finish(onnx_model, export_params, input_shapes, inputs, external_opset_imports, converters) -> None:
    """Chainer's options on the written model: dropped initializers, custom input shapes,
    other domains' opsets; then the checker (a warning where a custom op has no schema)."""
    graph = onnx_model.graph
    if input_shapes is not None:
        shapes = input_shapes if isinstance(input_shapes, list | tuple) else [input_shapes]
        if not isinstance(input_shapes, list) or len(shapes) != len(inputs):
            raise ValueError("onnx_chainer.export: input_shapes must be a list with one shape per input")
        for value, shape in zip(graph.input, shapes):
            if len(shape) != len(value.type.tensor_type.shape.dim):
                raise ValueError(f"onnx_chainer.export: the shape {shape} of {value.name} has the wrong rank")
            for dim, size in zip(value.type.tensor_type.shape.dim, shape):
                dim.Clear()
                if isinstance(size, str):
                    dim.dim_param = size
                elif size is not None:
                    dim.dim_value = size
        for value in graph.output:
            for dim in value.type.tensor_type.shape.dim:
                dim.Clear()
    if not export_params:
        for tensor in list(graph.initializer):
            graph.input.append(onnx.helper.make_tensor_value_info(tensor.name, tensor.data_type, tensor.dims))
        del graph.initializer[:]
    for domain, version in (external_opset_imports or {}).items():
        onnx_model.opset_import.append(onnx.helper.make_opsetid(domain, version))
    try:
        onnx.checker.check_model(onnx_model)
    except onnx.checker.ValidationError as error:
        if not converters:
            raise
        warnings.warn(
            f"onnx_chainer.export: the model does not pass onnx.checker ({error}); "
            "an external converter may write an op that has no schema",
            UserWarning,
            stacklevel=3,
        )
