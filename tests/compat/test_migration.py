"""Chainer v1-era names get migration messages: each row of ``fnet.compat._migration.REMOVED``
raises the exception type a Chainer v7 program sees (AttributeError for a removed attribute, so
that ``hasattr`` is False; ImportError for ``from ... import``; TypeError or ValueError for a
removed keyword argument, as Chainer 7.8.1), with a message that says what replaces it."""

from __future__ import annotations

import inspect

import numpy
import pytest

import fnet.compat as chainer
from fnet.compat import _migration
from fnet.compat import functions as F
from fnet.compat import links as L
from fnet.compat._migration import REMOVED

ATTRIBUTES = [row for row in REMOVED if not row.name.endswith("=")]
KEYWORDS = [row for row in REMOVED if row.name.endswith("=")]


def _id(row):
    return f"{row.owner}.{row.name}"


def _hint(row) -> str:
    shown = f"the argument {row.name}" if row.name.endswith("=") else f"{row.owner}.{row.name}"
    return f"  hint: {shown} {row.replacement}"


@pytest.mark.parametrize("row", ATTRIBUTES, ids=_id)
def test_a_removed_attribute_is_an_attribute_error_that_names_its_replacement(row):
    owner = _migration._resolve(row.owner)
    assert not hasattr(owner, row.name)
    with pytest.raises(AttributeError) as info:
        getattr(owner, row.name)
    assert str(info.value).endswith(_hint(row))
    assert f"has no attribute {row.name!r}" in str(info.value)


@pytest.mark.parametrize(
    "row", [row for row in ATTRIBUTES if not isinstance(_migration._resolve(row.owner), type)], ids=_id
)
def test_from_import_of_a_removed_name_is_an_import_error_with_the_same_hint(row):
    module = _migration._resolve(row.owner).__name__
    with pytest.raises(ImportError) as info:
        exec(f"from {module} import {row.name}", {})
    assert str(info.value) == f"cannot import name {row.name!r} from {module!r}\n{_hint(row)}"


def _call_with(row):
    """Call something of ``row.owner`` with the removed keyword argument of ``row``."""
    kwargs = {row.name[:-1]: 1}
    if row.owner == "chainer.Variable":
        return chainer.Variable(numpy.ones(1, numpy.float32), **kwargs)
    if row.owner == "chainer.links":
        return L.Linear(3, 2, **kwargs)
    assert row.owner == "chainer.functions", row
    return F.relu(numpy.ones(1, numpy.float32), **kwargs)


@pytest.mark.parametrize("row", KEYWORDS, ids=_id)
def test_a_removed_keyword_argument_names_its_replacement(row):
    with pytest.raises(row.error) as info:
        _call_with(row)
    assert type(info.value) is row.error
    assert f"got an unexpected keyword argument {row.name[:-1]!r}" in str(info.value)
    assert str(info.value).endswith(_hint(row))


def test_the_error_types_are_chainers():
    # as Chainer 7.8.1: Variable(volatile=...) and F.convolution_2d(deterministic=...) are ValueErrors
    # (Chainer checks them), wscale= a TypeError (an unknown argument)
    with pytest.raises(ValueError, match="volatile"):
        chainer.Variable(numpy.ones(1, numpy.float32), volatile=True)
    with pytest.raises(ValueError, match="cudnn_deterministic"):
        F.convolution_2d(numpy.ones((1, 1, 3, 3), "f"), numpy.ones((1, 1, 2, 2), "f"), deterministic=True)
    with pytest.raises(TypeError, match=r"initializers\.LeCunNormal"):
        L.Convolution2D(3, 4, 3, wscale=1.0)


def test_instances_and_subclasses():
    with pytest.raises(AttributeError, match=r"'SGD' object has no attribute 'zero_grads'\n.*cleargrads"):
        chainer.optimizers.SGD().zero_grads()
    with pytest.raises(AttributeError, match=r"no_backprop_mode"):
        chainer.Variable(numpy.ones(1, numpy.float32)).volatile  # noqa: B018

    class Old(chainer.optimizers.SGD):
        def zero_grads(self):  # a subclass may define the name again
            return "mine"

    assert Old().zero_grads() == "mine"


def test_unknown_names_and_arguments_keep_pythons_errors():
    with pytest.raises(AttributeError, match=r"^module 'fnet.compat' has no attribute 'NoSuchName'$"):
        chainer.NoSuchName  # noqa: B018
    with pytest.raises(ImportError, match=r"cannot import name 'NoSuchName' from 'fnet.compat'"):
        exec("from fnet.compat import NoSuchName", {})
    with pytest.raises(TypeError, match=r"got unexpected keyword argument\(s\) colour"):
        chainer.Variable(numpy.ones(1, numpy.float32), colour=1)
    with pytest.raises(TypeError, match=r"got an unexpected keyword argument 'colour'$"):
        F.relu(numpy.ones(1, numpy.float32), colour=1)


def test_the_table_hides_nothing_fnet_has():
    for row in ATTRIBUTES:
        owner = _migration._resolve(row.owner)
        if isinstance(owner, type):
            assert isinstance(inspect.getattr_static(owner, row.name), _migration._MissingMember), row
        else:
            assert row.name not in vars(owner), row
    for row in KEYWORDS:
        if row.owner == "chainer.Variable":
            assert row.name[:-1] not in inspect.signature(chainer.Variable).parameters
