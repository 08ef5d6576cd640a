"""PyTorch/JAX/optax spellings get fnet's: every row of ``fnet._foreign.SPELLINGS`` is tested, on
``fnet.optim`` and on ``chainer.optimizers`` for the optimizers' arguments (``Adam(lr=...)`` ->
``alpha``), on ``chainer.Variable`` for its attributes (``x.cuda()`` -> ``to_gpu``)."""

from __future__ import annotations

import inspect

import numpy
import pytest

import fnet.compat as chainer
from fnet import optim
from fnet._foreign import SPELLINGS

FACTORIES = list(optim.OPTIMIZERS)
OPTIMIZER_ROWS = [row for row in SPELLINGS if row.owner == "optimizer"]
VARIABLE_ROWS = [row for row in SPELLINGS if row.owner == "Variable"]


def _takes(name: str) -> set[str]:
    return set(inspect.signature(getattr(optim, name)).parameters)


def _first_row(foreign: str, takes: set[str]):
    return next(r for r in OPTIMIZER_ROWS if r.name == foreign and set(r.needs) <= takes)


def _optimizers_of(row) -> list[str]:
    """The optimizers whose answer to ``row.name`` is this row."""
    return [
        name
        for name in FACTORIES
        if row.name not in _takes(name)
        and set(row.needs) <= _takes(name)
        and _first_row(row.name, _takes(name)) is row
    ]


@pytest.mark.parametrize("row", OPTIMIZER_ROWS, ids=lambda r: f"{r.name}-{'-'.join(r.needs) or 'any'}")
@pytest.mark.parametrize("layer", ["fnet.optim", "chainer.optimizers"])
def test_a_foreign_optimizer_argument_gets_fnets_spelling(row, layer):
    names = _optimizers_of(row)
    assert names, f"no optimizer is answered by {row}"
    op = names[0]
    factory = getattr(optim, op) if layer == "fnet.optim" else getattr(chainer.optimizers, op)
    with pytest.raises(TypeError) as info:
        factory(**{row.name: 0.5})
    assert str(
        info.value
    ) == f"{op}() got an unexpected keyword argument {row.name!r}\n  hint: " + row.hint.format(op=op)


def test_the_common_cases_read_well():
    with pytest.raises(
        TypeError, match=r"Adam\(\) got an unexpected keyword argument 'lr'\n.*Adam\(alpha=\.\.\.\)"
    ):
        optim.Adam(lr=1e-3)
    with pytest.raises(TypeError, match=r"Adam\(alpha=\.\.\.\)"):
        chainer.optimizers.Adam(lr=1e-3)
    with pytest.raises(TypeError, match=r"MomentumSGD\(lr, momentum\)"):
        chainer.optimizers.SGD(lr=0.1, momentum=0.9)
    with pytest.raises(TypeError, match=r"Adam\(beta1=b1, beta2=b2\)"):
        optim.Adam(betas=(0.9, 0.999))


def test_an_unknown_argument_lists_what_the_optimizer_takes():
    with pytest.raises(
        TypeError,
        match=r"^SGD\(\) got an unexpected keyword argument 'colour'\n  hint: SGD takes lr, per_param$",
    ):
        optim.SGD(colour=1)
    with pytest.raises(TypeError, match=r"hint: SGD takes lr$"):
        chainer.optimizers.SGD(colour=1)


def test_the_right_arguments_still_work():
    assert optim.Adam(alpha=0.1) is not None
    assert chainer.optimizers.Adam(alpha=0.1).alpha == 0.1
    assert inspect.signature(optim.Adam).parameters["alpha"].default == 0.001  # the signature is kept


@pytest.mark.parametrize("row", VARIABLE_ROWS, ids=lambda r: r.name)
def test_a_foreign_variable_attribute_gets_chainers_spelling(row):
    x = chainer.Variable(numpy.ones(2, numpy.float32))
    assert not hasattr(x, row.name)
    with pytest.raises(AttributeError) as info:
        getattr(x, row.name)
    assert str(info.value) == f"'Variable' object has no attribute {row.name!r}\n  hint: {row.hint}"
