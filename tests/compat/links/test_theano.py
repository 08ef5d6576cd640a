"""``L.TheanoFunction``: Theano does not install on Python 3.11+, so the name is kept at Chainer's
paths and constructing it says why it cannot work and what to use instead."""

from __future__ import annotations

import importlib

import pytest

import fnet.compat as chainer


@pytest.mark.parametrize(
    "path",
    ["fnet.compat.links", "fnet.compat.links.theano", "fnet.compat.links.theano.theano_function"],
)
def test_theano_function_is_at_chainers_paths(path):
    found = importlib.import_module(path).TheanoFunction
    assert found is chainer.links.TheanoFunction
    assert issubclass(found, chainer.Link)


def test_constructing_a_theano_function_says_theano_is_unsupported_and_what_to_use():
    with pytest.raises(RuntimeError) as caught:
        chainer.links.TheanoFunction(inputs=[object(), object()], outputs=(object(),))
    text = str(caught.value)
    assert text.startswith("TheanoFunction(inputs, outputs): Theano graphs are not supported")
    assert "Python 3.11+" in text
    assert "inputs: list of 2: object, object" in text and "outputs: tuple of 1: object" in text
    assert "hint:" in text and "chainer.functions" in text and "FunctionNode" in text
