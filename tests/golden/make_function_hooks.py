"""Golden data for ``chainer.function_hooks``, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``function_hooks.json`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_function_hooks.py

``events(chainer)`` records which hook callbacks run, in which order, with which functions and
which shapes of inputs and output gradients, for old-style ``Function`` objects (whose forward
and backward call no other function, so Chainer and fnet see the same functions) and for a
``FunctionNode`` with a hook of its own. ``reports(chainer)`` prints the tables of
``TimerHook`` and ``CupyMemoryProfileHook`` for fixed measurements in every unit (the memory
hook is made without its constructor, which needs CuPy). The test calls both with
``fnet.compat`` and compares with the JSON.
"""

from __future__ import annotations

import io
import json
import pathlib

import numpy

OUT = pathlib.Path(__file__).with_name("function_hooks.json")

TIMES = [("LinearFunction", 1.24), ("ReLU", 0.0005), ("LinearFunction", 0.25), ("Exp", 2e-8), ("ReLU", 0.002)]
MEMORY = [
    ("LinearFunction", 5 * 1024**3, 180 * 1024**2, 0),
    ("ReLU", 1000, 0, 1),
    ("ReLU", 2**20, 3 * 2**20, 0),
]


def _shapes(arrays):
    return [None if a is None else list(a.shape) for a in arrays]


def events(chainer) -> dict:
    """The hook callbacks run by a forward and backward pass, by scenario."""

    class Recorder(chainer.FunctionHook):
        def __init__(self, name):
            self.name = name
            self.log = []

        def added(self, function=None):
            self.log.append(["added", None if function is None else function.label])

        def deleted(self, function=None):
            self.log.append(["deleted", None if function is None else function.label])

        def forward_preprocess(self, function, in_data):
            self.log.append(["forward_preprocess", function.label, _shapes(in_data)])

        def forward_postprocess(self, function, in_data):
            self.log.append(["forward_postprocess", function.label, _shapes(in_data)])

        def backward_preprocess(self, function, in_data, out_grad):
            self.log.append(["backward_preprocess", function.label, _shapes(in_data), _shapes(out_grad)])

        def backward_postprocess(self, function, in_data, out_grad):
            self.log.append(["backward_postprocess", function.label, _shapes(in_data), _shapes(out_grad)])

    class Double(chainer.Function):
        def forward(self, inputs):
            return (2 * inputs[0],)

        def backward(self, inputs, grad_outputs):
            return (2 * grad_outputs[0],)

    class Outer(chainer.Function):
        def forward(self, inputs):
            a, b = inputs
            return (numpy.outer(a, b).astype(a.dtype),)

        def backward(self, inputs, grad_outputs):
            a, b = inputs
            (g,) = grad_outputs
            return (g @ b, a @ g)

    class Total(chainer.Function):
        def forward(self, inputs):
            return (numpy.asarray(inputs[0].sum(), inputs[0].dtype),)

        def backward(self, inputs, grad_outputs):
            return (numpy.full_like(inputs[0], grad_outputs[0]),)

    class Square(chainer.FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((0,))
            return (inputs[0] * inputs[0],)

        def backward(self, indexes, grad_outputs):
            (x,) = self.get_retained_inputs()
            return (2 * x * grad_outputs[0],)

    x = chainer.Variable(numpy.arange(3, dtype=numpy.float32))
    w = chainer.Variable(numpy.ones(2, numpy.float32))
    out = {}

    hook = Recorder("everything")
    x.cleargrad()
    with hook:
        y = Double()(x)
        loss = Total()(Outer()(y, w))
        loss.backward()
    out["with_block"] = hook.log

    hook = Recorder("forward_only")
    x.cleargrad()
    with hook:
        y = Double()(x)
    loss = Total()(Outer()(y, w))
    loss.backward()
    out["forward_inside_backward_outside"] = hook.log

    x.cleargrad()
    y = Double()(x)
    loss = Total()(y)
    hook = Recorder("backward_only")
    with hook:
        loss.backward()
    out["backward_only"] = hook.log

    hook = Recorder("local")
    x.cleargrad()
    node = Square()
    node.add_hook(hook)
    (y,) = node.apply((x,))
    Total()(y).backward()
    node.delete_hook("local")
    out["local_hook"] = hook.log
    return out


def reports(chainer) -> dict:
    """``print_report`` tables and summaries for fixed measurements, in every unit."""
    TimerHook = chainer.function_hooks.TimerHook
    CupyMemoryProfileHook = chainer.function_hooks.CupyMemoryProfileHook
    out = {}
    timer = TimerHook()
    timer.call_history = list(TIMES)
    for unit in ("auto", "auto_foreach", "sec", "ms", "us", "ns"):
        text = io.StringIO()
        timer.print_report(unit, file=text)
        out[f"timer_{unit}"] = text.getvalue()
    out["timer_summary"] = timer.summary()
    memory = CupyMemoryProfileHook.__new__(CupyMemoryProfileHook)
    memory.call_history = list(MEMORY)
    for unit in ("auto", "auto_foreach", "B", "KB", "MB", "GB"):
        text = io.StringIO()
        memory.print_report(unit, file=text)
        out[f"memory_{unit}"] = text.getvalue()
    out["memory_summary"] = memory.summary()
    return out


def main() -> None:
    import chainer
    import chainer.function_hooks  # noqa: F401

    OUT.write_text(json.dumps({"events": events(chainer), "reports": reports(chainer)}, indent=1) + "\n")


if __name__ == "__main__":
    main()
