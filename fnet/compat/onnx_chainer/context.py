"""onnx_chainer.context.Context: the names given to variables and parameters during an export."""

from __future__ import annotations

from onnx import numpy_helper

from ...onnx.graph import host
from ..variable import Variable
from . import onnx_helper

__all__ = ["Context"]


class Context:
    """The ONNX names of an export's variables, parameters and constants, by object id.

    A Variable's name is also its array's (functions that take arrays find it). Parameters are
    named after their path in the model (``param_l1_W``); other values get ``v0``, ``v1``...
    ``add_param`` and ``add_const`` let a converter add initializers and Constant nodes.
    """

    def __init__(self, model):
        self.name_list: dict = {}
        self.parameters: list = []
        self.constants: list = []
        self.implicit_inputs: dict = {}
        links = dict(model.namedlinks())
        self.param_to_link: dict = {}
        for name, param in model.namedparams():
            owner = name[: name.rindex("/")]
            if owner in links:
                self.param_to_link[id(param)] = (onnx_helper.cleanse_param_name(owner), links[owner])
            self.set_name(param, onnx_helper.cleanse_param_name(name))

    def get_name(self, variable) -> str:
        """The name of ``variable`` (a new ``vN`` the first time it is asked)."""
        entry = self.name_list.get(id(variable))
        if entry is not None:
            return entry[0]
        name = f"v{len(self.name_list)}"
        self.set_name(variable, name)
        return name

    def set_name(self, variable, name: str, pinned: bool = False) -> None:
        """Name ``variable``; a pinned name (an input or output) cannot be renamed."""
        entry = self.name_list.get(id(variable))
        if entry is not None and entry[1]:
            raise ValueError(f"Context.set_name: {entry[0]!r} is pinned and cannot become {name!r}")
        self.name_list[id(variable)] = (name, pinned)
        if isinstance(variable, Variable):
            self.name_list[id(variable.array)] = (name, pinned)

    def is_pinned(self, variable) -> bool:
        entry = self.name_list.get(id(variable))
        return entry is not None and entry[1]

    def add_param(self, array, name: str, use_original_name: bool = False) -> str:
        """Add ``array`` as an initializer; returns its name (prefixed with the function's
        name unless ``use_original_name``)."""
        if not use_original_name:
            if not name.startswith(("/", "_")):
                name = "/" + name
            name = f"{onnx_helper.get_func_name()}_{onnx_helper.cleanse_param_name(name)}"
        self.set_name(array, name)
        self.parameters.append((name, array))
        return name

    def add_const(self, array, name: str) -> str:
        """Add ``array`` as a Constant node; returns its output's name."""
        if "/" in name:
            raise ValueError(f"Context.add_const: a constant's name has no '/', got {name!r}")
        onnx_name = f"{onnx_helper.get_func_name()}_const_{name}"
        self.set_name(array, onnx_name)
        tensor = numpy_helper.from_array(host(array), onnx_name)
        self.constants.append(onnx_helper.make_node("Constant", [], [onnx_name], value=tensor))
        return onnx_name

    def get_link(self, param):
        """``(name, link)`` of the link that owns ``param``, or None."""
        return self.param_to_link.get(id(param))
