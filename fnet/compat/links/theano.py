"""Chainer's ``L.TheanoFunction`` (``chainer.links.theano``), which ran a compiled Theano graph as a
link: not supported. Theano has been unmaintained since 2017 and does not install on the Python
(3.11+) and NumPy versions fnet runs on, so the name is here only to say so when it is used.

>>> TheanoFunction(inputs=[], outputs=[])
Traceback (most recent call last):
...
RuntimeError: TheanoFunction(inputs, outputs): Theano graphs are not supported by fnet ...
"""

from __future__ import annotations

from ..link import Link

__all__ = ["TheanoFunction"]


class TheanoFunction(Link):
    """Chainer's wrapper of a Theano function (``inputs`` and ``outputs``: Theano tensor variables):
    constructing one raises RuntimeError (Chainer's error when Theano is missing), with what to
    use instead."""

    def __init__(self, inputs, outputs):
        raise RuntimeError(
            "TheanoFunction(inputs, outputs): Theano graphs are not supported by fnet (Chainer's "
            "L.TheanoFunction needs the theano package, unmaintained since 2017, which does not "
            "install on Python 3.11+ or NumPy 2)\n"
            f"  inputs: {_describe(inputs)}\n"
            f"  outputs: {_describe(outputs)}\n"
            "  hint: write the computation with chainer.functions (F.*) in a Chain's forward, or, "
            "for your own gradient, as a chainer.FunctionNode subclass with forward and backward"
        )


def _describe(variables) -> str:
    """The types of what was passed (Theano's variables cannot be made here: only named)."""
    if isinstance(variables, (list, tuple)):
        return f"{type(variables).__name__} of {len(variables)}: " + (
            ", ".join(type(v).__name__ for v in variables) or "nothing"
        )
    return type(variables).__name__
