"""Tests of fnet.optim.transform: Transform, step, step_in_place, apply_updates, chain, masked."""

from __future__ import annotations

import attrs
import numpy
import pytest

from fnet import optim
from fnet.errors import InvalidInputError, TreeStructureError


def scale(factor: float) -> optim.Transform:
    """A test transformation multiplying the gradients by ``factor`` and counting its calls."""
    return optim.Transform(
        lambda params: 0,
        lambda grads, state, params=None: ({k: g * factor for k, g in grads.items()}, state + 1),
    )


def tree(*values):
    return {name: numpy.array([v]) for name, v in zip("ab", values)}


def test_step_is_update_then_apply_updates():
    tx = scale(2.0)
    params, state = optim.step(tx, tree(1.0, 2.0), tx.init(None), tree(10.0, 20.0))
    assert params == {"a": numpy.array([12.0]), "b": numpy.array([24.0])} and state == 1
    assert tx.step(tree(1.0, 2.0), 0, tree(10.0, 20.0)) == (params, 1)  # the method is the function


def test_step_in_place_is_update_then_apply_updates_in_place():
    tx = scale(2.0)
    params = tree(10.0, 20.0)
    arrays = list(params.values())
    assert optim.step_in_place(tx, tree(1.0, 2.0), tx.init(None), params) == 1
    assert params == tree(12.0, 24.0) and list(params.values())[0] is arrays[0]
    assert tx.step_in_place(tree(1.0, 2.0), 1, params) == 2 and params == tree(14.0, 28.0)


def test_a_transform_is_init_and_update_only():
    assert [f.name for f in attrs.fields(optim.Transform) if f.init and not f.kw_only] == ["init", "update"]
    with pytest.raises(TypeError, match="fused"):
        optim.Transform(lambda p: None, lambda g, s, p=None: (g, s), fused=lambda g, s, p: (p, s))
    with pytest.raises(TypeError, match="in_place"):
        optim.Transform(lambda p: None, lambda g, s, p=None: (g, s), in_place=lambda g, s, p: s)


def test_step_checks_its_transform():
    with pytest.raises(InvalidInputError, match="step: expected tx to be a fnet.optim.Transform, got func"):
        optim.step(optim.SGD, tree(1.0, 1.0), None, tree(1.0, 1.0))
    with pytest.raises(InvalidInputError, match="step_in_place: expected tx to be a fnet.optim.Transform"):
        optim.step_in_place(None, tree(1.0, 1.0), None, tree(1.0, 1.0))


def test_apply_updates_in_place_adds_into_the_arrays_with_their_dtype():
    w = numpy.ones(2, numpy.float16)
    optim.apply_updates_in_place({"w": w}, {"w": numpy.full(2, 1e-3, numpy.float32)})  # rounds once
    update = {"w": numpy.full(2, 1e-3, numpy.float32)}
    expected = optim.apply_updates({"w": numpy.ones(2, numpy.float16)}, update)
    assert w.dtype == numpy.float16 and w.tobytes() == expected["w"].tobytes()
    with pytest.raises(TreeStructureError, match="apply_updates_in_place.*'l1'"):
        optim.apply_updates_in_place({"l1": {"W": numpy.ones(1)}}, {"l1": numpy.ones(1)})


def test_apply_updates_keeps_each_parameter_dtype():
    params = {"w": numpy.ones(2, numpy.float32)}
    out = optim.apply_updates(params, {"w": numpy.full(2, 0.5)})
    assert out["w"].dtype == numpy.float32 and out["w"].tolist() == [1.5, 1.5]
    out = optim.apply_updates({"s": numpy.array(1.0, numpy.float32)}, {"s": numpy.array(0.5, numpy.float32)})
    assert type(out["s"]) is numpy.ndarray and out["s"].dtype == numpy.float32  # not a NumPy scalar


def test_apply_updates_structure_mismatch_names_the_path():
    with pytest.raises(TreeStructureError, match="apply_updates.*'l1'"):
        optim.apply_updates({"l1": {"W": numpy.ones(1)}}, {"l1": numpy.ones(1)})


def test_chain_runs_members_in_order_and_keeps_their_states():
    calls = []

    def member(name):
        def update(grads, state, params=None):
            calls.append(name)
            return {k: g + 1 for k, g in grads.items()}, state + [name]

        return optim.Transform(lambda params: [], update)

    tx = optim.chain(member("first"), member("second"), optim.SGD(lr=1.0))
    params = tree(0.0, 0.0)
    state = tx.init(params)
    assert state[:2] == ([], []) and isinstance(state[2], optim.OptimizerState)
    new_params, state = optim.step(tx, tree(1.0, 1.0), state, params)
    assert calls == ["first", "second"] and new_params == tree(-3.0, -3.0)
    updates, state = tx.update(tree(1.0, 1.0), state, new_params)
    assert updates == tree(-3.0, -3.0) and state[0] == ["first", "first"] and state[2].t == 2


def test_empty_chain_is_the_identity():
    tx = optim.chain()
    grads = tree(1.0, 2.0)
    assert tx.init(grads) == () and tx.update(grads, (), None) == (grads, ())


def test_chain_rejects_what_is_not_a_transform():
    with pytest.raises(
        InvalidInputError, match=r"chain: expected transforms\[1\] to be a fnet.optim.Transform"
    ):
        optim.chain(optim.SGD(), optim.Adam)


def test_chain_rejects_a_foreign_state():
    tx = optim.chain(optim.WeightDecay(0.1), optim.SGD())
    with pytest.raises(InvalidInputError, match="chain.update: expected the state to be a tuple of 2"):
        tx.step(tree(1.0, 1.0), optim.SGD().init(tree(1.0, 1.0)), tree(1.0, 1.0))


def test_masked_applies_inner_to_selected_leaves_only():
    seen = []

    def update(grads, state, params=None):
        seen.append((grads, params))
        return {k: None if g is None else g * 10 for k, g in grads.items()}, state + 1

    inner = optim.Transform(lambda params: 0, update)
    tx = optim.masked(inner, lambda path: path == "a")
    params = tree(5.0, 6.0)
    out, state = tx.update(tree(1.0, 2.0), tx.init(params), params)
    assert out == tree(10.0, 2.0) and state == 1
    assert seen[0][0]["b"] is None and seen[0][1]["b"] is None and seen[0][1]["a"][0] == 5.0


def test_masked_nested_paths():
    tx = optim.masked(optim.WeightDecay(1.0), lambda path: path.endswith("/W"))
    params = {"l1": {"W": numpy.ones(1), "b": numpy.ones(1)}, "l2": {"W": numpy.ones(1), "b": numpy.ones(1)}}
    grads = {
        "l1": {"W": numpy.zeros(1), "b": numpy.zeros(1)},
        "l2": {"W": numpy.zeros(1), "b": numpy.zeros(1)},
    }
    out, _ = tx.update(grads, tx.init(params), params)
    assert [out[layer][name][0] for layer in ("l1", "l2") for name in "Wb"] == [1.0, 0.0, 1.0, 0.0]
    assert out["l1"]["b"] is grads["l1"]["b"]


def test_masked_checks_its_arguments():
    with pytest.raises(InvalidInputError, match="masked: expected inner to be a fnet.optim.Transform"):
        optim.masked(lambda g: g, lambda path: True)
    with pytest.raises(InvalidInputError, match="masked: expected mask to be a function"):
        optim.masked(optim.WeightDecay(0.1), "W")
    tx = optim.masked(optim.WeightDecay(0.1), lambda path: True)
    with pytest.raises(TreeStructureError, match="masked.update"):
        tx.update(tree(1.0, 1.0), None, {"a": numpy.ones(1)})


# -- what a transformation says about itself: repr and hyperparams ---------------------------------


def test_repr_is_the_call_that_made_the_transformation():
    assert repr(optim.Adam()) == (
        "Adam(alpha=0.001, beta1=0.9, beta2=0.999, eps=1e-08, eta=1.0, weight_decay_rate=0, "
        "amsgrad=False, adabound=False, final_lr=0.1, gamma=0.001)"
    )
    tx = optim.chain(
        optim.WeightDecay(1e-4),
        optim.GradientClipping(5.0),
        optim.masked(optim.Lasso(0.1), mask=lambda path: path.endswith("W")),
        optim.MomentumSGD(lr=optim.schedules.exponential(0.1, 0.5), momentum=0.8),
    )
    assert repr(tx) == (
        "chain(WeightDecay(rate=0.0001), GradientClipping(threshold=5.0), "
        "masked(Lasso(rate=0.1), mask=<function "
        "test_repr_is_the_call_that_made_the_transformation.<locals>.<lambda>>), "
        "MomentumSGD(lr=exponential(init=0.1, rate=0.5, target=None), momentum=0.8))"
    )
    assert (
        repr(optim.GradientHardClipping(None, 1.0))
        == "GradientHardClipping(lower_bound=None, upper_bound=1.0)"
    )
    assert repr(optim.GradientLARS()) == "GradientLARS(threshold=0.01, weight_decay=0.0, eps=1e-09)"
    assert repr(optim.GradientNoise(0.5, key=numpy.zeros(4, numpy.uint32))) == "GradientNoise(eta=0.5)"
    assert repr(scale(2.0)) == (
        "Transform(init=<function scale.<locals>.<lambda>>, update=<function scale.<locals>.<lambda>>)"
    )


def test_state_reprs_show_avals_never_values():
    params = {"l1": {"W": numpy.full((64, 100), 0.123456, numpy.float32)}, "b": numpy.zeros(3)}
    tx = optim.chain(optim.GradientNoise(0.1, key=numpy.zeros(4, numpy.uint32)), optim.Adam())
    text = repr(tx.init(params))
    assert text == (
        "(GradientNoiseState(t=0, key=uint32[4]), OptimizerState(t=0, slots={"
        "'b': {'m': float64[3], 'v': float64[3]}, 'l1/W': {'m': float32[64, 100], 'v': float32[64, 100]}}))"
    )


def test_hyperparams_reads_schedules_at_the_state_count():
    tx = optim.chain(
        optim.WeightDecay(0.5), optim.Adam(alpha=optim.schedules.step(0.1, 0.5, 1), amsgrad=True)
    )
    params = {"w": numpy.zeros(2)}
    state = tx.init(params)
    first = tx.hyperparams(state)
    assert first[0] == {"rate": 0.5} and first[1]["alpha"] == 0.1 and first[1]["amsgrad"] is True
    assert tx.hyperparams(state, last_update=True)[1]["alpha"] == 0.1  # no update yet: the first's
    for _ in range(3):
        params, state = tx.step({"w": numpy.ones(2)}, state, params)
    assert tx.hyperparams(state)[1]["alpha"] == 0.1 * 0.5**3  # the next (4th) update's
    assert tx.hyperparams(state, last_update=True)[1]["alpha"] == 0.1 * 0.5**2  # the 3rd's
    masked = optim.masked(optim.SGD(lr=optim.schedules.linear((1.0, 0.0), (0, 4))), lambda p: True)
    state = masked.init(params)
    for _ in range(2):
        params, state = masked.step({"w": numpy.ones(2)}, state, params)
    assert masked.hyperparams(state) == {"lr": 0.5}
    assert scale(1.0).hyperparams(0) == {}  # a Transform built by hand declares none
    with pytest.raises(InvalidInputError, match="SGD.hyperparams: expected an OptimizerState, got tuple"):
        optim.SGD().hyperparams(())
