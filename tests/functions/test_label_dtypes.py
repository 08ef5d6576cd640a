"""Functions that take class labels refuse float labels with a DTypeError that names the dtype,
says integer labels are expected and gives the cast (Chainer's InvalidType, also a TypeError, in
compat), instead of a shape mismatch or a wrong result."""

from __future__ import annotations

import numpy
import pytest

import fnet.compat.functions as CF
from fnet import functions as F
from fnet.compat.utils.type_check import InvalidType
from fnet.errors import DTypeError

X = numpy.zeros((4, 3), numpy.float32)
T = numpy.zeros(4, numpy.float32)  # labels of the right shape, of the wrong dtype
T2 = numpy.zeros((4, 3), numpy.float32)
INDEXES = numpy.zeros((4, 2), numpy.int32)

# name -> (the label argument, a call of the function given its namespace)
CASES = {
    "softmax_cross_entropy": ("t", lambda f: f.softmax_cross_entropy(X, T)),
    "sigmoid_cross_entropy": ("t", lambda f: f.sigmoid_cross_entropy(X, T2)),
    "hinge": ("t", lambda f: f.hinge(X, T)),
    "accuracy": ("t", lambda f: f.accuracy(X, T)),
    "binary_accuracy": ("t", lambda f: f.binary_accuracy(X, T2)),
    "classification_summary": ("t", lambda f: f.classification_summary(X, T)),
    "precision": ("t", lambda f: f.precision(X, T)),
    "recall": ("t", lambda f: f.recall(X, T)),
    "f1_score": ("t", lambda f: f.f1_score(X, T)),
    "select_item": ("t", lambda f: f.select_item(X, T)),
    "embed_id": ("x", lambda f: f.embed_id(T, X)),
    "contrastive": ("y", lambda f: f.contrastive(X, X, T)),
    "black_out": ("t", lambda f: f.black_out(X, T, X, INDEXES)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_float_labels_are_a_dtype_error_that_says_integer_labels(name):
    argument, call = CASES[name]
    with pytest.raises(DTypeError) as info:
        call(F)
    text = str(info.value)
    assert text.startswith(f"{name}: expected {argument} ")
    assert "integer" in text and "float32" in text and f"{argument}.astype(numpy.int32)" in text


@pytest.mark.parametrize("name", sorted(CASES))
def test_compat_gives_chainers_invalid_type_which_is_also_a_type_error(name):
    argument, call = CASES[name]
    with pytest.raises(InvalidType) as info:
        call(CF)
    assert isinstance(info.value, TypeError)
    assert "integer" in str(info.value) and f"{argument}.astype(numpy.int32)" in str(info.value)
