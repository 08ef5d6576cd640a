"""Caffe's message schema, declared here with protobuf's descriptor API (no generated code).

Only the messages and fields that reading and writing a network needs are declared: a
``.caffemodel`` with more keeps the rest as unknown fields, which are skipped. Field numbers,
types and defaults are Caffe's (``caffe.proto``, package ``caffe``, proto2), so files written
by Caffe or by Chainer read here and files written here read in both.

>>> blob = BlobProto(data=[1.0, 2.0])
>>> blob.shape.dim.extend([2])
>>> BlobProto.FromString(blob.SerializeToString()).shape.dim[0]
2
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

__all__ = [
    "BlobShape",
    "BlobProto",
    "NetParameter",
    "LayerParameter",
    "V1LayerParameter",
    "PARAMETER_MESSAGES",
    "TRAIN",
    "TEST",
]

_F = descriptor_pb2.FieldDescriptorProto
_TYPES = {
    "float": _F.TYPE_FLOAT,
    "double": _F.TYPE_DOUBLE,
    "int32": _F.TYPE_INT32,
    "int64": _F.TYPE_INT64,
    "uint32": _F.TYPE_UINT32,
    "bool": _F.TYPE_BOOL,
    "string": _F.TYPE_STRING,
}
_LABELS = {"opt": _F.LABEL_OPTIONAL, "rep": _F.LABEL_REPEATED, "packed": _F.LABEL_REPEATED}

# Each field: (number, "opt"/"rep"/"packed", type, name[, default]); a type that is not a scalar
# names a message (``BlobShape``) or an enum (``Engine``: the message's own, or ``Phase``).
_ENGINE = ("Engine", ("DEFAULT", "CAFFE", "CUDNN"))
_MESSAGES: dict[str, tuple[tuple, tuple]] = {
    "BlobShape": ((), ((1, "packed", "int64", "dim"),)),
    "BlobProto": (
        (),
        (
            (7, "opt", "BlobShape", "shape"),
            (5, "packed", "float", "data"),
            (6, "packed", "float", "diff"),
            (8, "packed", "double", "double_data"),
            (9, "packed", "double", "double_diff"),
            (1, "opt", "int32", "num", 0),
            (2, "opt", "int32", "channels", 0),
            (3, "opt", "int32", "height", 0),
            (4, "opt", "int32", "width", 0),
        ),
    ),
    "ConcatParameter": ((), ((2, "opt", "int32", "axis", 1), (1, "opt", "uint32", "concat_dim", 1))),
    "BatchNormParameter": (
        (),
        (
            (1, "opt", "bool", "use_global_stats"),
            (2, "opt", "float", "moving_average_fraction", 0.999),
            (3, "opt", "float", "eps", 1e-5),
        ),
    ),
    "ConvolutionParameter": (
        (_ENGINE,),
        (
            (1, "opt", "uint32", "num_output"),
            (2, "opt", "bool", "bias_term", True),
            (3, "rep", "uint32", "pad"),
            (4, "rep", "uint32", "kernel_size"),
            (6, "rep", "uint32", "stride"),
            (18, "rep", "uint32", "dilation"),
            (9, "opt", "uint32", "pad_h", 0),
            (10, "opt", "uint32", "pad_w", 0),
            (11, "opt", "uint32", "kernel_h"),
            (12, "opt", "uint32", "kernel_w"),
            (13, "opt", "uint32", "stride_h"),
            (14, "opt", "uint32", "stride_w"),
            (5, "opt", "uint32", "group", 1),
            (15, "opt", "Engine", "engine", "DEFAULT"),
            (16, "opt", "int32", "axis", 1),
            (17, "opt", "bool", "force_nd_im2col", False),
        ),
    ),
    "DropoutParameter": ((), ((1, "opt", "float", "dropout_ratio", 0.5),)),
    "EltwiseParameter": (
        (("EltwiseOp", ("PROD", "SUM", "MAX")),),
        (
            (1, "opt", "EltwiseOp", "operation", "SUM"),
            (2, "rep", "float", "coeff"),
            (3, "opt", "bool", "stable_prod_grad", True),
        ),
    ),
    "InnerProductParameter": (
        (),
        (
            (1, "opt", "uint32", "num_output"),
            (2, "opt", "bool", "bias_term", True),
            (5, "opt", "int32", "axis", 1),
        ),
    ),
    "LRNParameter": (
        (("NormRegion", ("ACROSS_CHANNELS", "WITHIN_CHANNEL")), _ENGINE),
        (
            (1, "opt", "uint32", "local_size", 5),
            (2, "opt", "float", "alpha", 1.0),
            (3, "opt", "float", "beta", 0.75),
            (4, "opt", "NormRegion", "norm_region", "ACROSS_CHANNELS"),
            (5, "opt", "float", "k", 1.0),
            (6, "opt", "Engine", "engine", "DEFAULT"),
        ),
    ),
    "PoolingParameter": (
        (("PoolMethod", ("MAX", "AVE", "STOCHASTIC")), _ENGINE),
        (
            (1, "opt", "PoolMethod", "pool", "MAX"),
            (4, "opt", "uint32", "pad", 0),
            (9, "opt", "uint32", "pad_h", 0),
            (10, "opt", "uint32", "pad_w", 0),
            (2, "opt", "uint32", "kernel_size"),
            (5, "opt", "uint32", "kernel_h"),
            (6, "opt", "uint32", "kernel_w"),
            (3, "opt", "uint32", "stride", 1),
            (7, "opt", "uint32", "stride_h"),
            (8, "opt", "uint32", "stride_w"),
            (11, "opt", "Engine", "engine", "DEFAULT"),
            (12, "opt", "bool", "global_pooling", False),
        ),
    ),
    "ReLUParameter": (
        (_ENGINE,),
        ((1, "opt", "float", "negative_slope", 0.0), (2, "opt", "Engine", "engine", "DEFAULT")),
    ),
    "ReshapeParameter": (
        (),
        (
            (1, "opt", "BlobShape", "shape"),
            (2, "opt", "int32", "axis", 0),
            (3, "opt", "int32", "num_axes", -1),
        ),
    ),
    "ScaleParameter": (
        (),
        (
            (1, "opt", "int32", "axis", 1),
            (2, "opt", "int32", "num_axes", 1),
            (4, "opt", "bool", "bias_term", False),
        ),
    ),
    "SigmoidParameter": ((_ENGINE,), ((1, "opt", "Engine", "engine", "DEFAULT"),)),
    "SliceParameter": (
        (),
        (
            (3, "opt", "int32", "axis", 1),
            (2, "rep", "uint32", "slice_point"),
            (1, "opt", "uint32", "slice_dim", 1),
        ),
    ),
    "InputParameter": ((), ((1, "rep", "BlobShape", "shape"),)),
    "SoftmaxParameter": (
        (_ENGINE,),
        ((1, "opt", "Engine", "engine", "DEFAULT"), (2, "opt", "int32", "axis", 1)),
    ),
}

# The layer parameter messages, with their field numbers in LayerParameter and V1LayerParameter
# (None: the v1 format has no such field).
PARAMETER_MESSAGES = {
    "batch_norm_param": ("BatchNormParameter", 139, None),
    "concat_param": ("ConcatParameter", 104, 9),
    "convolution_param": ("ConvolutionParameter", 106, 10),
    "dropout_param": ("DropoutParameter", 108, 12),
    "eltwise_param": ("EltwiseParameter", 110, 24),
    "inner_product_param": ("InnerProductParameter", 117, 17),
    "lrn_param": ("LRNParameter", 118, 18),
    "pooling_param": ("PoolingParameter", 121, 19),
    "relu_param": ("ReLUParameter", 123, 30),
    "reshape_param": ("ReshapeParameter", 133, None),
    "scale_param": ("ScaleParameter", 142, None),
    "sigmoid_param": ("SigmoidParameter", 124, 38),
    "softmax_param": ("SoftmaxParameter", 125, 39),
    "slice_param": ("SliceParameter", 126, 31),
    "input_param": ("InputParameter", 143, None),
}

# V1LayerParameter.LayerType: the v1 format's layer types by number.
_V1_TYPES = {
    "NONE": 0, "ABSVAL": 35, "ACCURACY": 1, "ARGMAX": 30, "BNLL": 2, "CONCAT": 3,
    "CONTRASTIVE_LOSS": 37, "CONVOLUTION": 4, "DATA": 5, "DECONVOLUTION": 39, "DROPOUT": 6,
    "DUMMY_DATA": 32, "EUCLIDEAN_LOSS": 7, "ELTWISE": 25, "EXP": 38, "FLATTEN": 8, "HDF5_DATA": 9,
    "HDF5_OUTPUT": 10, "HINGE_LOSS": 28, "IM2COL": 11, "IMAGE_DATA": 12, "INFOGAIN_LOSS": 13,
    "INNER_PRODUCT": 14, "LRN": 15, "MEMORY_DATA": 29, "MULTINOMIAL_LOGISTIC_LOSS": 16, "MVN": 34,
    "POOLING": 17, "POWER": 26, "RELU": 18, "SIGMOID": 19, "SIGMOID_CROSS_ENTROPY_LOSS": 27,
    "SILENCE": 36, "SOFTMAX": 20, "SOFTMAX_LOSS": 21, "SPLIT": 22, "SLICE": 33, "TANH": 23,
    "WINDOW_DATA": 24, "THRESHOLD": 31,
}  # fmt: skip

_LAYER_FIELDS = (
    (1, "opt", "string", "name"),
    (2, "opt", "string", "type"),
    (3, "rep", "string", "bottom"),
    (4, "rep", "string", "top"),
    (10, "opt", "Phase", "phase"),
    (5, "rep", "float", "loss_weight"),
    (7, "rep", "BlobProto", "blobs"),
) + tuple((number, "opt", message, name) for name, (message, number, _) in PARAMETER_MESSAGES.items())

_V1_LAYER_FIELDS = (
    (2, "rep", "string", "bottom"),
    (3, "rep", "string", "top"),
    (4, "opt", "string", "name"),
    (5, "opt", "LayerType", "type"),
    (6, "rep", "BlobProto", "blobs"),
    (35, "rep", "float", "loss_weight"),
) + tuple(
    (v1, "opt", message, name) for name, (message, _, v1) in PARAMETER_MESSAGES.items() if v1 is not None
)

_MESSAGES["LayerParameter"] = ((), _LAYER_FIELDS)
_MESSAGES["V1LayerParameter"] = ((("LayerType", _V1_TYPES),), _V1_LAYER_FIELDS)
_MESSAGES["NetParameter"] = (
    (),
    (
        (1, "opt", "string", "name"),
        (3, "rep", "string", "input"),
        (8, "rep", "BlobShape", "input_shape"),
        (4, "rep", "int32", "input_dim"),
        (100, "rep", "LayerParameter", "layer"),
        (2, "rep", "V1LayerParameter", "layers"),
    ),
)
_FILE_ENUMS = {"Phase": ("TRAIN", "TEST")}


def _add_enum(container, name: str, values) -> None:
    enum = container.enum_type.add(name=name)
    pairs = values.items() if isinstance(values, dict) else ((v, i) for i, v in enumerate(values))
    for value_name, number in pairs:
        enum.value.add(name=value_name, number=number)


def _add_field(message, enums: set[str], number, label, type_, name, *default) -> None:
    field = message.field.add(name=name, number=number, label=_LABELS[label])
    if type_ in _TYPES:
        field.type = _TYPES[type_]
    elif type_ in enums:
        field.type = _F.TYPE_ENUM
        field.type_name = f".caffe.{message.name}.{type_}"
    elif type_ in _FILE_ENUMS:
        field.type = _F.TYPE_ENUM
        field.type_name = f".caffe.{type_}"
    else:
        field.type = _F.TYPE_MESSAGE
        field.type_name = f".caffe.{type_}"
    if label == "packed":
        field.options.packed = True
    if default:
        (value,) = default
        field.default_value = str(value).lower() if isinstance(value, bool) else repr(value).strip("'")


def _file() -> descriptor_pb2.FileDescriptorProto:
    """The FileDescriptorProto of the declared part of ``caffe.proto``."""
    proto = descriptor_pb2.FileDescriptorProto(name="fnet/caffe.proto", package="caffe", syntax="proto2")
    for name, values in _FILE_ENUMS.items():
        _add_enum(proto, name, values)
    for name, (enums, fields) in _MESSAGES.items():
        message = proto.message_type.add(name=name)
        for enum_name, values in enums:
            _add_enum(message, enum_name, values)
        for field in fields:
            _add_field(message, {e[0] for e in enums}, *field)
    return proto


_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_file())


def _message_class(name: str):
    return message_factory.GetMessageClass(_POOL.FindMessageTypeByName(f"caffe.{name}"))


BlobShape = _message_class("BlobShape")
BlobProto = _message_class("BlobProto")
LayerParameter = _message_class("LayerParameter")
V1LayerParameter = _message_class("V1LayerParameter")
NetParameter = _message_class("NetParameter")
TRAIN, TEST = 0, 1
