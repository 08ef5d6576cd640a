"""Golden failure reports of chainer.testing.assert_allclose, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``testing_allclose.json`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_testing_allclose.py

Each case is ``[x, y, dtype_x, dtype_y, kwargs]`` (x and y as nested lists) and its report:
the part Chainer adds after NumPy's own message (which changes between NumPy versions), from
``assert_allclose failed:`` on.
"""

from __future__ import annotations

import json
import pathlib

OUT = pathlib.Path(__file__).with_name("testing_allclose.json")

CASES = [
    [[1.0, 2.0, 3.0], [1.0, 2.5, 3.0], "float32", "float32", {}],
    [1.0, 2.0, "float32", "float32", {}],
    [[[1.0, 1.0], [1.0, 1.0]], [0.0, 0.0, 0.0], "float64", "float64", {}],
    [[1.0, 0.0], [1.0, 1.0], "float64", "float64", {"verbose": False}],
    [[[0.5, 0.25, 1.0], [3.0, -2.0, 0.125]], [[0.5, 0.25, 1.0], [3.0, -2.1, 0.0]], "float32", "float64", {}],
    [[1.0, 2.0], [0.0, 2.0], "float16", "float16", {"atol": 0.1, "rtol": 0.0}],
    [[1, 2, 3], [1, 2, 4], "int32", "int32", {"atol": 0, "rtol": 0}],
    [[1.0, 1.5], [1.001, 1.4], "float64", "float64", {"atol": 1e-2, "rtol": 1e-3}],
]

SPLIT = "\n\nassert_allclose failed:\n"


def main() -> None:
    import chainer
    import numpy
    from chainer import testing

    assert chainer.__version__ == "7.8.1", chainer.__version__
    reports = []
    for x, y, dx, dy, kwargs in CASES:
        try:
            testing.assert_allclose(numpy.array(x, dx), numpy.array(y, dy), **kwargs)
        except AssertionError as error:
            reports.append("assert_allclose failed:\n" + str(error).split(SPLIT, 1)[1])
        else:
            raise AssertionError(f"case {x} {y} passed")
    OUT.write_text(json.dumps({"cases": CASES, "reports": reports}, indent=1) + "\n")
    print(f"wrote {OUT} ({len(reports)} reports)")


if __name__ == "__main__":
    main()
