"""Golden data for the tests of fnet.compat.gradient_check, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``compat_gradient_check.json`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_compat_gradient_check.py

* ``numerical``: ``[case, grads]``: ``numerical_grad`` of ``case["f"]`` (a lambda over NumPy
  arrays, ``np`` is numpy) at inputs drawn by ``inputs(case)`` below, with ``eps`` and
  ``detect`` (``detect_nondifferentiable``); ``grads`` are the results as nested lists.
* ``nondifferentiable``: ``[case, message]``: the NondifferentiableError text without its
  first line.
* ``failures``: ``[name, seed, segments]`` for checks that fail on purpose (the functions are
  defined below and again in the test): after ``numpy.random.seed(seed)``, the AssertionError's
  text cut around NumPy's own reports (which change with NumPy's version), see ``SPLIT``. The
  segments hold the inputs, the random directions, both directional derivatives and Chainer's
  report of the difference.
"""

from __future__ import annotations

import json
import pathlib
import re

OUT = pathlib.Path(__file__).with_name("compat_gradient_check.json")

NUMERICAL = [
    {"f": "lambda x: (x * x,)", "shapes": [[4, 3]], "dtype": "float32", "eps": 1e-3, "detect": False},
    {"f": "lambda x, y: (x ** 3 * y, np.sin(x) + y)", "shapes": [[2, 3], [2, 3]], "dtype": "float64"},
    {
        "f": "lambda x, y: (x ** 3 * y, np.sin(x) + y)",
        "shapes": [[2, 3], [2, 3]],
        "dtype": "float64",
        "detect": True,
    },
    {
        "f": "lambda x: (np.exp(x), np.tanh(x))",
        "shapes": [[3]],
        "dtype": "float32",
        "detect": True,
        "eps": 1e-2,
    },
    {"f": "lambda x: (np.cos(x) * 2,)", "shapes": [[]], "dtype": "float64", "eps": 1e-4},
    {"f": "lambda x: (np.tanh(x), x * 2)", "shapes": [[2, 2]], "dtype": "float64", "gy": ["array", None]},
    {"f": "lambda x: (np.exp(x), x.sum())", "shapes": [[2, 2]], "dtype": "float64", "gy": ["array", 2.0]},
    {"f": "lambda x: (np.maximum(x, 0),)", "shapes": [[5]], "dtype": "float64", "detect": True},
    {"f": "lambda x: (np.log(x),)", "shapes": [[4]], "dtype": "float64", "detect": True, "offset": 1.5},
]

NONDIFFERENTIABLE = [
    {"f": "lambda x: (np.abs(x),)", "values": [0.0, 1.0], "detect": True},
    {
        "f": "lambda x: (np.where(x > 0, 1 / np.maximum(x, 1e-300), np.inf),)",
        "values": [1.0, 0.0],
        "detect": True,
    },
    {"f": "lambda x: (np.floor(x * 2),)", "values": [0.25, 0.5], "detect": True, "eps": 0.1},
]

FAILURES = [["wrong_square", 3], ["wrong_param", 4], ["with_int_input", 5], ["undifferentiable_backward", 6]]


def inputs(case: dict) -> list:
    """The input arrays of a numerical case: uniform on [-1, 1) (+ ``offset``), seeded by position."""
    import numpy

    rng = numpy.random.RandomState(len(case["f"]))
    offset = case.get("offset", 0.0)
    return [numpy.array(rng.uniform(-1, 1, shape) + offset, case["dtype"]) for shape in case["shapes"]]


def grad_outputs(case: dict, outputs: tuple) -> tuple:
    """One output gradient per output: an array like it (seeded), or the case's scalar or None."""
    import numpy

    rng = numpy.random.RandomState(7)
    kinds = case.get("gy", ["array"] * len(outputs))
    return tuple(
        rng.uniform(-1, 1, numpy.shape(y)).astype(y.dtype) if k == "array" else k
        for k, y in zip(kinds, outputs)
    )


def failing_checks(chainer, F, gradient_check, numpy) -> dict:
    """The checks that must fail, as functions of nothing (the same ones are in the test)."""

    class WrongSquare(chainer.FunctionNode):
        def forward(self, inputs):
            self.retain_inputs((0,))
            return (inputs[0] ** 2,)

        def backward(self, indexes, grad_outputs):
            (x,) = self.get_retained_inputs()
            return (3 * x * grad_outputs[0],)

    class WrongParamGrad(chainer.FunctionNode):
        """x * w, but the gradient of w is twice too large."""

        def forward(self, inputs):
            self.retain_inputs((0, 1))
            return (inputs[0] * inputs[1],)

        def backward(self, indexes, grad_outputs):
            x, w = self.get_retained_inputs()
            (gy,) = grad_outputs
            return w * gy, 2 * F.sum(x * gy, axis=0)

    class CubeWithConstantBackward(chainer.FunctionNode):
        """x ** 3 whose backward uses x as a constant, so it cannot be differentiated again."""

        def forward(self, inputs):
            self.retain_inputs((0,))
            return (inputs[0] ** 3,)

        def backward(self, indexes, grad_outputs):
            (x,) = self.get_retained_inputs()
            return (chainer.Variable(3 * x.array**2) * grad_outputs[0],)

    rng = numpy.random.RandomState(0)
    x = rng.uniform(-1, 1, (1, 2))
    gy = rng.uniform(-1, 1, (1, 2))
    w = chainer.Parameter(rng.uniform(-1, 1, (2,)))
    labels = numpy.array([1, 0], numpy.int32)

    def select(a, t):
        return F.select_item(a, t)

    return {
        "wrong_square": lambda: gradient_check.check_backward(lambda a: WrongSquare().apply((a,))[0], x, gy),
        "wrong_param": lambda: gradient_check.check_backward(
            lambda a: WrongParamGrad().apply((a, w))[0], x, gy, params=(w,)
        ),
        "with_int_input": lambda: gradient_check.check_backward(
            lambda a, t: select(WrongSquare().apply((a,))[0], t),
            (numpy.concatenate([x, x + 0.5]), labels),
            gy[0],
        ),
        "undifferentiable_backward": lambda: gradient_check.check_double_backward(
            lambda a: CubeWithConstantBackward().apply((a,))[0], x, gy, gy * 2
        ),
    }


SPLIT = r"\nNot equal to tolerance.*?\n\nassert_allclose failed:\n"


def main() -> None:
    import chainer
    import numpy
    from chainer import functions as F
    from chainer import gradient_check

    assert chainer.__version__ == "7.8.1", chainer.__version__
    scope = {"np": numpy}

    numerical = []
    for case in NUMERICAL:
        f = eval(case["f"], scope)
        xs = inputs(case)
        gys = grad_outputs(case, f(*xs))
        grads = gradient_check.numerical_grad(
            lambda f=f, xs=xs: f(*xs),
            xs,
            gys,
            eps=case.get("eps", 1e-3),
            detect_nondifferentiable=case.get("detect", False),
        )
        numerical.append([case, [g.tolist() for g in grads]])

    nondifferentiable = []
    for case in NONDIFFERENTIABLE:
        f = eval(case["f"], scope)
        x = numpy.array(case["values"])
        try:
            gradient_check.numerical_grad(
                lambda f=f, x=x: f(x),
                (x,),
                (numpy.ones_like(x),),
                eps=case.get("eps", 1e-3),
                detect_nondifferentiable=True,
            )
        except gradient_check.NondifferentiableError as error:
            nondifferentiable.append([case, str(error).split("\n", 1)[1]])
        else:
            raise AssertionError(f"{case} did not fail")

    failures = []
    checks = failing_checks(chainer, F, gradient_check, numpy)
    for name, seed in FAILURES:
        numpy.random.seed(seed)
        try:
            checks[name]()
        except AssertionError as error:
            failures.append([name, seed, re.split(SPLIT, str(error), flags=re.DOTALL)])
        else:
            raise AssertionError(f"{name} did not fail")

    data = {"numerical": numerical, "nondifferentiable": nondifferentiable, "failures": failures}
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    counts = (
        f"{len(numerical)} numerical, {len(nondifferentiable)} nondifferentiable, {len(failures)} failures"
    )
    print(f"wrote {OUT} ({counts})")


if __name__ == "__main__":
    main()
