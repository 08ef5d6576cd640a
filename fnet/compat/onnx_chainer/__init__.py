"""onnx_chainer on fnet: Chainer models exported to ONNX with fnet.onnx's converters.

``export``, ``export_testcase``, ``replace_func`` (``as_funcnode``, ``fake_as_funcnode``), the
converter utilities (``context.Context``, ``onnx_helper``'s ``GraphBuilder`` and ``make_node``),
``external_converters`` for user FunctionNodes, and the ``testing`` helpers. Needs the ``onnx``
extra. Opsets ``MINIMUM_OPSET_VERSION`` (13) to ``MAXIMUM_OPSET_VERSION`` are written.
"""

from . import context, functions, onnx_helper, replace_func, testing
from .export import MAXIMUM_OPSET_VERSION, MINIMUM_OPSET_VERSION, convert_parameter, export
from .export_testcase import export_testcase

__all__ = [
    "export",
    "export_testcase",
    "convert_parameter",
    "MINIMUM_OPSET_VERSION",
    "MAXIMUM_OPSET_VERSION",
    "context",
    "functions",
    "onnx_helper",
    "replace_func",
    "testing",
]
