"""onnx_chainer.export_testcase: a model and one input/output pair in ONNX's test layout."""

from __future__ import annotations

import os
import warnings

from ... import backend
from .export import export
from .onnx_helper import cleanse_param_name, write_tensor_pb

__all__ = ["export_testcase"]


def export_testcase(model, args, out_dir, output_grad: bool = False, **kwargs):
    """Write ``out_dir/model.onnx`` and ``out_dir/test_data_set_0/{input,output}_N.pb`` (the
    inputs and the outputs of this forward pass); with ``output_grad``, also the gradients of
    the parameters (of the sum of the outputs) as ``gradient_N.pb``. ``kwargs`` go to ``export``.
    The tensors are copied to the host from wherever the model lives.
    """
    os.makedirs(out_dir, exist_ok=True)
    model.cleargrads()
    _, inputs, outputs = export(
        model,
        args,
        filename=os.path.join(out_dir, "model.onnx"),
        return_named_inout=True,
        no_testcase=True,
        **kwargs,
    )
    data_dir = os.path.join(out_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    for kind, named in (("input", inputs), ("output", outputs)):
        for i, (name, var) in enumerate(named.items()):
            write_tensor_pb(os.path.join(data_dir, f"{kind}_{i}.pb"), name, var.array)
    if output_grad:
        for out in outputs.values():
            out.grad = backend.xp(out.array).ones_like(out.array)
            out.backward()
        for i, (name, param) in enumerate(model.namedparams()):
            if param.grad is None:
                warnings.warn(f"Parameter `{name}` does not have gradient value", stacklevel=2)
                continue
            path = os.path.join(data_dir, f"gradient_{i}.pb")
            write_tensor_pb(path, cleanse_param_name(name), param.grad)
