"""Tests of fnet.optim's optimizers beyond the Chainer trajectories (test_golden.py): purity,
dtypes, per-parameter settings, schedules as hyperparameters, names, and the error messages."""

from __future__ import annotations

import inspect
import math
import os
import tempfile

import numpy
import pytest

from fnet import io, optim, random, tree
from fnet.errors import DTypeError, InvalidInputError, ShapeError, TreeStructureError
from fnet.optim import optimizers

NAMES = [
    "SGD",
    "MomentumSGD",
    "CorrectedMomentumSGD",
    "NesterovAG",
    "AdaGrad",
    "AdaDelta",
    "Adam",
    "AdamW",
    "AMSGrad",
    "AdaBound",
    "AMSBound",
    "RMSprop",
    "RMSpropGraves",
    "SMORMS3",
    "MSVAG",
]
ALIASES = {
    "sgd": "SGD",
    "momentum_sgd": "MomentumSGD",
    "corrected_momentum_sgd": "CorrectedMomentumSGD",
    "nesterov_ag": "NesterovAG",
    "adagrad": "AdaGrad",
    "adadelta": "AdaDelta",
    "adam": "Adam",
    "adamw": "AdamW",
    "amsgrad": "AMSGrad",
    "adabound": "AdaBound",
    "amsbound": "AMSBound",
    "rmsprop": "RMSprop",
    "rmsprop_graves": "RMSpropGraves",
    "smorms3": "SMORMS3",
    "msvag": "MSVAG",
}


def problem(dtype=numpy.float64, seed=0):
    rng = numpy.random.RandomState(seed)
    params = {
        "l1": {"W": rng.randn(3, 4).astype(dtype), "b": rng.randn(3).astype(dtype)},
        "s": numpy.asarray(rng.randn(), dtype),
    }
    grads = {
        "l1": {"W": rng.randn(3, 4).astype(dtype), "b": rng.randn(3).astype(dtype)},
        "s": numpy.asarray(rng.randn(), dtype),
    }
    return params, grads


def copies(t):
    return tree.map(numpy.copy, t)


@pytest.mark.parametrize("name", NAMES)
def test_step_and_update_are_pure(name):
    tx = getattr(optim, name)()
    params, grads = problem()
    state = tx.init(params)
    state = tx.step(grads, state, params)[1]  # a state with nonzero arrays
    before = copies((params, grads, state.slots))
    new_params, new_state = tx.step(grads, state, params)
    updates, update_state = tx.update(grads, state, params)
    for old, now in zip(tree.leaves(before), tree.leaves((params, grads, state.slots))):
        numpy.testing.assert_array_equal(now, old)
    assert state.t == 1 and new_state.t == update_state.t == 2
    for p, new in zip(tree.leaves(params), tree.leaves(new_params)):
        assert new is not p and new.shape == p.shape and new.dtype == p.dtype
    for slot in tree.leaves(new_state.slots):
        assert all(slot is not old for old in tree.leaves(state.slots))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32])
def test_dtypes_are_kept(name, dtype):
    # RMSprop's default eps (1e-8) is 0 in float16: Chainer refuses it (test_eps_that_underflows...)
    tx = getattr(optim, name)(**({"eps": 1e-4} if name == "RMSprop" and dtype == numpy.float16 else {}))
    params, grads = problem(dtype)
    state = tx.init(params)
    for _ in range(2):
        params, state = tx.step(grads, state, params)
    assert all(p.dtype == dtype for p in tree.leaves(params))
    assert all(a.dtype == dtype for a in tree.leaves(state.slots))
    assert all(numpy.isfinite(p).all() for p in tree.leaves(params))


def test_adam_updates_float16_in_float32():
    """Chainer's Adam computes float16 parameters' steps in float32 and rounds the results."""
    params16, grads16 = problem(numpy.float16)
    params32 = {
        "l1": {k: v.astype(numpy.float32) for k, v in params16["l1"].items()},
        "s": params16["s"].astype("f4"),
    }
    grads32 = {
        "l1": {k: v.astype(numpy.float32) for k, v in grads16["l1"].items()},
        "s": grads16["s"].astype("f4"),
    }
    tx = optim.Adam(alpha=0.01)
    new16, _ = tx.step(grads16, tx.init(params16), params16)
    new32, _ = tx.step(grads32, tx.init(params32), params32)
    for a, b in zip(tree.leaves(new16), tree.leaves(new32)):
        numpy.testing.assert_array_equal(a, b.astype(numpy.float16))


def test_eps_that_underflows_is_an_error():
    params, grads = problem(numpy.float16)
    tx = optim.RMSprop()  # eps 1e-8 is 0 in float16; Adam works in float32 there
    with pytest.raises(InvalidInputError, match="RMSprop: expected eps to be representable in float16"):
        tx.step(grads, tx.init(params), params)
    params, grads = problem(numpy.float32)
    tx = optim.Adam(eps=1e-50)
    with pytest.raises(InvalidInputError, match="Adam: expected eps to be representable in float32.*1e-50"):
        tx.step(grads, tx.init(params), params)


def test_state_layout_is_chainers():
    params, grads = problem()
    state = optim.Adam(amsgrad=True).init(params)
    assert state.t == 0 and sorted(state.slots) == ["l1/W", "l1/b", "s"]
    assert sorted(state.slots["l1/W"]) == ["m", "v", "vhat"]
    assert sorted(optim.SMORMS3().init(params).slots["s"]) == ["g", "g2", "mem"]
    assert optim.SMORMS3().init(params).slots["s"]["mem"] == 1.0
    assert optim.SGD().init(params).slots == {"l1/W": {}, "l1/b": {}, "s": {}}


def test_per_param_overrides_and_disables():
    params, grads = problem()
    asked = []

    def per_param(path):
        asked.append(path)
        return {"l1/W": {"lr": 1.0}, "s": {"enabled": False}}.get(path)

    tx = optim.MomentumSGD(lr=0.1, momentum=0.5, per_param=per_param)
    state = tx.init(params)
    assert state.slots["s"] == {}
    new, state = tx.step(grads, state, params)
    new, state = tx.step(grads, state, new)
    # lr 1.0 on W: two steps of v = 0.5 v - g
    numpy.testing.assert_allclose(new["l1"]["W"], params["l1"]["W"] - 2.5 * grads["l1"]["W"])
    numpy.testing.assert_allclose(new["l1"]["b"], params["l1"]["b"] - 0.25 * grads["l1"]["b"])
    assert state.slots["s"] == {}
    assert new["s"].tobytes() == params["s"].tobytes()  # a frozen parameter keeps its bits
    updates, _ = tx.update(grads, state, params)
    assert updates["s"] == 0.0
    assert sorted(asked) == ["l1/W", "l1/b", "s"]  # once per path: cached per tree structure


def test_per_param_flags_and_schedules():
    params, grads = problem()
    tx = optim.Adam(per_param=lambda path: {"amsgrad": True} if path == "s" else None)
    state = tx.init(params)
    assert "vhat" in state.slots["s"] and "vhat" not in state.slots["l1/W"]
    tx = optim.SGD(lr=0.0, per_param=lambda path: {"lr": lambda t: 0.5 * (t + 1)} if path == "s" else None)
    state = tx.init(params)
    p1, state = tx.step(grads, state, params)
    p2, state = tx.step(grads, state, p1)
    numpy.testing.assert_allclose(p2["s"], params["s"] - 1.5 * grads["s"])
    numpy.testing.assert_array_equal(p2["l1"]["W"], params["l1"]["W"])


def test_schedules_are_read_at_the_updates_done():
    params, grads = problem()
    tx = optim.SGD(lr=lambda t: [0.1, 0.2, 0.4][t])
    state = tx.init(params)
    for expected in (0.1, 0.2, 0.4):
        new, state = tx.step(grads, state, params)
        numpy.testing.assert_allclose(new["s"], params["s"] - expected * grads["s"])


def test_per_param_errors():
    params, grads = problem()
    with pytest.raises(
        InvalidInputError, match=r"Adam: per_param\('l1/W'\) returned unknown hyperparameters \['lr'\]"
    ):
        optim.Adam(per_param=lambda path: {"lr": 0.1}).init(params)
    with pytest.raises(InvalidInputError, match=r"hint: Adam's hyperparameters are alpha, beta1"):
        optim.Adam(per_param=lambda path: {"lr": 0.1}).init(params)
    with pytest.raises(
        InvalidInputError, match=r"expected per_param\('l1/W'\) to return a dict or None, got float"
    ):
        optim.SGD(per_param=lambda path: 0.1).init(params)
    with pytest.raises(InvalidInputError, match=r"expected per_param\('l1/W'\)\['enabled'\] to be a bool"):
        optim.SGD(per_param=lambda path: {"enabled": 0}).init(params)
    with pytest.raises(InvalidInputError, match=r"SGD: expected per_param to be a function"):
        optim.SGD(per_param={"l1/W": {"lr": 0.1}})
    with pytest.raises(InvalidInputError, match=r"expected lr to be a number or a schedule"):
        optim.SGD(per_param=lambda path: {"lr": "0.1"}).init(params)


def test_hyperparameter_errors():
    with pytest.raises(
        InvalidInputError, match=r"Adam: expected alpha to be a number or a schedule.*got '0.1'"
    ):
        optim.Adam(alpha="0.1")
    with pytest.raises(InvalidInputError, match=r"Adam: expected amsgrad to be a bool, got 1"):
        optim.Adam(amsgrad=1)
    with pytest.raises(InvalidInputError, match=r"RMSprop: expected eps_inside_sqrt to be a bool"):
        optim.RMSprop(eps_inside_sqrt=None)
    with pytest.raises(InvalidInputError, match=r"SGD: expected lr to be a number"):
        optim.SGD(lr=True)


def test_gradient_errors():
    params, grads = problem()
    tx = optim.Adam()
    state = tx.init(params)
    with pytest.raises(TreeStructureError, match=r"Adam.update: tree structures differ at 'l1'"):
        tx.step({"l1": grads["l1"]["W"], "s": grads["s"]}, state, params)
    bad = {"l1": {"W": grads["l1"]["W"].T, "b": grads["l1"]["b"]}, "s": grads["s"]}
    with pytest.raises(
        ShapeError, match=r"Adam.update: expected grads\['l1/W'\].shape == params\['l1/W'\].shape"
    ):
        tx.update(bad, state, params)
    bad = {"l1": {"W": grads["l1"]["W"].astype(numpy.float32), "b": grads["l1"]["b"]}, "s": grads["s"]}
    with pytest.raises(
        DTypeError, match=r"grads\['l1/W'\] to have the parameter's dtype float64, got float32"
    ):
        tx.step(bad, state, params)
    with pytest.raises(InvalidInputError, match=r"expected params\['l1/W'\] to be an array, got float"):
        tx.init({"l1": {"W": 1.5, "b": params["l1"]["b"]}, "s": params["s"]})


def test_state_errors():
    params, grads = problem()
    tx = optim.Adam()
    with pytest.raises(InvalidInputError, match=r"Adam.update: expected an OptimizerState, got tuple"):
        tx.step(grads, (), params)
    with pytest.raises(InvalidInputError, match=r"Adam.update: expected params, got None"):
        tx.update(grads, tx.init(params), None)
    small = {"l1": params["l1"]}
    with pytest.raises(TreeStructureError, match=r"the state has no entry for parameter 's'"):
        tx.step(grads, tx.init(small), params)
    with pytest.raises(InvalidInputError, match=r"every parameter to have its own path"):
        tx.init({"a/b": params["s"], "a": {"b": params["s"]}})


def test_names_signatures_and_aliases():
    assert list(optim.OPTIMIZERS) == NAMES and optimizers.__all__[:3] == [
        "OptimizerState",
        "OPTIMIZERS",
        "adam_step_size",
    ]
    assert sorted(optimizers.__all__[3:]) == sorted(NAMES + list(ALIASES))  # drawn from the registry
    for alias, name in ALIASES.items():
        assert getattr(optim, alias) is getattr(optim, name)
        assert alias in optim.__all__ and name in optim.__all__ and name in optimizers.__all__
    for name in NAMES:
        factory = getattr(optim, name)
        assert factory.__doc__ and isinstance(factory(), optim.Transform)
        assert inspect.signature(factory).parameters["per_param"].kind is inspect.Parameter.KEYWORD_ONLY


def test_state_is_a_pytree_that_checkpoints():
    params, grads = problem(numpy.float32)
    tx = optim.chain(optim.GradientNoise(0.1, key=random.key(0)), optim.Adam(amsgrad=True))
    state = tx.step(grads, tx.init(params), params)[1]
    path = os.path.join(tempfile.mkdtemp(), "state.ckpt")
    io.save(path, state)
    loaded = io.load(path, like=state)
    assert tree.all_equal_structure(loaded, state) and loaded[0].t == loaded[1].t == 1
    assert [p for p, _ in tree.flatten_with_paths(state[1])][:2] == [("t",), ("slots", "l1/W", "m")]
    for a, b in zip(tree.leaves(loaded), tree.leaves(state)):
        numpy.testing.assert_array_equal(a, b)
    resumed, original = tx.step(grads, loaded, params)[0], tx.step(grads, state, params)[0]
    assert all(numpy.array_equal(a, b) for a, b in zip(tree.leaves(resumed), tree.leaves(original)))


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_step_in_place_writes_what_step_returns(name, dtype):
    tx = getattr(optim, name)(**({"eps": 1e-4} if name == "RMSprop" and dtype == numpy.float16 else {}))
    params, grads = problem(dtype)
    owned = copies(params)
    state, in_place_state = tx.init(params), tx.init(owned)
    for _ in range(3):
        params, state = tx.step(grads, state, params)
        in_place_state = tx.step_in_place(grads, in_place_state, owned)
    for expected, got in zip(tree.leaves(params), tree.leaves(owned)):
        numpy.testing.assert_array_equal(got, expected)
    assert in_place_state.t == state.t
    for expected, got in zip(tree.leaves(state.slots), tree.leaves(in_place_state.slots)):
        numpy.testing.assert_array_equal(got, expected)


def test_adam_step_size_is_the_bias_corrected_alpha():
    assert optim.adam_step_size(0.1, 0.9, 0.999, 1) == 0.1 * math.sqrt(1 - 0.999) / (1 - 0.9)  # one formula
    with pytest.raises(
        InvalidInputError, match=r"adam_step_size: expected the update's number t >= 1, got 0"
    ):
        optim.adam_step_size(0.1, 0.9, 0.999, 0)


def bits(t) -> list[bytes]:
    """The bytes of every leaf: equal only if the arrays are equal bit for bit (-0.0 is not 0.0)."""
    return [(a.dtype.str, a.shape, a.tobytes()) for a in tree.leaves(t)]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64])
def test_step_update_and_step_in_place_agree_bit_for_bit(name, dtype):
    """One arithmetic path: ``step``, ``update`` + ``apply_updates`` and ``step_in_place`` are one
    computation (the kernel's update u, then p + u), so exact equality is the right test. A frozen
    parameter holding -0.0 keeps it; float16 parameters of the Adam family take float32 updates."""
    kwargs = {"eps": 1e-4} if name == "RMSprop" and dtype == numpy.float16 else {}
    tx = getattr(optim, name)(**kwargs, per_param=lambda path: {"enabled": False} if path == "z" else None)
    params, grads = problem(dtype)
    params["z"], grads["z"] = numpy.array([-0.0, 1.5], dtype), numpy.ones(2, dtype)
    # enough elements for a double rounding to show, and for step to sum into fresh updates
    # (NumPy's temporary elision starts at 256 KiB), which must leave the state arrays alone
    rng = numpy.random.RandomState(1)
    params["big"], grads["big"] = rng.randn(400, 400).astype(dtype), rng.randn(400, 400).astype(dtype)
    stepped, updated, owned = params, params, copies(params)
    states = [tx.init(params)] * 2 + [tx.init(owned)]
    for _ in range(3):
        stepped, states[0] = optim.step(tx, grads, states[0], stepped)
        updates, states[1] = tx.update(grads, states[1], updated)
        updated = optim.apply_updates(updated, updates)
        states[2] = optim.step_in_place(tx, grads, states[2], owned)
        assert bits(updated) == bits(stepped) and bits(owned) == bits(stepped)
        assert bits(states[1].slots) == bits(states[0].slots) == bits(states[2].slots)
    assert stepped["z"].tobytes() == params["z"].tobytes() and states[0].t == 3


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64])
def test_in_place_sgd_rounds_the_product_then_the_sum(dtype):
    # p + (-lr * g) with two roundings, as NumPy computes it: not one fused multiply-add (BLAS's
    # axpy fuses them with OpenBLAS's AVX-512 kernels, e.g. under OPENBLAS_CORETYPE=SkylakeX).
    # Long arrays, so that any vector kernel runs; on these values the two differ in about one
    # element in ten.
    rng = numpy.random.RandomState(1)
    params = {"w": rng.randn(4099).astype(dtype)}
    grads = {"w": rng.randn(4099).astype(dtype)}
    expected = params["w"] + grads["w"] * dtype(-0.1)
    owned = copies(params)
    optim.SGD(lr=0.1).step_in_place(grads, optim.SGD(lr=0.1).init(owned), owned)
    numpy.testing.assert_array_equal(owned["w"], expected)


@pytest.mark.parametrize("name", NAMES)
def test_an_empty_parameter_is_updated(name):
    # a parameter with no elements (Chainer's optimizer tests use shape (1, 0, 2)); SciPy's axpy
    # refused it (Adam's moments, SGD in place)
    tx = getattr(optim, name)()
    params = {"w": numpy.zeros((1, 0, 2), numpy.float32), "b": numpy.ones(2, numpy.float32)}
    grads = {"w": numpy.zeros((1, 0, 2), numpy.float32), "b": numpy.ones(2, numpy.float32)}
    new_params, state = tx.step(grads, tx.init(params), params)
    assert new_params["w"].shape == (1, 0, 2) and new_params["w"].dtype == numpy.float32
    assert all(a.shape == (1, 0, 2) for a in state.slots["w"].values())
    owned = copies(params)
    tx.step_in_place(grads, tx.init(owned), owned)
    numpy.testing.assert_array_equal(owned["b"], new_params["b"])


def test_step_in_place_of_a_chain_writes_what_step_returns():
    tx = optim.chain(optim.WeightDecay(0.1), optim.SGD(lr=0.5))
    params, grads = problem()
    expected, _ = optim.step(tx, grads, tx.init(params), params)
    owned = copies(params)
    optim.step_in_place(tx, grads, tx.init(owned), owned)
    assert bits(owned) == bits(expected)
