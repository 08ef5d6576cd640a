"""onnx_chainer.functions: what an external converter receives. The converters of Chainer's own
functions are fnet.onnx's, one per primitive (``fnet.onnx.CONVERTERS``)."""

from __future__ import annotations

__all__ = ["FunctionConverterParams", "FunctionConverter"]


class FunctionConverterParams:
    """The arguments of a converter: the function node (``func``), the opset, the names of its
    inputs and outputs, and the export's ``Context``."""

    def __init__(self, func=None, opset_version=None, input_names=None, output_names=None, context=None):
        self.func = func
        self.opset_version = opset_version
        self.input_names = input_names
        self.output_names = output_names
        self.context = context


class FunctionConverter:
    """Adapts a converter written as ``f(func, opset_version, input_names, output_names,
    context)`` to one of ``FunctionConverterParams``."""

    def __init__(self, converter):
        self.converter = converter

    def __call__(self, params: FunctionConverterParams):
        return self.converter(
            params.func, params.opset_version, params.input_names, params.output_names, params.context
        )
