"""Every case of fnet.ops' gradient table, captured: the value and the gradient of a replay on
other inputs are the eager call's on those inputs, bit for bit (the same NumPy calls in the same
order: exact equality is defined). A recording that folded a value of its first inputs into a
constant would give the first inputs' results here instead."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import ops
from fnet.errors import CaptureError

from ..ops.test_grad_table import TABLE

_rng = numpy.random.default_rng(20261126)


# Rows whose second order a recording refuses: their VJP branches on the values (cumprod on
# zeros, pinv on the singular values its rcond cuts) and, differentiated again, cannot be kept
# whole. The error names the module of the line: row -> module.
REFUSED_AT_ORDER_2 = {"cumprod": "reduction.py", "pinv": "decompositions.py"}


def _scalar_loss(f):
    def loss(*args):
        leaves = fnet.tree.leaves(f(*args))
        return sum(ops.sum(y * y) for y in leaves)

    return loss


def _cases():
    for name, cases in TABLE.items():
        for case_id, f, args, _ in cases:
            yield pytest.param(name, f, args, id=f"{name}-{case_id}")


def _moved(a):
    """``a`` moved by a little (inside every case's domain), of its type (array or scalar)."""
    moved = a + 1e-3 * _rng.standard_normal(a.shape)
    return moved if isinstance(a, numpy.generic) else numpy.asarray(moved)


def _second_order(f, n: int):
    """The gradient of the squared norm of ``f``'s loss gradient: double backprop."""
    first = fnet.grad(_scalar_loss(f), argnums=tuple(range(n)))
    return fnet.value_and_grad(
        lambda *args: sum(ops.sum(g * g) for g in first(*args)), argnums=tuple(range(n))
    )


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("name, f, args", list(_cases()))
def test_a_replay_on_new_inputs_gives_the_eager_value_and_gradient(name, f, args, order):
    n = len(args)
    if order == 1:
        step = fnet.value_and_grad(_scalar_loss(f), argnums=tuple(range(n)))
    else:
        step = _second_order(f, n)
    captured = fnet.capture(step)
    if order == 2 and name in REFUSED_AT_ORDER_2:
        with pytest.raises(CaptureError, match=REFUSED_AT_ORDER_2[name]):
            captured(*args)
        return
    captured(*args)
    moved = [_moved(a) for a in args]
    eager, replayed = step(*moved), captured(*moved)
    assert captured.stats()["replays"] == 1
    for e, r in zip(fnet.tree.leaves(eager), fnet.tree.leaves(replayed)):
        assert numpy.asarray(e).dtype == numpy.asarray(r).dtype
        assert numpy.array_equal(e, r, equal_nan=True)
