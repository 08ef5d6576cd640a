"""``export``: run a function once on tracers, then write the recorded primitives as ONNX nodes."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping

import numpy
import onnx
from onnx import helper

from .. import backend, tree
from ..autodiff.primitive import Primitive
from ..autodiff.tracer import Tracer, new_level, recording_everything, unbox, unbox_all
from ..errors import ExportError, TracerConversionError, message
from ..io.atomic import atomic_write
from .converters import CONVERTERS, UNCONVERTED, Unsupported
from .graph import Call, Graph, dtype_of, host, is_ndarray, shape_of

__all__ = [
    "export",
    "build",
    "write",
    "trace",
    "call_site",
    "records_between",
    "MIN_OPSET",
    "MAX_OPSET",
    "supported_opsets",
]

#: The oldest opset written: the forms of Squeeze, Unsqueeze, ReduceSum, Split and Pad used
#: here take their axes (and pads) as inputs from opset 13.
MIN_OPSET = 13
#: The newest opset written: the newest that the installed ``onnx`` knows.
MAX_OPSET = int(onnx.defs.onnx_opset_version())

_FNET_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def supported_opsets() -> range:
    """The opsets ``export`` writes: ``MIN_OPSET`` to ``MAX_OPSET``."""
    return range(MIN_OPSET, MAX_OPSET + 1)


def _check_opset(opset) -> int:
    if opset is None:
        return MAX_OPSET
    if not isinstance(opset, int) or isinstance(opset, bool) or opset not in supported_opsets():
        raise ExportError(
            message(
                "fnet.onnx.export",
                f"expected opset in {MIN_OPSET}..{MAX_OPSET}, got {opset!r}",
                hint=f"pass opset=None for {MAX_OPSET}, or an opset in that range "
                "(older runtimes read opset 13 models)",
            )
        )
    return opset


def _names(given, count: int, default: str, what: str) -> list[str]:
    if given is None:
        return [f"{default}_{i}" for i in range(count)]
    given = [given] if isinstance(given, str) else list(given)
    if len(given) != count or len(set(given)) != count:
        raise ExportError(
            message(
                "fnet.onnx.export",
                f"expected {count} distinct {what}, got {given!r}",
                hint=f"give one name per {what[:-6]} leaf, in tree order",
            )
        )
    return given


def _value_info(name: str, value, dynamic: Mapping):
    """The graph input or output ``name``; the axes that ``dynamic`` lists for it are symbolic."""
    axes = dynamic.get(name, ())
    labels = axes if isinstance(axes, Mapping) else {a: f"{name}_dim{a}" for a in axes}
    shape: list = list(shape_of(value))
    for axis, label in labels.items():
        shape[axis] = label
    return helper.make_tensor_value_info(name, helper.np_dtype_to_tensor_dtype(dtype_of(value)), shape)


def records_between(outputs: list, level: int, stop: set = frozenset(), substitute=None) -> tuple[list, dict]:
    """The records on ``level`` that the outputs depend on, oldest first, walking up to the
    records in ``stop``; and, per record, its ``(operands, converter or None)``."""
    seen: dict = {}
    parents_of: dict = {}
    stack = [t.record for t in outputs if type(t) is Tracer and t.level == level]
    while stack:
        record = stack.pop()
        if id(record) in seen:
            continue
        seen[id(record)] = record
        if id(record) in stop or record.primitive is None:
            continue
        replaced = substitute(record) if substitute is not None else None
        if replaced is None:  # the operands: this level's tracers, and the other operands' values
            replaced = ([p if p is not None else a for p, a in zip(record.parents, record.args)], None)
        parents, converter = replaced
        parents_of[id(record)] = (parents, converter)
        for parent in parents:
            if type(parent) is Tracer and parent.level == level:
                stack.append(parent.record)
    return sorted(seen.values(), key=lambda r: r.seq), parents_of


def _scalar_dtype(args) -> numpy.dtype:
    """The dtype given to a scalar operand: that of the floating array operands if any, else of
    the other arrays (a Python or 0-d scalar is weakly typed, as in fnet's arithmetic)."""
    arrays = [x for x in args if backend.is_array(x) and x.dtype != bool]
    for kinds in ("fc", "iu"):
        dtypes = [x.dtype for x in arrays if x.ndim > 0 and x.dtype.kind in kinds]
        dtypes = dtypes or [x.dtype for x in arrays if x.dtype.kind in kinds]
        if dtypes:
            return numpy.result_type(*dtypes)
    return numpy.dtype(numpy.float32)


def _operand(g: Graph, value, args):
    if backend.is_array(value) and value.ndim > 0:
        return g.const(value)
    if backend.is_array(value) or isinstance(value, bool | int | float):
        if backend.is_array(value) and value.dtype == bool:
            return g.const(host(value))
        return g.const(host(value, _scalar_dtype(args)))
    return None


def _as_array(x):
    """``x`` as an array to box, on the device where it lives; a NumPy scalar or a Python
    number becomes a host array."""
    return x if is_ndarray(x) else numpy.asarray(x)


def call_site(fn: Callable, args: tuple, primitive, occurrence: int = 0) -> str:
    """Where ``fn(*args)`` applies ``primitive`` to traced values for the ``occurrence``-th time
    (from 0): the innermost caller outside fnet's own modules, as ``file:line``. Runs ``fn``
    again, on tracers of a new level (only to explain an error)."""
    bind = Primitive._bind.__code__
    seen = [0]
    found: list[str] = []

    def profile(frame, event, arg):
        if (
            found
            or event != "call"
            or frame.f_code is not bind
            or frame.f_locals.get("self") is not primitive
        ):
            return
        if seen[0] == occurrence:
            f = frame
            while f is not None and f.f_code.co_filename.startswith(_FNET_DIR):
                f = f.f_back
            found.append(f"{f.f_code.co_filename}:{f.f_lineno}" if f is not None else "an unknown line")
        seen[0] += 1

    level = new_level()
    boxed = tree.map(lambda a: Tracer.input(a, level) if is_ndarray(a) else a, args)
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        with recording_everything(level):
            fn(*boxed)
    except Exception:  # noqa: BLE001 - only a location is wanted from this second run
        pass
    finally:
        sys.setprofile(previous)
    return found[0] if found else "an unknown line"


def _check_no_data_reads(records: list, made: list, site: Callable) -> None:
    """An ``ExportError`` if a comparison (or another non-differentiable primitive) was applied
    to traced values but its result reaches no output: the function read it as data."""
    reached = {id(r) for r in records}
    for record in made:
        if id(record) not in reached:
            raise ExportError(
                message(
                    f"fnet.onnx.export: {record.primitive.name}",
                    f"its result (called at {site(record)}) is used as data outside the recorded "
                    "operations (an index, a mask, a Python if), so the graph would depend on the "
                    "example's data or have a shape that depends on it",
                    {"result": record.ans},
                    hint="select with fnet.ops.where instead of a mask, keep shapes independent of "
                    "values, or compute the value outside the exported function",
                )
            )


def _rebuild(params, param_leaves):
    """``params`` with the leaves that ``trace`` boxed (for a second run that finds a call site)."""
    return tree.unflatten(tree.structure(params), [leaf for _, leaf in param_leaves])


def trace(fn: Callable, params, example_args: tuple, level: int):
    """Run ``fn(params, *example_args)`` on tracers of ``level``; returns the param tracers
    with their paths, the input tracers, the output leaves, and the records of the
    non-differentiable primitives applied."""
    param_leaves = []
    for path, leaf in tree.flatten_with_paths(params):
        if backend.is_array(leaf):
            leaf = Tracer.input(_as_array(leaf), level)
        param_leaves.append((path, leaf))
    traced_params = _rebuild(params, param_leaves)
    arg_leaves, arg_structure = tree.flatten(example_args)
    inputs = [Tracer.input(_as_array(a), level) for a in arg_leaves]
    traced_args = tree.unflatten(arg_structure, inputs)
    with recording_everything(level) as made:
        try:
            out = fn(traced_params, *traced_args)
        except TracerConversionError as error:
            raise ExportError(
                message(
                    "fnet.onnx.export",
                    "the function uses a traced value as a concrete array, so the graph would "
                    f"depend on the example's data: {str(error).splitlines()[0]}",
                    hint="ONNX graphs have shapes and indices fixed when exported: compute masks "
                    "and indices with fnet.ops (where, comparisons) instead of NumPy, or pass "
                    "them as constants closed over by the function",
                )
            ) from error
    return param_leaves, inputs, tree.leaves(out), made


def write(
    outputs: list,
    level: int,
    *,
    opset: int,
    inputs: list,
    params: list,
    made: list,
    site: Callable,
    table: Mapping,
    output_names=None,
    dynamic_axes=None,
    graph_name: str = "Graph",
    substitute: Callable | None = None,
    inputs_must_be_used: bool = True,
    named_arrays: Mapping | None = None,
) -> onnx.ModelProto:
    """The model computing ``outputs`` (tracers of ``level``) from the graph inputs ``inputs``
    and the initializers ``params`` (both ``(name, tracer)`` pairs; a param becomes an
    initializer only if it is used, in the order given). ``made`` are the non-differentiable
    records of the trace, ``site(record)`` finds a record's call site for messages, ``table``
    maps primitive names to converters. ``substitute(record)`` may give ``(parents,
    converter)`` that replace a record's own (the Chainer layer converts a function call as
    one node that way). ``named_arrays`` maps arrays (by id) read as constants to initializer names."""
    g = Graph(opset)
    out_names = _names(output_names, len(outputs), "output", "output names")
    g.reserve(out_names + [name for name, _ in inputs])
    g.named_arrays = {k: (name, array) for k, (name, array) in (named_arrays or {}).items()}
    names: dict[int, str] = {}  # id(record) -> the name of its output
    for name, t in inputs:
        names[id(t.record)] = name
        g.inputs_by_value[id(t.value)] = name
    param_names = {id(t.record): name for name, t in params}
    records, parents_of = records_between(outputs, level, set(names), substitute)
    _check_no_data_reads(records, made, site)
    used = {id(record): record for record in records}
    for key, name in param_names.items():  # in the order given, not the order the params were made
        if key in used and key not in names:  # (moving a model to a device makes them anew)
            names[key] = g.initializer(used[key].ans, name)
    for record in records:
        if id(record) in names:
            continue
        if record.primitive is None:  # a tracer made outside: a constant
            names[id(record)] = g.const(record.ans)
            continue
        parents, converter = parents_of[id(record)]
        args = [unbox(p, level) for p in parents]  # as the primitive saw them
        operand_names = [
            names[id(p.record)] if type(p) is Tracer and p.level == level else _operand(g, a, args)
            for p, a in zip(parents, args)
        ]
        name = record.primitive.name
        call = Call(name, operand_names, args, record.params, record.ans, None)
        converter = converter or table.get(name)
        try:
            if converter is None:
                raise Unsupported(
                    "has no ONNX converter" + (f": {UNCONVERTED[name]}" if name in UNCONVERTED else ""),
                    "write the computation with primitives that have converters "
                    f"(fnet.onnx.CONVERTERS), or register one: fnet.onnx.CONVERTERS[{name!r}] = "
                    "convert(graph, call) -> output name",
                )
            names[id(record)] = converter(g, call)
        except Unsupported as problem:
            call.where = site(record)
            raise call.fail(
                problem.problem, f"{problem.hint}; opsets {MIN_OPSET}..{MAX_OPSET} are supported"
            ) from None
    if inputs_must_be_used:
        _check_inputs_used(g, inputs, outputs, names)
    for name, o in zip(out_names, outputs):
        if not (type(o) is Tracer and o.level == level):
            raise ExportError(
                message(
                    "fnet.onnx.export",
                    f"output {name!r} is not computed from the inputs by recorded operations: "
                    "the graph would return this example's value as a constant",
                    {name: unbox_all(o)},
                    hint="compute it with fnet.ops/fnet.functions on the inputs (not on their "
                    "NumPy values), or return it outside the exported function",
                )
            )
        source = names[id(o.record)]
        g.nodes.append(helper.make_node("Identity", [source], [name], name=f"Identity_{name}"))
    dynamic = dict(dynamic_axes or {})
    graph_inputs = [_value_info(n, t.value, dynamic) for n, t in inputs]
    graph_outputs = [_value_info(n, unbox_all(o), dynamic) for n, o in zip(out_names, outputs)]
    return g.model(graph_inputs, graph_outputs, graph_name)


def _check_inputs_used(g: Graph, inputs: list, outputs: list, names: dict) -> None:
    used = {i for node in g.nodes for i in node.input}
    used |= {names.get(id(o.record)) for o in outputs if type(o) is Tracer}
    for name, t in inputs:
        if name not in used:
            raise ExportError(
                message(
                    "fnet.onnx.export",
                    f"input {name!r} reaches no output through recorded operations: the function "
                    "reads its values (as indices, through NumPy, or in Python control flow), so "
                    "the exported graph would hold this example's data",
                    {name: t.value},
                    hint="compute with fnet.ops/fnet.functions on the input, or close over it as "
                    "a constant and drop it from the example arguments",
                )
            )


def build(
    fn: Callable,
    params,
    example_args: tuple,
    *,
    opset: int,
    input_names=None,
    output_names=None,
    dynamic_axes=None,
) -> onnx.ModelProto:
    """The model of ``fn`` (``export`` without the file)."""
    level = new_level()
    param_leaves, inputs, outputs, made = trace(fn, params, example_args, level)

    def site(record) -> str:
        same = [r for r in sorted(records_between(outputs, level)[0] + made, key=lambda r: r.seq)]
        same = [r for r in same if r.primitive is record.primitive]
        args = (_rebuild(params, [(p, unbox(t, level)) for p, t in param_leaves]),) + tuple(example_args)
        return call_site(fn, args, record.primitive, [id(r) for r in same].index(id(record)))

    in_names = _names(input_names, len(inputs), "input", "input names")
    return write(
        outputs,
        level,
        opset=opset,
        inputs=list(zip(in_names, inputs)),
        params=[(tree.path_str(path), t) for path, t in param_leaves if type(t) is Tracer],
        made=made,
        site=site,
        table=CONVERTERS,
        output_names=output_names,
        dynamic_axes=dynamic_axes,
    )


def export(
    fn: Callable,
    params,
    *example_args,
    filename=None,
    opset: int | None = None,
    input_names=None,
    output_names=None,
    dynamic_axes=None,
) -> onnx.ModelProto:
    """Write ``fn(params, *example_args)`` as an ONNX model; returns the ``ModelProto``.

    ``fn`` runs once on tracers; every primitive it applies becomes ONNX nodes through its
    converter (``fnet.onnx.CONVERTERS``), and the leaves of ``params`` become initializers
    named by their tree paths (``predictor/l1/W``). The example arguments (a pytree each) give
    the inputs' shapes and dtypes; ``input_names``/``output_names`` name the flattened inputs and
    outputs (default ``input_0``..., ``output_0``...). ``dynamic_axes`` maps a name to the axes
    left symbolic (a list, or a dict axis -> label). ``filename`` (optional) receives the model,
    written atomically. Export the inference computation: pass ``train=False`` in ``fn``.

    >>> import numpy, fnet
    >>> params = {"l1": {"W": numpy.ones((2, 3), numpy.float32), "b": numpy.zeros(2, numpy.float32)}}
    >>> f = lambda p, x: fnet.functions.relu(fnet.functions.linear(x, p["l1"]["W"], p["l1"]["b"]))
    >>> model = export(f, params, numpy.ones((4, 3), numpy.float32), opset=13)
    >>> [i.name for i in model.graph.initializer], [n.op_type for n in model.graph.node][-1]
    (['l1/W', 'l1/b'], 'Identity')
    """
    model = build(
        fn,
        params,
        example_args,
        opset=_check_opset(opset),
        input_names=input_names,
        output_names=output_names,
        dynamic_axes=dynamic_axes,
    )
    if filename is not None:
        data = model.SerializeToString()
        atomic_write("fnet.onnx.export", filename, lambda f: f.write(data))
    return model
