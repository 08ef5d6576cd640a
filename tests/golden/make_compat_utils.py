"""Golden data for the tests of fnet.compat.utils and its type_check module, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``compat_utils.json`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_compat_utils.py

* ``checks``: ``[source, inputs, message]``: ``source`` is the body of a ``check_type_forward``
  (``T`` is ``chainer.utils.type_check``, ``t`` the in_types, ``np`` numpy), run by a
  FunctionNode named ``Check`` on float32 zeros of the ``inputs`` shapes (``[shape, dtype]``
  pairs); ``message`` is the text of the InvalidType it raises, or None when it passes.
* ``expressions``: ``[source, text, value]``: an expression over ``x = Variable(5, 'x')``,
  ``y = Variable(2, 'y')``, ``s = Variable((3, 4), 's')``, its ``str`` and the ``repr`` of its
  ``eval()`` (None where Chainer's value is wrong: ``**`` computes ``%`` in Chainer 7.8.1, and
  expressions inside slices are not evaluated).
* ``walker``: ``[probs, seed, shape, samples]``: ``WalkerAlias(probs).sample(shape)`` after
  ``numpy.random.seed(seed)``.
* ``conv``: ``[args, get_conv_outsize(*args), get_deconv_outsize(*args)]`` with args
  ``(size, k, s, p, cover_all, d)``.
"""

from __future__ import annotations

import json
import pathlib

OUT = pathlib.Path(__file__).with_name("compat_utils.json")

F32 = "float32"
CHECKS = [
    ["T.expect(t[0].ndim == 2)", [[[2, 3, 4], F32]]],
    ["T.expect(t[0].ndim == 3)", [[[2, 3, 4], F32]]],
    ["T.expect(t[0].dtype == np.float64)", [[[3, 2], F32]]],
    ["T.expect(t[0].dtype.kind == 'i')", [[[3, 2], F32]]],
    ["T.expect(t[0].shape[0] == t[1].shape[0] * 4)", [[[3, 2], F32], [[1, 2], F32]]],
    ["T.expect(t[0].shape[0] == 4)", [[[3, 2], F32]]],
    ["T.expect(t.size() == 2)", [[[3, 2], F32]]],
    ["T.expect(t.size() == 1, t[0].ndim == 3, t[0].shape[1] == 2)", [[[3, 2], F32]]],
    ["T.expect(t[0].shape[1:] == (3,))", [[[3, 2], F32]]],
    ["T.expect(-t[0].shape[0] + 2 * (t[0].ndim - 1) * 3 > 5)", [[[3, 2], F32]]],
    ["T.expect(t[0].shape[0] // 2 % 3 != 1)", [[[3, 2], F32]]],
    ["T.expect(t[0].size == 5)", [[[3, 2], F32]]],
    ["T.expect(t[0].shape[::-1] == (1, 2))", [[[3, 2], F32]]],
    ["T.expect(t[0].shape[-1] >= t[1].shape[-1], t[0].shape[0] < 2)", [[[3, 2], F32], [[4, 1], F32]]],
    ["T.expect(t[0].dtype == t[1].dtype)", [[[3], F32], [[3], "int32"]]],
    ["T.expect(T.prod(t[0].shape) == 7)", [[[3, 2], F32]]],
    ["T._argname(t, ('x', 'W')); T.expect(t[1].ndim == 2)", [[[3], F32], [[3], F32]]],
    ["T.expect_broadcast_shapes(t[0].shape, t[1].shape)", [[[3, 2], F32], [[2, 3, 4], F32]]],
    ["T.expect_broadcast_shapes(t[0].shape, t[1].shape)", [[[3, 1], F32], [[2, 3, 4], F32]]],
    ["raise T.InvalidType('Shape is expected to be ...', 'Shape is ...')", [[[3, 2], F32]]],
    ["T.expect(t[0].ndim == 2, t[0].shape[0] > 0, t[0].dtype.kind == 'f')", [[[3, 2], F32]]],
]

EXPRESSIONS = [
    "x + 2 * y",
    "(x + 2) * 3",
    "x - (y - x)",
    "(x - y) - x",
    "x ** y ** x",
    "(x ** y) ** x",
    "-x",
    "-(x + y)",
    "~x",
    "x | y & x",
    "(x | y) & x",
    "x << y >> 1",
    "x // y % 3",
    "x / y",
    "2 - x",
    "s[0]",
    "s[1:]",
    "s[::2]",
    "s[:y]",
    "s[y - 1]",
    "s.count(3)",
    "x == y",
    "x != 5",
    "3 < x",
    "(1, x)",
    "[x, 'a']",
]

WALKER = [
    [[0.0, 1.0, 0.0], 0, [2, 3]],
    [[0.1, 0.2, 0.3, 0.4], 1, [20]],
    [[5.0, 1.0, 1.0, 3.0, 0.5], 2, [4, 5]],
    [[1.0, 1.0], 3, [7]],
]

CONV = [
    [7, 3, 2, 1, False, 1],
    [6, 3, 2, 0, True, 1],
    [10, 3, 1, 1, False, 2],
    [10, 3, 3, 0, True, 2],
    [5, 2, 2, 0, False, 1],
    [5, 2, 2, 0, True, 1],
    [1, 1, 1, 0, False, 1],
]


def main() -> None:
    import chainer
    import numpy
    from chainer import utils
    from chainer.utils import type_check as T

    assert chainer.__version__ == "7.8.1", chainer.__version__

    class Check(chainer.FunctionNode):
        def __init__(self, source):
            self.source = source

        def check_type_forward(self, in_types):
            exec(self.source, {"T": T, "np": numpy, "t": in_types})

        def forward(self, inputs):
            return (inputs[0],)

    checks = []
    for source, inputs in CHECKS:
        arrays = [numpy.zeros(shape, dtype) for shape, dtype in inputs]
        try:
            Check(source).apply(arrays)
            message = None
        except T.InvalidType as error:
            message = str(error)
        checks.append([source, inputs, message])

    names = {"x": T.Variable(5, "x"), "y": T.Variable(2, "y"), "s": T.Variable((3, 4), "s")}
    expressions = []
    for source in EXPRESSIONS:
        expr = eval(source, {}, dict(names))
        try:
            value = None if "**" in source else repr(T._eval_expr(expr))
        except TypeError:  # Chainer does not evaluate expressions inside slices
            value = None
        text = str(T.Constant(expr)) if isinstance(expr, (tuple, list)) else str(expr)
        expressions.append([source, text, value])

    walker = []
    for probs, seed, shape in WALKER:
        numpy.random.seed(seed)
        walker.append([probs, seed, shape, utils.WalkerAlias(probs).sample(tuple(shape)).tolist()])

    conv = [[args, utils.get_conv_outsize(*args), utils.get_deconv_outsize(*args)] for args in CONV]

    data = {"checks": checks, "expressions": expressions, "walker": walker, "conv": conv}
    OUT.write_text(json.dumps(data, indent=1) + "\n")
    print(f"wrote {OUT} ({len(checks)} checks, {len(expressions)} expressions)")


if __name__ == "__main__":
    main()
