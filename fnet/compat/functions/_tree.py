"""Chainer's module tree under ``chainer.functions``, declared from one table.

Each module of Chainer 7.8.1's ``chainer/functions`` is a line of :data:`TREE`: its path under
``chainer.functions``, the names of the functions it holds (fnet's lifts), then its FunctionNode
classes in the notation of :func:`_nodes.parse`: Chainer's class name, its constructor's
parameters and the function they are passed to (``"LeakyReLU(slope): leaky_relu"``). Each class
is made once; the first class of a function becomes the ``creator`` of that function's outputs.
Chainer's classes for backward passes (``ReLUGrad2``), devices (``...Cudnn``) and internal kernels
are not listed: fnet differentiates the functions themselves.
"""

from __future__ import annotations

import numpy

from ... import backend, ops
from ... import functions as _pure
from ...autodiff import unbox_all
from ...functions import noise as _noise
from .. import _modules
from ..variable import Variable
from ._forget import Forget
from ._lift import LIFTED as _LIFTED
from ._lift import lift
from ._nodes import node_class, parse

__all__ = ["TREE", "CLASSES", "LINK_NODES", "SHORTHANDS"]

TREE: dict[str, tuple[str, ...]] = {
    "activation.clipped_relu": ("clipped_relu relu6", "ClippedReLU(z): clipped_relu"),
    "activation.crelu": ("crelu", "CReLU(axis): crelu"),
    "activation.elu": ("elu", "ELU(alpha): elu"),
    "activation.hard_sigmoid": ("hard_sigmoid", "HardSigmoid: hard_sigmoid"),
    "activation.leaky_relu": ("leaky_relu", "LeakyReLU(slope): leaky_relu"),
    "activation.log_softmax": ("logsumexp log_softmax", "LogSoftmax(axis): log_softmax"),
    "activation.maxout": ("maxout",),
    "activation.prelu": ("prelu", "PReLUFunction: prelu"),
    "activation.relu": ("relu", "ReLU: relu"),
    "activation.rrelu": ("rrelu", "RReLU(lower=l, upper=u, r): rrelu"),
    "activation.selu": ("selu",),
    "activation.sigmoid": ("sigmoid", "Sigmoid: sigmoid"),
    "activation.softmax": ("softmax", "Softmax(axis): softmax"),
    "activation.softplus": ("softplus", "Softplus(beta): softplus"),
    "activation.swish": ("swish", "Swish: swish"),
    "activation.tanh": ("tanh", "Tanh: tanh"),
    "array.as_strided": ("as_strided", "AsStrided(shape, strides, storage_offset): as_strided"),
    "array.broadcast": ("broadcast broadcast_to", "Broadcast: broadcast", "BroadcastTo(shape): broadcast_to"),
    "array.cast": ("cast", "Cast(typ): cast"),
    "array.concat": ("concat", "Concat(axis): concat[]"),
    "array.copy": ("copy", "Copy(in_device=, out_device=dst): copy"),
    "array.depth2space": ("depth2space", "Depth2Space(r): depth2space"),
    "array.diagonal": ("diagonal", "Diagonal(offset, axis1, axis2): diagonal"),
    "array.dstack": ("dstack", "Dstack: dstack[]"),
    "array.expand_dims": ("expand_dims", "ExpandDims(axis): expand_dims"),
    "array.flatten": ("flatten",),
    "array.flip": ("flip", "Flip(axis): flip"),
    "array.fliplr": ("fliplr", "FlipLR: fliplr"),
    "array.flipud": ("flipud", "FlipUD: flipud"),
    "array.get_item": ("get_item", "GetItem(slices): get_item"),
    "array.hstack": ("hstack", "Hstack: hstack[]"),
    "array.im2col": ("im2col", "Im2Col(ksize, stride, pad, cover_all, dilate): im2col"),
    "array.moveaxis": ("moveaxis", "Moveaxis(source, destination): moveaxis"),
    "array.pad": ("pad", "Pad(pad_width, mode): pad"),
    "array.pad_sequence": ("pad_sequence", "PadSequence(length, padding): pad_sequence[]"),
    "array.permutate": ("permutate", "Permutate(indices, axis, inv): permutate"),
    "array.repeat": ("repeat", "Repeat(repeats, axis): repeat"),
    "array.reshape": ("reshape", "Reshape(shape): reshape"),
    "array.resize_images": (
        "resize_images",
        "ResizeImages(output_shape, mode, align_corners): resize_images",
    ),
    "array.rollaxis": ("rollaxis", "Rollaxis(axis, start): rollaxis"),
    "array.scatter_add": ("scatter_add", "ScatterAdd(slices): scatter_add"),
    "array.select_item": ("select_item", "SelectItem: select_item"),
    "array.separate": ("separate", "Separate(axis): separate"),
    "array.space2depth": ("space2depth", "Space2Depth(r): space2depth"),
    "array.spatial_transformer_grid": (
        "spatial_transformer_grid",
        "SpatialTransformerGrid(output_shape): spatial_transformer_grid",
    ),
    "array.spatial_transformer_sampler": (
        "spatial_transformer_sampler",
        "SpatialTransformerSampler: spatial_transformer_sampler",
    ),
    "array.split_axis": ("split_axis", "SplitAxis(indices_or_sections, axis): split_axis"),
    "array.squeeze": ("squeeze", "Squeeze(axis): squeeze"),
    "array.stack": ("stack", "Stack(axis): stack[]"),
    "array.swapaxes": ("swapaxes", "Swapaxes(axis1, axis2): swapaxes"),
    "array.tile": ("tile", "Tile(reps): tile"),
    "array.transpose": ("transpose", "Transpose(axes): transpose"),
    "array.transpose_sequence": ("transpose_sequence", "TransposeSequence(length=): transpose_sequence[]"),
    "array.vstack": ("vstack", "Vstack: vstack[]"),
    "array.where": ("where", "Where(condition): where"),
    "connection.bilinear": ("bilinear", "BilinearFunction: bilinear"),
    "connection.convolution_2d": (
        "convolution_2d",
        "Convolution2DFunction(stride, pad, cover_all): convolution_2d",
    ),
    "connection.convolution_nd": (
        "convolution_nd convolution_1d convolution_3d",
        "ConvolutionND(ndim=, stride, pad, cover_all, dilate, groups): convolution_nd",
    ),
    "connection.deconvolution_2d": (
        "deconvolution_2d",
        "Deconvolution2DFunction(stride, pad, outsize): deconvolution_2d",
    ),
    "connection.deconvolution_nd": (
        "deconvolution_nd deconvolution_1d deconvolution_3d",
        "DeconvolutionND(ndim=, stride, pad, outsize, dilate, groups): deconvolution_nd",
    ),
    "connection.deformable_convolution_2d_sampler": ("deformable_convolution_2d_sampler",),
    "connection.depthwise_convolution_2d": ("depthwise_convolution_2d",),
    "connection.dilated_convolution_2d": ("dilated_convolution_2d",),
    "connection.embed_id": ("embed_id", "EmbedIDFunction(ignore_label): embed_id"),
    "connection.linear": ("linear", "LinearFunction: linear"),
    "connection.local_convolution_2d": (
        "local_convolution_2d",
        "LocalConvolution2DFunction(stride): local_convolution_2d",
    ),
    "connection.shift": ("shift", "Shift(ksize, dilate): shift"),
    "evaluation.accuracy": ("accuracy", "Accuracy(ignore_label): accuracy"),
    "evaluation.binary_accuracy": ("binary_accuracy", "BinaryAccuracy: binary_accuracy"),
    "evaluation.classification_summary": (
        "classification_summary precision recall f1_score",
        "ClassificationSummary(label_num, beta, ignore_label): classification_summary",
    ),
    "evaluation.r2_score": ("r2_score", "R2_score(sample_weight, multioutput): r2_score"),
    "loss.absolute_error": ("absolute_error", "AbsoluteError: absolute_error"),
    "loss.black_out": ("black_out",),
    "loss.contrastive": ("contrastive", "Contrastive(margin, reduce): contrastive"),
    "loss.crf1d": ("crf1d argmax_crf1d",),
    "loss.cross_covariance": ("cross_covariance", "CrossCovariance(reduce): cross_covariance"),
    "loss.ctc": (
        "connectionist_temporal_classification",
        "ConnectionistTemporalClassification(blank_symbol, reduce): connectionist_temporal_classification",
    ),
    "loss.decov": ("decov", "DeCov(reduce): decov"),
    "loss.discriminative_loss": (
        "discriminative_margin_based_clustering_loss",
        "DiscriminativeMarginBasedClusteringLoss(delta_v, delta_d, max_embedding_dim, norm, "
        "alpha, beta, gamma): discriminative_margin_based_clustering_loss",
    ),
    "loss.hinge": ("hinge", "Hinge(norm, reduce): hinge"),
    "loss.huber_loss": ("huber_loss", "HuberLoss(delta, reduce): huber_loss"),
    "loss.mean_absolute_error": ("mean_absolute_error", "MeanAbsoluteError: mean_absolute_error"),
    "loss.mean_squared_error": ("mean_squared_error", "MeanSquaredError: mean_squared_error"),
    "loss.negative_sampling": (
        "negative_sampling",
        "NegativeSamplingFunction(sampler, sample_size, reduce): negative_sampling",
    ),
    "loss.sigmoid_cross_entropy": (
        "sigmoid_cross_entropy",
        "SigmoidCrossEntropy(normalize, reduce): sigmoid_cross_entropy",
    ),
    "loss.softmax_cross_entropy": (
        "softmax_cross_entropy",
        "SoftmaxCrossEntropy(normalize, cache_score, class_weight, ignore_label, reduce, "
        "soft_target_loss): softmax_cross_entropy",
    ),
    "loss.squared_error": ("squared_error squared_difference", "SquaredError: squared_error"),
    "loss.triplet": ("triplet", "Triplet(margin, reduce): triplet"),
    "loss.vae": ("gaussian_kl_divergence bernoulli_nll gaussian_nll",),
    "math.arctanh": ("arctanh", "Arctanh: arctanh"),
    "math.average": ("average",),
    "math.basic_math": (
        "absolute add matmul",
        "Neg: negative",
        "Absolute: absolute",
        "Add: add",
        "AddConstant(value=*): add",
        "MultiAdd: add",
        "Sub: subtract",
        "SubFromConstant(value=*): subtract_from",
        "Mul: multiply",
        "MulConstant(value=*): multiply",
        "Div: divide",
        "DivFromConstant(value=*): divide_into",
        "PowVarVar: power",
        "PowVarConst(value=*): power",
        "PowConstVar(value=*): power_of",
    ),
    "math.batch_l2_norm_squared": ("batch_l2_norm_squared", "BatchL2NormSquared: batch_l2_norm_squared"),
    "math.bias": ("bias",),
    "math.ceil": ("ceil",),
    "math.cholesky": ("cholesky", "Cholesky: cholesky"),
    "math.clip": ("clip", "Clip(x_min, x_max): clip"),
    "math.cumprod": ("cumprod", "Cumprod(axis): cumprod"),
    "math.cumsum": ("cumsum", "Cumsum(axis): cumsum"),
    "math.det": ("batch_det det", "BatchDet: batch_det"),
    "math.digamma": ("digamma", "DiGamma: digamma"),
    "math.einsum": ("einsum",),
    "math.erf": ("erf", "Erf: erf"),
    "math.erfc": ("erfc", "Erfc: erfc"),
    "math.erfcinv": ("erfcinv", "ErfcInv: erfcinv"),
    "math.erfcx": ("erfcx", "Erfcx: erfcx"),
    "math.erfinv": ("erfinv", "ErfInv: erfinv"),
    "math.exponential": ("exp log log2 log10", "Exp: exp", "Log: log", "Log2: log2", "Log10: log10"),
    "math.exponential_m1": ("expm1", "Expm1: expm1"),
    "math.fft": ("fft ifft",),
    "math.fix": ("fix",),
    "math.floor": ("floor",),
    "math.fmod": ("fmod", "Fmod: fmod"),
    "math.hyperbolic": ("cosh sinh", "Cosh: cosh", "Sinh: sinh"),
    "math.identity": ("identity", "Identity: identity"),
    "math.inv": ("inv batch_inv", "Inv: inv", "BatchInv: batch_inv"),
    "math.lgamma": ("lgamma", "LGamma: lgamma"),
    "math.linear_interpolate": ("linear_interpolate", "LinearInterpolate: linear_interpolate"),
    "math.log_ndtr": ("log_ndtr", "LogNdtr: log_ndtr"),
    "math.logarithm_1p": ("log1p", "Log1p: log1p"),
    "math.logsumexp": ("logsumexp", "LogSumExp(axis): logsumexp"),
    "math.matmul": (
        "matmul batch_matmul",
        "MatMul(transa, transb, transc=, dtype=): matmul",
        "BatchMatMul(transa, transb): batch_matmul",
    ),
    "math.maximum": ("maximum", "Maximum: maximum"),
    "math.minimum": ("minimum", "Minimum: minimum"),
    "math.minmax": (
        "max min argmax argmin",
        "Max(axis, keepdims): max",
        "Min(axis, keepdims): min",
        "ArgMin(axis): argmin",
        "ArgMax(axis): argmax",
    ),
    "math.ndtr": ("ndtr", "Ndtr: ndtr"),
    "math.ndtri": ("ndtri", "Ndtri: ndtri"),
    "math.polygamma": ("polygamma", "PolyGamma: polygamma"),
    "math.prod": ("prod", "Prod(axis, keepdims): prod"),
    "math.scale": ("scale",),
    "math.sign": ("sign",),
    "math.sparse_matmul": (
        "sparse_matmul",
        "CooMatMul(sp_row=row, sp_col=col, sp_shape=shape, sp_order=order, transa, transb, transc, dtype): "
        "coo_matmul",
    ),
    "math.sqrt": ("sqrt rsqrt", "Sqrt: sqrt"),
    "math.square": ("square", "Square: square"),
    "math.sum": ("sum sum_to", "Sum(axis, keepdims): sum", "SumTo(shape): sum_to"),
    "math.tensordot": ("tensordot", "TensorDot(axes, a_axes=, b_axes=, c_axes=, dtype=): tensordot"),
    "math.trigonometric": (
        "sin cos tan arcsin arccos arctan arctan2",
        "Sin: sin",
        "Cos: cos",
        "Tan: tan",
        "Arcsin: arcsin",
        "Arccos: arccos",
        "Arctan: arctan",
        "Arctan2: arctan2",
    ),
    "math.zeta": ("zeta", "Zeta(x): zeta"),
    "noise.dropout": ("dropout", "Dropout(dropout_ratio=ratio, mask, return_mask) -> mask: dropout"),
    "noise.gaussian": ("gaussian", "Gaussian(eps) -> eps: gaussian"),
    "noise.gumbel_softmax": ("gumbel_softmax",),
    "noise.simplified_dropconnect": (
        "simplified_dropconnect",
        "SimplifiedDropconnect(ratio, mask, use_batchwise_mask): simplified_dropconnect",
    ),
    "noise.zoneout": ("zoneout", "Zoneout(zoneout_ratio=ratio): zoneout"),
    "normalization.batch_normalization": (
        "batch_normalization fixed_batch_normalization",
        "BatchNormalization(eps, mean=running_mean, var=running_var, decay, axis, "
        "impl_selector=): batch_normalization",
        "FixedBatchNormalization(eps, axis): fixed_batch_normalization",
    ),
    "normalization.batch_renormalization": (
        "batch_renormalization fixed_batch_renormalization",
        "BatchRenormalizationFunction(eps, mean=running_mean, var=running_var, decay, rmax, dmax, "
        "update_statistics): batch_renormalization",
    ),
    "normalization.decorrelated_batch_normalization": (
        "decorrelated_batch_normalization fixed_decorrelated_batch_normalization",
        "DecorrelatedBatchNormalization(groups, eps, mean=running_mean, "
        "projection=running_projection, decay): decorrelated_batch_normalization",
        "FixedDecorrelatedBatchNormalization(groups): fixed_decorrelated_batch_normalization",
    ),
    "normalization.group_normalization": (
        "group_normalization",
        "GroupNormalization(groups, eps): group_normalization",
    ),
    "normalization.l2_normalization": ("normalize", "NormalizeL2(eps, axis): normalize"),
    "normalization.layer_normalization": (
        "layer_normalization",
        "LayerNormalization(eps): layer_normalization",
    ),
    "normalization.local_response_normalization": (
        "local_response_normalization",
        "LocalResponseNormalization(n, k, alpha, beta): local_response_normalization",
    ),
    "pooling.average_pooling_2d": (
        "average_pooling_2d",
        "AveragePooling2D(ksize, stride, pad, cover_all=): average_pooling_2d",
    ),
    "pooling.average_pooling_nd": (
        "average_pooling_nd average_pooling_1d average_pooling_3d",
        "AveragePoolingND(ndim=, ksize, stride, pad, cover_all=, pad_value): average_pooling_nd",
    ),
    "pooling.average_pooling_nd_kernel": ("",),
    "pooling.max_pooling_nd": (
        "max_pooling_nd max_pooling_1d max_pooling_2d max_pooling_3d",
        "MaxPoolingND(ndim=, ksize, stride, pad, cover_all, return_indices): max_pooling_nd",
    ),
    "pooling.max_pooling_nd_kernel": ("",),
    "pooling.pooling_2d": ("",),
    "pooling.pooling_nd": ("",),
    "pooling.pooling_nd_kernel": ("",),
    "pooling.roi_average_align_2d": (
        "roi_average_align_2d",
        "ROIAverageAlign2D(outsize, spatial_scale, sampling_ratio): roi_average_align_2d",
    ),
    "pooling.roi_average_pooling_2d": (
        "roi_average_pooling_2d",
        "ROIAveragePooling2D(outsize, spatial_scale): roi_average_pooling_2d",
    ),
    "pooling.roi_max_align_2d": (
        "roi_max_align_2d",
        "ROIMaxAlign2D(outsize, spatial_scale, sampling_ratio): roi_max_align_2d",
    ),
    "pooling.roi_max_pooling_2d": (
        "roi_max_pooling_2d",
        "ROIMaxPooling2D(outsize, spatial_scale): roi_max_pooling_2d",
    ),
    "pooling.roi_pooling_2d": ("roi_pooling_2d", "ROIPooling2D(outh, outw, spatial_scale): roi_pooling_2d"),
    "pooling.spatial_pyramid_pooling_2d": ("spatial_pyramid_pooling_2d",),
    "pooling.unpooling_2d": (
        "unpooling_2d",
        "Unpooling2D(ksize, stride, pad, outsize, cover_all): unpooling_2d",
    ),
    "pooling.unpooling_nd": (
        "unpooling_nd unpooling_1d unpooling_3d",
        "UnpoolingND(ndim=, ksize, stride, pad, outsize, cover_all): unpooling_nd",
    ),
    "pooling.upsampling_2d": (
        "upsampling_2d",
        "Upsampling2D(indexes, ksize, stride, pad, outsize, cover_all): upsampling_2d",
    ),
    "rnn.lstm": ("lstm", "LSTM: lstm"),
    "rnn.n_step_gru": ("n_step_gru n_step_bigru",),
    "rnn.n_step_lstm": ("n_step_lstm n_step_bilstm",),
    "rnn.n_step_rnn": ("n_step_rnn n_step_birnn",),
    "rnn.slstm": ("slstm", "SLSTM: slstm"),
    "rnn.tree_lstm": ("tree_lstm", "TreeLSTM: tree_lstm"),
    "theano.theano_function": ("",),
    "util.forget": ("forget",),  # its class is _forget.Forget (see _EXTRAS)
}


def _subtract_from(x, value):
    """``value - x`` (Chainer's ``SubFromConstant``)."""
    return ops.subtract(value, x)


def _divide_into(x, value):
    """``value / x`` (Chainer's ``DivFromConstant``)."""
    return ops.divide(value, x)


def _power_of(x, value):
    """``value ** x`` (Chainer's ``PowConstVar``)."""
    return ops.power(value, x)


def _coo_matmul(
    data, dense, row, col, shape, order=None, transa=False, transb=False, transc=False, dtype=None
):
    """Chainer's ``CooMatMul``: the sparse matrix ``data`` at ``(row, col)`` times ``dense``
    (``sparse_matmul``), computed in ``dtype``, the product transposed with ``transc``."""
    dtype = numpy.result_type(data.dtype, dense.dtype) if dtype is None else numpy.dtype(dtype)
    data, dense = (v if v.dtype == dtype else ops.astype(v, dtype) for v in (data, dense))
    sparse = _pure.CooMatrix(data, row, col, shape, order, requires_grad=True)
    product = _pure.sparse_matmul(sparse, dense, transa, transb)
    return ops.swapaxes(product, -1, -2) if transc else product


def _operation(name: str, primitive):
    """A function ``name`` running the primitive of one of Python's operators."""

    def operation(*operands):
        return primitive(*operands)

    operation.__name__ = operation.__qualname__ = name
    operation.__doc__ = f"``{name}`` of the operands (fnet.ops)."
    return operation


# The operations of Python's operators that Chainer's basic_math classes stand for.
_OPERATIONS = {
    "negative": _operation("negative", ops.negative),
    "subtract": _operation("subtract", ops.subtract),
    "multiply": _operation("multiply", ops.multiply),
    "divide": _operation("divide", ops.divide),
    "power": _operation("power", ops.power),
    "subtract_from": _subtract_from,
    "divide_into": _divide_into,
    "power_of": _power_of,
    "coo_matmul": _coo_matmul,
}


def _convert_value_to_string(value) -> str:
    """How a basic_math label shows a constant: a scalar as itself (in parentheses when
    negative), an array as ``constant array``."""
    if isinstance(value, Variable):
        value = value.array
    if numpy.isscalar(value):
        return f"({value})" if value < 0 else str(value)
    if hasattr(value, "shape") and hasattr(value, "dtype"):
        return "constant array"
    raise ValueError(
        f"basic_math: a constant must be a Variable, a scalar or an array, got {type(value).__name__}"
    )


# The labels of the classes whose label is not their name: basic_math's show the operator, with
# ``_`` for each variable and ``{}`` for the constant; most math functions show their function's name.
_LABELS = {
    "Neg": "__neg__",
    "Absolute": "|_|",
    "Add": "_ + _",
    "AddConstant": "_ + {}",
    "Sub": "_ - _",
    "SubFromConstant": "{} - _",
    "Mul": "_ * _",
    "MulConstant": "_ * {}",
    "Div": "_ / _",
    "DivFromConstant": "{} / _",
    "PowVarVar": "_ ** _",
    "PowVarConst": "_ ** {}",
    "PowConstVar": "{} ** _",
    "Cholesky": "cholesky",
    "BatchDet": "det",
    "DiGamma": "digamma",
    "Erf": "erf",
    "Erfc": "erfc",
    "ErfcInv": "erfcinv",
    "Erfcx": "erfcx",
    "ErfInv": "erfinv",
    "Exp": "exp",
    "Log": "log",
    "Log2": "log2",
    "Log10": "log10",
    "Expm1": "expm1",
    "Fmod": "fmod",
    "Cosh": "cosh",
    "Sinh": "sinh",
    "LGamma": "lgamma",
    "LogNdtr": "log_ndtr",
    "Log1p": "log1p",
    "Ndtr": "ndtr",
    "Ndtri": "ndtri",
    "PolyGamma": "polygamma",
    "Sqrt": "sqrt",
    "Square": "square",
    "Sin": "sin",
    "Cos": "cos",
    "Tan": "tan",
    "Arcsin": "arcsin",
    "Arccos": "arccos",
    "Arctan": "arctan",
    "Arctan2": "arctan2",
    "Zeta": "zeta",
}


def _label(template: str):
    if "{}" not in template:
        return lambda node: template
    return lambda node: template.format(_convert_value_to_string(node.value))


def _cached_scores(arguments: dict):
    """``SoftmaxCrossEntropy.y``: the softmax of ``x`` when the call keeps it (``cache_score``)."""
    if not arguments["cache_score"] or arguments["enable_double_backprop"]:
        return None
    return _pure.softmax(unbox_all(arguments["x"]), axis=1)


def _dropconnect_mask(arguments: dict):
    """``SimplifiedDropconnect.mask``: the mask given, or the one the call's key drew (as the pure
    function draws it: one pattern per sample with ``use_batchwise_mask``); all kept in test mode."""
    if arguments["mask"] is not None:
        return unbox_all(arguments["mask"])
    W, ratio = unbox_all(arguments["W"]), arguments["ratio"]
    n = unbox_all(arguments["x"]).shape[0]
    shape = (n, *W.shape) if arguments["use_batchwise_mask"] else W.shape
    if not arguments["train"]:  # nothing dropped
        return backend.xp(W).ones(shape, bool)
    return _noise._keep(arguments["key"], 1.0 - ratio, shape, W)


def _zoneout_flag(take_x: bool):
    """``Zoneout.flag_x`` (or ``flag_h``): where the call took ``x`` (kept ``h``), booleans as in
    Chainer; the flag given, or the one the call's key drew (as the pure function draws it)."""

    def flag(arguments: dict):
        if not arguments["train"]:
            return None
        taken = arguments["flag_x"]
        if taken is None:
            x = unbox_all(arguments["x"])
            taken = _noise._keep(arguments["key"], 1.0 - arguments["ratio"], x.shape, x)
        taken = unbox_all(taken)
        return taken if take_x else ~taken

    return flag


# Attributes of a node that Chainer keeps from its forward, computed from the call's arguments.
# The noise patterns are drawn again from the call's key, by the pure function's own helper.
_DERIVED = {
    "SoftmaxCrossEntropy": {"y": _cached_scores},
    "SimplifiedDropconnect": {"mask": _dropconnect_mask},
    "Zoneout": {"flag_x": _zoneout_flag(True), "flag_h": _zoneout_flag(False)},
}


def _stride_array(array, shape, strides, storage_offset):
    """A view of ``shape`` on the memory of ``array``'s base (the array that owns it), strides
    and ``storage_offset`` counted in elements from the start of that memory (Chainer's helper
    of ``as_strided``; a NumPy array only).

    >>> x = numpy.arange(4.0)
    >>> _stride_array(x[1:], (4,), (-1,), 3)
    array([3., 2., 1., 0.])
    """
    if not isinstance(array, numpy.ndarray):
        raise TypeError(
            f"_stride_array: expected array to be a numpy.ndarray, got {type(array).__name__}\n"
            "  hint: pass the array on the CPU (chainer.backend.CpuDevice().send(x))"
        )
    base = array
    while isinstance(base.base, numpy.ndarray):
        base = base.base
    shape, strides, offset = tuple(shape), tuple(strides), int(storage_offset)
    if 0 not in shape:
        low = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s < 0)
        high = offset + sum((n - 1) * s for n, s in zip(shape, strides) if s > 0)
        if low < 0 or (high + 1) * array.itemsize > base.nbytes:
            raise ValueError(
                f"_stride_array: expected the view to stay in the {base.nbytes // array.itemsize} "
                f"elements of the array's memory, got elements {low}..{high}\n"
                "  hint: reduce the shape, the strides or the storage_offset (counted in elements)"
            )
    itemsize = array.itemsize
    return numpy.ndarray(shape, array.dtype, base, offset * itemsize, tuple(s * itemsize for s in strides))


# Names Chainer's tests and programs take from a module besides its functions and classes.
_EXTRAS = {
    "util.forget": lambda: {"Forget": Forget},
    "array.flip": lambda: {"_flip": lambda x, axis: numpy.flip(x, axis)},
    "array.as_strided": lambda: {"_stride_array": _stride_array},
    "math.basic_math": lambda: {
        "_convert_value_to_string": _convert_value_to_string,
        "neg": Variable.__neg__,
        "sub": Variable.__sub__,
        "rsub": Variable.__rsub__,
        "mul": Variable.__mul__,
        "div": Variable.__truediv__,
        "rdiv": Variable.__rtruediv__,
        "floordiv": Variable.__floordiv__,
        "rfloordiv": Variable.__rfloordiv__,
        "pow": Variable.__pow__,
        "rpow": Variable.__rpow__,
        "rmatmul": Variable.__rmatmul__,
    },
}

# The node a link's call makes in Chainer, for the links whose forward is one built-in function
# (by the name of fnet's spec class, as its link is called).
LINK_NODES = {
    "Linear": "connection.linear.LinearFunction",
    "Convolution1D": "connection.convolution_nd.ConvolutionND",
    "Convolution2D": "connection.convolution_2d.Convolution2DFunction",
    "Convolution3D": "connection.convolution_nd.ConvolutionND",
    "ConvolutionND": "connection.convolution_nd.ConvolutionND",
    "Deconvolution1D": "connection.deconvolution_nd.DeconvolutionND",
    "Deconvolution2D": "connection.deconvolution_2d.Deconvolution2DFunction",
    "Deconvolution3D": "connection.deconvolution_nd.DeconvolutionND",
    "DeconvolutionND": "connection.deconvolution_nd.DeconvolutionND",
    "EmbedID": "connection.embed_id.EmbedIDFunction",
    "Bilinear": "connection.bilinear.BilinearFunction",
    "LocalConvolution2D": "connection.local_convolution_2d.LocalConvolution2DFunction",
    "PReLU": "activation.prelu.PReLUFunction",
    "Swish": "activation.swish.Swish",
    "BatchNormalization": "normalization.batch_normalization.BatchNormalization",
    "LayerNormalization": "normalization.layer_normalization.LayerNormalization",
    "GroupNormalization": "normalization.group_normalization.GroupNormalization",
}

# Chainer's shorthand functions whose call makes the node of their general form, by that node's
# class: ``F.max_pooling_2d(x, 2).creator`` is a ``MaxPoolingND``, as DumpGraph and hooks show.
SHORTHANDS = {
    "activation.clipped_relu.ClippedReLU": "relu6",
    "connection.convolution_nd.ConvolutionND": "convolution_1d convolution_3d",
    "connection.deconvolution_nd.DeconvolutionND": "deconvolution_1d deconvolution_3d",
    "loss.squared_error.SquaredError": "squared_difference",
    "pooling.average_pooling_nd.AveragePoolingND": "average_pooling_1d average_pooling_3d",
    "pooling.max_pooling_nd.MaxPoolingND": "max_pooling_1d max_pooling_2d max_pooling_3d",
    "pooling.unpooling_nd.UnpoolingND": "unpooling_1d unpooling_3d",
}

CLASSES: dict[str, type] = {}  # "activation.relu.ReLU" -> the class


def _declare(package: str, namespace: dict) -> None:
    """Make the classes of :data:`TREE` and declare its modules under ``package``."""
    operations = {name: lift(f) for name, f in _OPERATIONS.items()}
    bound = set()
    for module, (functions, *specs) in TREE.items():
        contents = {name: namespace[name] for name in functions.split()}
        for spec in specs:
            name, *_, function, _ = parse(spec)
            lifted = _LIFTED.get(function) or operations[function]
            label = _LABELS.get(name)
            cls = node_class(
                spec,
                f"{package}.{module}",
                lifted,
                None if label is None else _label(label),
                _DERIVED.get(name),
            )
            if function not in bound:
                lifted.bind(cls)
                bound.add(function)
            contents[name] = CLASSES[f"{module}.{name}"] = cls
        extras = _EXTRAS.get(module)
        _modules.declare(
            f"{package}.{module}",
            lambda contents=contents, extras=extras: {**contents, **(extras() if extras else {})},
        )
    for path, functions in SHORTHANDS.items():
        for function in functions.split():
            (_LIFTED.get(function) or operations[function]).bind(CLASSES[path])
