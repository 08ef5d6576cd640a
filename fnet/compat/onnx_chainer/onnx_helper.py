"""onnx_chainer.onnx_helper: what a converter writes its nodes with (the function name that
prefixes node names, ``make_node``, ``GraphBuilder``), tensor files, and parameter names."""

from __future__ import annotations

import onnx
from onnx import numpy_helper

from ...io.atomic import atomic_write
from ...onnx.graph import host

__all__ = [
    "set_func_name",
    "get_func_name",
    "make_node",
    "GraphBuilder",
    "write_tensor_pb",
    "cleanse_param_name",
    "is_support_non_standard_domain",
]

_func_name: list = [None]  # the name of the Chainer function being converted


def set_func_name(func_name: str) -> None:
    """Set the name of the Chainer function being converted (it names the nodes made next)."""
    _func_name[0] = func_name


def get_func_name() -> str:
    """The name of the Chainer function being converted."""
    if _func_name[0] is None:
        raise RuntimeError(
            "onnx_helper.get_func_name: no function is being converted\n"
            "  hint: call it from a converter, or set_func_name(name) first"
        )
    return _func_name[0]


def make_node(*args, **kwargs) -> onnx.NodeProto:
    """``onnx.helper.make_node`` with the node named after the function being converted."""
    return onnx.helper.make_node(*args, name=get_func_name(), **kwargs)


class GraphBuilder:
    """Builds consecutive nodes for one converter; ``op`` returns the output name(s)."""

    def __init__(self):
        self._nodes: list = []
        self._func_name = get_func_name()

    def node_name(self) -> str:
        return f"{self._func_name}_tmp_{len(self._nodes)}"

    def op(self, op_name: str, input_names, num_outputs: int = 1, **kwargs):
        """A node of ``op_name`` on ``input_names``; its output name, or a tuple of names."""
        base = self.node_name()
        names = [base] if num_outputs == 1 else [f"{base}_{i}" for i in range(num_outputs)]
        return self.op_output_named(op_name, input_names, names, **kwargs)

    def op_output_named(self, op_name: str, input_names, output_names, **kwargs):
        """A node of ``op_name`` whose outputs are ``output_names``."""
        if isinstance(input_names, str):
            raise TypeError(
                f"GraphBuilder.op: input_names must be a list of names, got the string {input_names!r}\n"
                f"  hint: pass [{input_names!r}]"
            )
        node = onnx.helper.make_node(op_name, input_names, output_names, name=self.node_name(), **kwargs)
        self._nodes.append(node)
        return node.output[0] if len(output_names) == 1 else tuple(node.output)

    def nodes(self, output_names=None) -> tuple:
        """The nodes made so far; ``output_names`` renames the last node's outputs."""
        if output_names is not None:
            last = self._nodes[-1]
            if len(last.output) != len(output_names):
                raise ValueError(
                    f"GraphBuilder.nodes: the last node has {len(last.output)} outputs, "
                    f"got {len(output_names)} names"
                )
            last.output[:] = output_names
        return tuple(self._nodes)


def write_tensor_pb(filename, name: str, value) -> None:
    """Write ``value`` (an array on any device, copied to the host) as a TensorProto called
    ``name`` to ``filename`` (atomically)."""
    data = numpy_helper.from_array(host(value), name).SerializeToString()
    atomic_write("onnx_chainer.onnx_helper.write_tensor_pb", filename, lambda f: f.write(data))


def cleanse_param_name(name: str) -> str:
    """A Chainer parameter path as an ONNX name: ``/l/W`` -> ``param_l_W``."""
    return "param" + name.replace("/", "_")


def is_support_non_standard_domain() -> bool:
    """Whether ``onnx.checker`` skips the schemas of ops in other domains (onnx >= 1.5)."""
    major, minor = (int(v) for v in onnx.__version__.split(".")[:2])
    return (major, minor) >= (1, 5)
