"""The bridge autodiff offers the layers above (fnet.compat): variadic VJPs, cutting a record from
its parents, input records with an owner, and the recording switch."""

from __future__ import annotations

import gc

import numpy
import pytest

import fnet
from fnet import autodiff, ops
from fnet.autodiff import Record, Tracer, VariadicVJPs, backward, new_level
from fnet.errors import InvalidInputError
from fnet.testing import assert_allclose

ONE = numpy.float64(1.0)


def inputs(*values):
    level = new_level()
    return [Tracer.input(numpy.asarray(v, dtype=numpy.float64), level) for v in values]


# -- variadic VJPs ---------------------------------------------------------------------------------
def _weighted_sum_impl(*xs):
    return sum((i + 1) * x for i, x in enumerate(xs))


def _variadic_primitive(scratch_primitive):
    """``sum((i + 1) * x_i)`` over any number of operands, with a log of the VJPs made."""
    prim = scratch_primitive(_weighted_sum_impl)
    made = []

    @prim.defvjp_variadic
    def _vjp(index):
        made.append(index)
        return lambda g, ans, *xs: g * (index + 1)

    return prim, made


def test_variadic_vjps_are_made_on_demand_and_kept(scratch_primitive):
    prim, made = _variadic_primitive(scratch_primitive)
    assert isinstance(prim.vjps, VariadicVJPs) and made == []
    first = prim.vjps[7]
    assert prim.vjps[7] is first and made == [7]  # kept: made once
    assert prim.vjps[2] is not first and made == [7, 2]


def test_variadic_primitive_differentiates_every_operand(scratch_primitive):
    prim, made = _variadic_primitive(scratch_primitive)
    xs = inputs(*range(5))
    grads = backward([(prim(*xs), ONE)])
    for i, x in enumerate(xs):
        assert_allclose(grads[x.record], float(i + 1))
    assert sorted(made) == [0, 1, 2, 3, 4]
    grads = backward([(prim(*xs), ONE)])  # a second pass makes none again
    assert sorted(made) == [0, 1, 2, 3, 4]


def test_concatenate_and_einsum_use_the_variadic_registration():
    assert isinstance(ops.shape._concatenate.vjps, VariadicVJPs)
    assert isinstance(ops.linalg._einsum.vjps, VariadicVJPs)
    g = fnet.grad(lambda a, b: ops.sum(ops.concatenate([a, b, a], axis=0) ** 2), argnums=(0, 1))
    ga, gb = g(numpy.ones(2), numpy.full(3, 2.0))
    assert_allclose(ga, numpy.full(2, 4.0))
    assert_allclose(gb, numpy.full(3, 4.0))


# -- cutting a record --------------------------------------------------------------------------------
def test_cut_stops_backward_and_relink_restores_it():
    x, y = inputs(2.0, 3.0)
    z = x * y
    w = z * x
    parents = z.record.cut()
    assert z.record.parents == (None, None) and [p.record for p in parents] == [x.record, y.record]
    grads = backward([(w, ONE)])
    assert y.record not in grads  # nothing reaches y through the cut record
    assert_allclose(grads[x.record], 6.0)  # only the direct use of x: z = 6
    z.record.relink(parents)
    grads = backward([(w, ONE)])
    assert_allclose(grads[x.record], 2 * 2.0 * 3.0)
    assert_allclose(grads[y.record], 4.0)


def test_relink_refuses_parents_of_another_count():
    x, y = inputs(2.0, 3.0)
    z = x * y
    z.record.cut()
    with pytest.raises(
        InvalidInputError, match=r"(?s)Record.relink: expected 2 parents .*got 1.*hint: pass the tuple"
    ):
        z.record.relink((x,))


# -- input records with an owner --------------------------------------------------------------------
class _Owner:
    pass


def test_input_with_an_owner_leads_back_to_it_weakly():
    owner = _Owner()
    level = new_level()
    x = Tracer.input(numpy.float64(3.0), level, owner=owner)
    plain = Tracer.input(numpy.float64(2.0), level)
    assert type(x.record) is not Record  # an autodiff kind of record, not a user's subclass
    assert x.record.owned and x.record.owner is owner and x.record.primitive is None
    assert not plain.record.owned and plain.record.owner is None
    grads = backward([(x * plain, ONE)])
    owned = [record for record in grads if record.owned]
    assert [record.owner for record in owned] == [owner]
    del owner
    gc.collect()
    assert x.record.owned and x.record.owner is None  # held weakly; still an owned input


# -- the recording switch ----------------------------------------------------------------------------
def test_recording_switch_is_public():
    (x,) = inputs(2.0)
    assert autodiff.grad_enabled() and autodiff.default_grad_enabled()
    token = autodiff.set_grad_enabled(False)
    try:
        assert not autodiff.grad_enabled()
        assert type(x * x) is not Tracer  # computed, not recorded
    finally:
        autodiff.restore_grad_enabled(token)
    assert type(x * x) is Tracer
    autodiff.set_default_grad_enabled(False)
    try:
        assert not autodiff.default_grad_enabled()
    finally:
        autodiff.set_default_grad_enabled(True)
    assert autodiff.grad_enabled()
