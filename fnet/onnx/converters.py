"""One ONNX converter per fnet primitive, in one table (``CONVERTERS``), and the primitives that
have none with the reason (``UNCONVERTED``); a test checks that every primitive is in one of them.

A converter is ``convert(g: Graph, call: Call) -> name`` (a list of names for a tuple output).
It raises ``Unsupported`` for static parameters that ONNX cannot express; ``export`` turns that
into an ``ExportError`` that names the call site.
"""

from __future__ import annotations

import math

import numpy

from .graph import INT64_MIN, Call, Graph, dtype_of, host, is_ndarray, shape_of

__all__ = ["CONVERTERS", "UNCONVERTED", "Unsupported"]


class Unsupported(Exception):
    """A converter cannot express this call: ``problem`` and ``hint`` for the ExportError."""

    def __init__(self, problem: str, hint: str):
        super().__init__(problem)
        self.problem, self.hint = problem, hint


CONVERTERS: dict = {}


def _register(*keys):
    def put(convert):
        for key in keys:
            CONVERTERS[key] = convert
        return convert

    return put


def _f64(g: Graph, x: str, call: Call, op_chain) -> str:
    """``op_chain(g, x)`` computed in float64 and cast back (for functions that lose accuracy
    when composed in float32: expm1 = exp - 1 near 0, log1p)."""
    dtype = dtype_of(call.ans)
    return g.cast(op_chain(g, g.cast(x, numpy.float64)), dtype)


# -- elementwise -------------------------------------------------------------------------------
_UNARY = {
    "absolute": "Abs",
    "arccos": "Acos",
    "arccosh": "Acosh",
    "arcsin": "Asin",
    "arcsinh": "Asinh",
    "arctan": "Atan",
    "arctanh": "Atanh",
    "ceil": "Ceil",
    "cos": "Cos",
    "cosh": "Cosh",
    "exp": "Exp",
    "floor": "Floor",
    "log": "Log",
    "negative": "Neg",
    "reciprocal": "Reciprocal",
    "sign": "Sign",
    "sin": "Sin",
    "sinh": "Sinh",
    "sqrt": "Sqrt",
    "tan": "Tan",
    "tanh": "Tanh",
    "isnan": "IsNaN",
    "isinf": "IsInf",
    "_relu": "Relu",
    "_sigmoid": "Sigmoid",
    "_copy": "Identity",
    "chainerx.copy": "Identity",
    "pass_through": "Identity",
}
for _name, _op in _UNARY.items():
    CONVERTERS[_name] = lambda g, call, _op=_op: g.node(_op, call.inputs[:1])

_BINARY = {
    "add": "Add",
    "subtract": "Sub",
    "multiply": "Mul",
    "divide": "Div",
    "power": "Pow",
    "maximum": "Max",
    "minimum": "Min",
    "matmul": "MatMul",
    "equal": "Equal",
    "greater": "Greater",
    "greater_equal": "GreaterOrEqual",
    "less": "Less",
    "less_equal": "LessOrEqual",
}
for _name, _op in _BINARY.items():
    CONVERTERS[_name] = lambda g, call, _op=_op: g.node(_op, call.inputs[:2])


def _bools(g: Graph, call: Call) -> list:
    return [
        name if dtype_of(a).kind == "b" else g.cast(name, bool) for name, a in zip(call.inputs, call.args)
    ]


for _name, _op in {"logical_and": "And", "logical_or": "Or", "logical_xor": "Xor"}.items():
    CONVERTERS[_name] = lambda g, call, _op=_op: g.node(_op, _bools(g, call))
CONVERTERS["logical_not"] = lambda g, call: g.node("Not", _bools(g, call))
CONVERTERS["not_equal"] = lambda g, call: g.node("Not", [g.node("Equal", call.inputs)])
CONVERTERS["square"] = lambda g, call: g.node("Mul", [call.inputs[0], call.inputs[0]])
CONVERTERS["isfinite"] = lambda g, call: g.node(
    "Not", [g.node("Or", [g.node("IsInf", call.inputs), g.node("IsNaN", call.inputs)])]
)
CONVERTERS["fmod"] = lambda g, call: g.node("Mod", call.inputs, fmod=1)
CONVERTERS["expm1"] = lambda g, call: _f64(
    g, call.inputs[0], call, lambda g, x: g.node("Sub", [g.node("Exp", [x]), g.const(1.0)])
)
CONVERTERS["log1p"] = lambda g, call: _f64(
    g, call.inputs[0], call, lambda g, x: g.node("Log", [g.node("Add", [x, g.const(1.0)])])
)
CONVERTERS["log2"] = lambda g, call: _f64(
    g, call.inputs[0], call, lambda g, x: g.node("Div", [g.node("Log", [x]), g.const(math.log(2.0))])
)
CONVERTERS["log10"] = lambda g, call: _f64(
    g, call.inputs[0], call, lambda g, x: g.node("Div", [g.node("Log", [x]), g.const(math.log(10.0))])
)


@_register("fix")
def _fix(g: Graph, call: Call) -> str:
    (x,) = call.inputs
    negative = g.node("Less", [x, g.scalar(0, call.args[0])])
    return g.node("Where", [negative, g.node("Ceil", [x]), g.node("Floor", [x])])


@_register("floor_divide")
def _floor_divide(g: Graph, call: Call) -> str:
    dtype = dtype_of(call.ans)
    x, y = (g.cast(i, numpy.float64) for i in call.inputs)
    return g.cast(g.node("Floor", [g.node("Div", [x, y])]), dtype)


@_register("arctan2")
def _arctan2(g: Graph, call: Call) -> str:
    """The angle of the point ``(x=call.args[1], y=call.args[0])``, from Atan and its quadrant."""
    y, x = call.inputs
    like = call.ans
    zero = g.scalar(0, like)
    base = g.node("Atan", [g.node("Div", [y, x])])
    pi = g.node(
        "Where", [g.node("GreaterOrEqual", [y, zero]), g.scalar(math.pi, like), g.scalar(-math.pi, like)]
    )
    half = g.node("Mul", [g.node("Sign", [y]), g.scalar(math.pi / 2, like)])
    left = g.node("Add", [base, pi])
    on_axis = g.node("Where", [g.node("Less", [x, zero]), pi, half])
    result = g.node("Where", [g.node("Less", [x, zero]), left, base])
    return g.node("Where", [g.node("Equal", [x, zero]), on_axis, result])


@_register("_astype")
def _astype(g: Graph, call: Call) -> str:
    return g.cast(call.inputs[0], call.params["dtype"])


@_register("_where")
def _where(g: Graph, call: Call) -> str:
    condition, x, y = call.inputs
    if dtype_of(call.args[0]).kind != "b":
        condition = g.cast(condition, bool)
    dtype = dtype_of(call.ans)
    x, y = (n if dtype_of(a) == dtype else g.cast(n, dtype) for n, a in zip((x, y), call.args[1:]))
    return g.node("Where", [condition, x, y])


@_register("xlogx")
def _xlogx(g: Graph, call: Call) -> str:
    (x,) = call.inputs
    zero = g.scalar(0, call.args[0])
    product = g.node("Mul", [x, g.node("Log", [x])])
    return g.node("Where", [g.node("Equal", [x, zero]), zero, product])


@_register("accumulate")
def _accumulate(g: Graph, call: Call) -> str:
    return g.node("Add", call.inputs[:2])


# -- activations -----------------------------------------------------------------------------
@_register("_clip_open")
def _clip(g: Graph, call: Call) -> str:
    like = call.args[0]
    return g.node(
        "Clip", [call.inputs[0], g.scalar(call.params["lower"], like), g.scalar(call.params["upper"], like)]
    )


@_register("_elu")
def _elu(g: Graph, call: Call) -> str:
    return g.node("Elu", call.inputs[:1], alpha=float(call.params["alpha"]))


@_register("_leaky")
def _leaky(g: Graph, call: Call) -> str:
    x, slope = call.inputs
    zero = g.scalar(0, call.args[0])
    linear = g.node("GreaterOrEqual" if call.params["keep_zero"] else "Greater", [x, zero])
    return g.node("Where", [linear, x, g.node("Mul", [x, slope])])


@_register("_softplus")
def _softplus(g: Graph, call: Call) -> str:
    beta = g.scalar(call.params["beta"], call.args[0])
    return g.node("Div", [g.node("Softplus", [g.node("Mul", [call.inputs[0], beta])]), beta])


def _softmax_like(op: str):
    def convert(g: Graph, call: Call) -> str:
        axis = call.params["axis"]
        return g.node(op, call.inputs[:1], axis=int(axis))

    return convert


CONVERTERS["_softmax"] = _softmax_like("Softmax")
CONVERTERS["_log_softmax"] = _softmax_like("LogSoftmax")


def _lstm_gates(g: Graph, act: str, shape: tuple) -> list:
    """The four interleaved gates ``a, i, f, o`` of an LSTM activation of ``shape``."""
    n, width = shape[0], shape[1]
    split = g.reshape(act, shape, (n, width // 4, 4) + shape[2:])
    return g.node("Split", [split, g.ints([1, 1, 1, 1])], outputs=4, axis=2)


def _squeeze_gate(g: Graph, gate: str) -> str:
    return g.node("Squeeze", [gate, g.ints([2])])


@_register("lstm_activate")
def _lstm_activate(g: Graph, call: Call) -> str:
    shape = shape_of(call.args[0])
    a, i, f, o = _lstm_gates(g, call.inputs[0], shape)
    gates = [g.node("Tanh", [a])] + [g.node("Sigmoid", [v]) for v in (i, f, o)]
    n, width = shape[0], shape[1]
    joined = g.node("Concat", gates, axis=2)
    return g.reshape(joined, (n, width // 4, 4) + shape[2:], shape)


@_register("lstm_cell")
def _lstm_cell(g: Graph, call: Call) -> str:
    c_prev, act = call.inputs
    a, i, f, _ = (_squeeze_gate(g, v) for v in _lstm_gates(g, act, shape_of(call.args[1])))
    return g.node("Add", [g.node("Mul", [a, i]), g.node("Mul", [f, c_prev])])


@_register("lstm_output")
def _lstm_output(g: Graph, call: Call) -> str:
    tanh_c, act = call.inputs
    o = _squeeze_gate(g, _lstm_gates(g, act, shape_of(call.args[1]))[3])
    return g.node("Mul", [o, tanh_c])


# -- shapes ------------------------------------------------------------------------------------
@_register("_reshape")
def _reshape(g: Graph, call: Call) -> str:
    return g.reshape(call.inputs[0], shape_of(call.args[0]), shape_of(call.ans))


@_register("_transpose")
def _transpose(g: Graph, call: Call) -> str:
    axes = call.params["axes"]
    ndim = len(shape_of(call.args[0]))
    perm = list(reversed(range(ndim))) if axes is None else [int(a) % ndim for a in axes]
    return g.node("Transpose", call.inputs[:1], perm=perm)


@_register("_broadcast_to")
def _broadcast_to(g: Graph, call: Call) -> str:
    return g.node("Expand", [call.inputs[0], g.ints(shape_of(call.ans))])


@_register("_sum_to")
def _sum_to(g: Graph, call: Call) -> str:
    before, after = shape_of(call.args[0]), shape_of(call.ans)
    lead = len(before) - len(after)
    axes = list(range(lead)) + [lead + i for i, d in enumerate(after) if d == 1 and before[lead + i] != 1]
    if not axes:
        return g.node("Identity", call.inputs[:1])
    summed = g.reduce("ReduceSum", call.inputs[0], axes, keepdims=True)
    return g.reshape(summed, tuple(1 if i in axes else d for i, d in enumerate(before)), after)


@_register("_concatenate")
def _concatenate(g: Graph, call: Call) -> str:
    axis = int(call.params["axis"]) % len(shape_of(call.ans))
    return g.node("Concat", call.inputs, axis=axis)


@_register("_flip")
def _flip(g: Graph, call: Call) -> str:
    ndim = len(shape_of(call.args[0]))
    axis = call.params["axis"]
    axes = range(ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    axes = [int(a) % ndim for a in axes]
    n = len(axes)
    return g.node(
        "Slice", [call.inputs[0], g.ints([-1] * n), g.ints([INT64_MIN] * n), g.ints(axes), g.ints([-1] * n)]
    )


@_register("_tile")
def _tile(g: Graph, call: Call) -> str:
    shape = shape_of(call.args[0])
    reps = tuple(int(r) for r in numpy.atleast_1d(call.params["reps"]))
    ndim = max(len(shape), len(reps))
    x = g.reshape(call.inputs[0], shape, (1,) * (ndim - len(shape)) + shape)
    return g.node("Tile", [x, g.ints((1,) * (ndim - len(reps)) + reps)])


@_register("_pad_constant")
def _pad(g: Graph, call: Call) -> str:
    widths = numpy.broadcast_to(host(call.params["pad_width"], numpy.int64), (len(shape_of(call.args[0])), 2))
    value = host(call.params["constant_values"])
    if value.size != 1:
        raise Unsupported(
            "pads with a different constant on each side, which ONNX's Pad cannot express",
            "pad with one constant_values, or concatenate constant blocks",
        )
    pads = list(widths[:, 0]) + list(widths[:, 1])
    return g.node(
        "Pad", [call.inputs[0], g.ints(pads), g.scalar(value.item(), call.args[0])], mode="constant"
    )


@_register("_permute")
def _permute(g: Graph, call: Call) -> str:
    order = host(call.params["order"], numpy.int64)
    return g.node("Gather", [call.inputs[0], g.const(order)], axis=int(call.params["axis"]))


@_register("take_output")
def _take_output(g: Graph, call: Call) -> str:
    return g.node("Identity", [call.inputs[0][call.params["index"]]])


# -- indexing ----------------------------------------------------------------------------------
def _expand_ellipsis(index: tuple, ndim: int) -> tuple:
    used = sum(1 for i in index if i is not None and i is not Ellipsis)
    at = next((k for k, i in enumerate(index) if i is Ellipsis), len(index))
    return index[:at] + (slice(None),) * (ndim - used) + index[at + 1 :]


@_register("_getitem")
def _getitem(g: Graph, call: Call) -> str:
    """NumPy indexing as Slice (slices and basic ints), then Gather or GatherND (integer
    arrays), then a Reshape that drops integer axes and inserts ``None`` axes."""
    x, value = call.inputs[0], call.args[0]
    shape = shape_of(value)
    index = _expand_ellipsis(tuple(call.params["index"]), len(shape))
    arrays = [
        i for i in index if isinstance(i, numpy.ndarray) or (hasattr(i, "shape") and not isinstance(i, int))
    ]
    advanced = bool(arrays)
    starts, ends, axes, steps = [], [], [], []
    kept = []  # per axis of x: "slice", "int" (basic, dropped) or an index array
    axis = 0
    for item in index:
        if item is None:
            continue
        n = shape[axis]
        if isinstance(item, slice):
            start, stop, step = item.indices(n)
            if (start, stop, step) != (0, n, 1):
                starts.append(start)
                ends.append(stop if stop >= 0 else INT64_MIN)
                axes.append(axis)
                steps.append(step)
            kept.append("slice")
        elif not advanced and isinstance(item, int | numpy.integer):
            i = int(item) % n
            starts.append(i)
            ends.append(i + 1)
            axes.append(axis)
            steps.append(1)
            kept.append("int")
        else:
            kept.append(item if is_ndarray(item) else host(item))  # an input's own array: that input
        axis += 1
    sliced_shape = []
    for a, n in enumerate(shape):
        if a in axes:
            s = axes.index(a)
            sliced_shape.append(len(range(starts[s], ends[s] if ends[s] != INT64_MIN else -n - 1, steps[s])))
        else:
            sliced_shape.append(n)
    y = x
    if axes:
        y = g.node("Slice", [x, g.ints(starts), g.ints(ends), g.ints(axes), g.ints(steps)])
    current = tuple(sliced_shape)
    positions = [a for a, k in enumerate(kept) if is_ndarray(k)]
    if len(positions) == 1:
        (p,) = positions
        y = g.node("Gather", [y, g.const(kept[p])], axis=p)
        current = current[:p] + kept[p].shape + current[p + 1 :]
    elif positions:
        broadcast = numpy.broadcast_arrays(*[host(kept[p]) for p in positions])
        rest = [a for a in range(len(current)) if a not in positions]
        y = g.node("Transpose", [y], perm=positions + rest)
        stacked = numpy.stack([b % current[p] for b, p in zip(broadcast, positions)], axis=-1).astype(
            numpy.int64
        )
        y = g.node("GatherND", [y, g.const(stacked)])
        bshape = broadcast[0].shape
        current = bshape + tuple(current[a] for a in rest)
        adjacent = positions == list(range(positions[0], positions[0] + len(positions)))
        if adjacent and positions[0] > 0:
            nb = len(bshape)
            perm = (
                list(range(nb, nb + positions[0]))
                + list(range(nb))
                + list(range(nb + positions[0], len(current)))
            )
            y = g.node("Transpose", [y], perm=perm)
            current = tuple(current[a] for a in perm)
    return g.reshape(y, current, shape_of(call.ans))


# -- reductions --------------------------------------------------------------------------------
def _axes(axis, ndim: int):
    if axis is None:
        return None
    if isinstance(axis, int | numpy.integer):
        axis = (axis,)
    return [int(a) % ndim for a in axis]


def _reduction(op: str):
    def convert(g: Graph, call: Call) -> str:
        ndim = len(shape_of(call.args[0]))
        axes = _axes(call.params["axis"], ndim)
        if axes == []:
            return g.node("Identity", call.inputs[:1])
        return g.reduce(op, call.inputs[0], axes, call.params["keepdims"])

    return convert


CONVERTERS["_sum"] = _reduction("ReduceSum")
CONVERTERS["_prod"] = _reduction("ReduceProd")
CONVERTERS["max"] = _reduction("ReduceMax")
CONVERTERS["min"] = _reduction("ReduceMin")
CONVERTERS["_logsumexp"] = _reduction("ReduceLogSumExp")


def _arg(op: str):
    def convert(g: Graph, call: Call) -> str:
        axis = call.args[1] if len(call.args) > 1 else call.params.get("axis")
        keepdims = call.args[2] if len(call.args) > 2 else call.params.get("keepdims", False)
        x = call.inputs[0]
        if axis is None:
            y = g.node(op, [g.node("Reshape", [x, g.ints([-1])])], axis=0, keepdims=0)
            y = g.reshape(y, (), shape_of(call.ans))
        else:
            y = g.node(op, [x], axis=int(axis), keepdims=int(bool(keepdims)))
        dtype = dtype_of(call.ans)
        return y if dtype == numpy.int64 else g.cast(y, dtype)

    return convert


CONVERTERS["argmax"] = _arg("ArgMax")
CONVERTERS["argmin"] = _arg("ArgMin")


@_register("_cumsum")
def _cumsum(g: Graph, call: Call) -> str:
    axis = call.params["axis"]
    x = call.inputs[0]
    if axis is None:
        x, axis = g.node("Reshape", [x, g.ints([-1])]), 0
    return g.node("CumSum", [x, g.const(numpy.asarray(int(axis), numpy.int64))])


@_register("_einsum")
def _einsum(g: Graph, call: Call) -> str:
    equation = ",".join(call.params["terms"]) + "->" + call.params["output"]
    return g.node("Einsum", call.inputs, equation=equation)


@_register("det")
def _det(g: Graph, call: Call) -> str:
    return g.node("Det", call.inputs[:1])


@_register("_triangle")
def _triangle(g: Graph, call: Call) -> str:
    """A product with the constant triangle (Trilu exists only from opset 14)."""
    shape = shape_of(call.args[0])[-2:]
    k = int(call.params["k"])
    mask = numpy.tri(*shape, k) if call.params["lower"] else 1 - numpy.tri(*shape, k - 1)
    return g.node("Mul", [call.inputs[0], g.const(mask.astype(dtype_of(call.ans)))])


# -- connections -------------------------------------------------------------------------------
@_register("linear")
def _linear(g: Graph, call: Call) -> str:
    x, W, b = call.inputs
    if len(shape_of(call.args[0])) == 2:
        return g.node("Gemm", [x, W] + ([b] if b is not None else []), transB=1)
    y = g.node("MatMul", [x, g.node("Transpose", [W], perm=[1, 0])])
    return y if b is None else g.node("Add", [y, b])


@_register("embed_id")
def _embed_id(g: Graph, call: Call) -> str:
    y = g.node("Gather", [call.inputs[0], g.const(call.params["ids"])], axis=0)
    keep = call.params["keep"]
    if keep is not None:
        y = g.node("Mul", [y, g.const(host(keep, call.ans.dtype)[..., None])])
    return y


def _conv_attrs(geom) -> dict:
    return {
        "strides": list(geom.stride),
        "dilations": list(geom.dilate),
        "group": int(geom.groups),
        "kernel_shape": list(geom.ksize),
    }


@_register("convolution")
def _convolution(g: Graph, call: Call) -> str:
    geom = call.params["geom"]
    ends = []
    for n, k, o, s, p, d in zip(geom.size, geom.ksize, geom.out, geom.stride, geom.pad, geom.dilate):
        # the padding after the axis that gives ``o`` outputs (more than ``p`` with cover_all)
        ends.append(max(p, (o - 1) * s + (k - 1) * d + 1 - n - p))
    return g.node("Conv", call.inputs[:2], pads=list(geom.pad) + ends, **_conv_attrs(geom))


@_register("deconvolution")
def _deconvolution(g: Graph, call: Call) -> str:
    geom = call.params["geom"]
    # deconvolution maps the ``out`` grid back to images of ``size``
    return g.node(
        "ConvTranspose",
        call.inputs[:2],
        pads=list(geom.pad) * 2,
        output_padding=[
            n - ((o - 1) * s + (k - 1) * d + 1 - 2 * p)
            for n, k, o, s, p, d in zip(geom.size, geom.ksize, geom.out, geom.stride, geom.pad, geom.dilate)
        ],
        **_conv_attrs(geom),
    )


# -- pooling -----------------------------------------------------------------------------------
def _pool_pads(plan) -> list:
    return list(plan.pad) + [n - m - p for p, m, n in zip(plan.pad, plan.size, plan.padded)]


@_register("pooling_window_max")
def _max_pool(g: Graph, call: Call) -> str:
    plan = call.params["plan"]
    return g.node(
        "MaxPool",
        call.inputs[:1],
        kernel_shape=list(plan.ksize),
        strides=list(plan.stride),
        pads=_pool_pads(plan),
    )


@_register("pooling_window_sum")
def _window_sum(g: Graph, call: Call) -> str:
    plan = call.params["plan"]
    mean = g.node(
        "AveragePool",
        call.inputs[:1],
        kernel_shape=list(plan.ksize),
        strides=list(plan.stride),
        pads=_pool_pads(plan),
        count_include_pad=1,
    )
    return g.node("Mul", [mean, g.scalar(math.prod(plan.ksize), call.args[0])])


@_register("pooling_window_spread")
def _window_spread(g: Graph, call: Call) -> str:
    """Each pooled value added over its window: a transposed convolution with a kernel of ones
    per channel, whose padding crops the result."""
    plan = call.params["plan"]
    channels = shape_of(call.args[0])[1]
    ones = g.const(numpy.ones((channels, 1) + tuple(plan.ksize), dtype_of(call.ans)))
    shape = shape_of(call.ans)[2:]
    return g.node(
        "ConvTranspose",
        [call.inputs[0], ones],
        kernel_shape=list(plan.ksize),
        strides=list(plan.stride),
        group=int(channels),
        pads=_pool_pads(plan),
        output_padding=[  # the rows the windows do not reach (without cover_all): zeros
            max(n - ((o - 1) * s + k - 2 * p), 0)
            for n, k, o, s, p in zip(shape, plan.ksize, plan.out, plan.stride, plan.pad)
        ],
    )


@_register("roi_gather")
def _roi_gather(g: Graph, call: Call) -> str:
    """ROI pooling's weighted gather, at the positions the boxes gave when exported (ONNX's
    MaxRoiPool and RoiAlign quantize and sample differently from Chainer's functions)."""
    n, c, h, w = shape_of(call.args[0])
    batch, pos, weight = (host(call.params[k]) for k in ("batch", "pos", "weight"))
    channels = numpy.arange(c).reshape(1, c, 1, 1, 1)
    flat = (batch.reshape(-1, 1, 1, 1, 1) * c + channels) * (h * w) + pos
    x = g.node("Reshape", [call.inputs[0], g.ints([-1])])
    picked = g.node("Gather", [x, g.const(flat.astype(numpy.int64))], axis=0)
    weighted = g.node("Mul", [picked, g.const(weight.astype(dtype_of(call.ans)))])
    return g.reduce("ReduceSum", weighted, [4], keepdims=False)


# -- normalization -----------------------------------------------------------------------------
@_register("l2_norm")
def _l2_norm(g: Graph, call: Call) -> str:
    axes = _axes(call.params["axis"], len(shape_of(call.args[0])))
    return g.reduce("ReduceL2", call.inputs[0], axes, keepdims=True)


@_register("lrn_window_sum")
def _lrn_window_sum(g: Graph, call: Call) -> str:
    """The sum over the channels within ``half``: a 1-channel convolution along the channels."""
    half = int(call.params["half"])
    shape = shape_of(call.args[0])
    n, c = shape[0], shape[1]
    rest = int(numpy.prod(shape[2:], dtype=numpy.int64))
    x = g.node("Reshape", [call.inputs[0], g.ints([n, 1, c, rest])])
    ones = g.const(numpy.ones((1, 1, 2 * half + 1, 1), dtype_of(call.ans)))
    y = g.node("Conv", [x, ones], kernel_shape=[2 * half + 1, 1], pads=[half, 0, half, 0])
    return g.node("Reshape", [y, g.ints(shape)])


# -- losses ------------------------------------------------------------------------------------
@_register("softmax_numerator")
def _softmax_numerator(g: Graph, call: Call) -> str:
    """``exp(x - max(x))`` over the classes (axis 1)."""
    x = call.inputs[0]
    top = g.reduce("ReduceMax", x, [1], keepdims=True)
    return g.node("Exp", [g.node("Sub", [x, top])])


@_register("softmax_xent")
def _softmax_xent(g: Graph, call: Call) -> str:
    x, positions, coef = call.inputs
    log_p = g.node("LogSoftmax", [x], axis=1)
    flat = g.node("Reshape", [log_p, g.ints([-1])])
    picked = g.node("Gather", [flat, g.cast(positions, numpy.int64)], axis=0)
    loss = g.node("Mul", [g.node("Neg", [picked]), coef])
    if call.params["total"]:
        loss = g.reduce("ReduceSum", loss, None, keepdims=False)
    return loss


# -- primitives with no ONNX meaning, and why ----------------------------------------------------
_BACKWARD_ONLY = "used only by VJPs (backward passes are not exported)"
_NO_ONNX = "ONNX has no operator for it, and no composition of its operators computes it"
UNCONVERTED: dict[str, str] = {
    "embed_id_grad": _BACKWARD_ONLY,
    "convolution_filter_grad": _BACKWARD_ONLY,
    "softmax_xent_grad": _BACKWARD_ONLY,
    "pooling_window_argmax": _BACKWARD_ONLY + " (max pooling's indices, for its gradient)",
    "pooling_window_scatter": _BACKWARD_ONLY + " (and upsampling_2d from max-pooling indices)",
    "roi_scatter": _BACKWARD_ONLY,
    "_scatter_add": _BACKWARD_ONLY + " (getitem's gradient)",
    "_col2im": "col2im's scatter of patches has no ONNX operator (Col2Im is opset 18, 2-d, NCHW only)",
    "_im2col": "the patches layout of Chainer's im2col has no ONNX operator; use convolution",
    "shift": "Chainer's shift (per-channel translations) has no ONNX operator",
    "pooling_window_gather": "gathers by precomputed window indices (max-pooling gradients)",
    "pooling_window_max_grad": _BACKWARD_ONLY + " (max pooling's gradient, windows apart)",
    "_cumprod": _NO_ONNX,
    "_fft": "ONNX's DFT (opset 17) returns real and imaginary parts, not Chainer's (real, imag) pair "
    "of inputs; not converted",
    "_cholesky": _NO_ONNX,
    "inv": _NO_ONNX,
    "_solve": _NO_ONNX,
    **{
        name: _NO_ONNX + " (a matrix decomposition)"
        for name in ("_svd", "_qr", "_eigh", "_eigvalsh", "_pinv")
    },
    "inv_sqrtm": _NO_ONNX + " (a matrix square root)",
    "sylvester_solve": _NO_ONNX,
    "_coo_matmul": "sparse COO matrices have no ONNX type",
    "special.betaln": _NO_ONNX + " (log-beta)",
    "special.digamma": _NO_ONNX,
    "special.erfcinv": _NO_ONNX,
    "special.erfcx": _NO_ONNX + " (exp(x^2) erfc(x) overflows when composed)",
    "special.erfinv": _NO_ONNX,
    "special.gammaln": _NO_ONNX,
    "special.ndtri": _NO_ONNX,
    "special.polygamma": _NO_ONNX,
    "special.zeta": _NO_ONNX,
    **{
        name: "communication between MPI ranks (fnet.distributed): a served ONNX model runs in one process"
        for name in ("_send", "_recv", "_connect", "_bcast", "_gather", "_scatter", "_allgather", "_alltoall")
    },
    "FunctionNode": "a user's Chainer FunctionNode: fnet.compat.onnx_chainer converts it",
    "function_hook_entry": "a marker of Chainer's function hooks: fnet.compat.onnx_chainer converts it",
    "function_hook_exit": "a marker of Chainer's function hooks: fnet.compat.onnx_chainer converts it",
}
CONVERTERS["special.erf"] = lambda g, call: g.node("Erf", call.inputs[:1])
CONVERTERS["special.erfc"] = lambda g, call: g.node(
    "Sub", [g.scalar(1, call.args[0]), g.node("Erf", call.inputs[:1])]
)


def _ndtr(g: Graph, call: Call) -> str:
    x = call.inputs[0]
    like = call.args[0]
    scaled = g.node("Mul", [x, g.scalar(math.sqrt(0.5), like)])
    return g.node("Mul", [g.node("Add", [g.scalar(1, like), g.node("Erf", [scaled])]), g.scalar(0.5, like)])


CONVERTERS["special.ndtr"] = _ndtr
CONVERTERS["special.log_ndtr"] = lambda g, call: g.node("Log", [_ndtr(g, call)])
