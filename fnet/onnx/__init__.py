"""ONNX export from the tape: ``export(fn, params, *example_args)`` writes the primitives that
``fn`` applies as an ONNX model (needs the ``onnx`` extra: ``pip install fnet-chainer[onnx]``).

Each primitive has one converter in ``CONVERTERS``; ``UNCONVERTED`` lists the primitives that
have no ONNX meaning, with the reason. Opsets ``MIN_OPSET`` to ``MAX_OPSET`` are written.
"""

from .converters import CONVERTERS, UNCONVERTED, Unsupported
from .exporter import (
    MAX_OPSET,
    MIN_OPSET,
    build,
    call_site,
    export,
    records_between,
    supported_opsets,
    trace,
    write,
)
from .graph import Call, Graph

__all__ = [
    "export",
    "build",
    "write",
    "trace",
    "call_site",
    "records_between",
    "supported_opsets",
    "MIN_OPSET",
    "MAX_OPSET",
    "CONVERTERS",
    "UNCONVERTED",
    "Unsupported",
    "Graph",
    "Call",
]
