"""fnet.optim against Chainer 7.8.1: 20-step trajectories of every optimizer, hook, per-parameter
setting and scheduled hyperparameter, and the values of the schedules (tests/golden/optim.npz,
made by tests/golden/make_optim.py)."""

from __future__ import annotations

import json
import pathlib

import numpy
import pytest

import fnet
from fnet import ops as fo
from fnet import optim
from fnet.optim import schedules

GOLDEN = numpy.load(pathlib.Path(__file__).parents[1] / "golden" / "optim.npz")
CASES = {spec["name"]: spec for spec in json.loads(str(GOLDEN["cases"]))}
SCHEDULES = json.loads(str(GOLDEN["schedules"]))
STEPS = 20
NAMES = ("W", "b", "s")
TOL = {"float64": dict(rtol=1e-5, atol=1e-12), "float32": dict(rtol=1e-4, atol=1e-6)}
SHIFTS = {
    "ExponentialShift": schedules.exponential,
    "InverseShift": schedules.inverse,
    "LinearShift": schedules.linear,
    "MultistepShift": schedules.multistep,
    "PolynomialShift": schedules.polynomial,
    "StepShift": schedules.step,
    "WarmupShift": schedules.warmup,
}


def cosine_noise(key, shape, dtype, eta, t):
    """The golden script's deterministic noise, in fnet's noise_func signature."""
    size = int(numpy.prod(shape))
    return (eta * 0.01 * (1 + t) * numpy.cos(numpy.arange(size))).reshape(shape).astype(dtype)


def loss_fn(params, x, y):
    h = fo.tanh(params["s"] * fo.matmul(x, fo.transpose(params["W"])) + params["b"])
    return fo.mean((h - y) ** 2)


grad_fn = fnet.grad(loss_fn)


def problem(dtype: str):
    """The golden problem's starting params and data, in ``dtype``."""
    params = {name: GOLDEN[f"data/{name}"].astype(dtype) for name in NAMES}
    return params, GOLDEN["data/x"].astype(dtype), GOLDEN["data/y"].astype(dtype)


def hook(name: str, kwargs: dict) -> optim.Transform:
    kwargs = dict(kwargs)
    if name == "GradientNoise":
        kwargs["noise_func"] = cosine_noise
        kwargs["key"] = fnet.random.key(0)
    return getattr(optim, name)(**kwargs)


def build(spec: dict) -> optim.Transform:
    """The fnet transformation of a golden case: optimizer hooks, per-parameter hooks, optimizer."""
    kwargs = dict(spec["kwargs"])
    if spec["shift"] is not None:
        extension, attr, shift_kwargs = spec["shift"]
        kwargs[attr] = SHIFTS[extension](**shift_kwargs)
    per_param = spec["per_param"].get if spec["per_param"] else None
    optimizer = getattr(optim, spec["optimizer"])(**kwargs, per_param=per_param)
    rule_hooks = [
        optim.masked(hook(name, hook_kwargs), lambda path, param=param: path == param)
        for param, hooks in spec["rule_hooks"].items()
        for name, hook_kwargs in hooks
    ]
    return optim.chain(*(hook(name, kw) for name, kw in spec["hooks"]), *rule_hooks, optimizer)


def trajectory(spec: dict, by_step: bool = True) -> dict:
    tx = build(spec)
    params, x, y = problem(spec["dtype"])
    state = tx.init(params)
    rows = {name: [params[name]] for name in NAMES}
    for _ in range(STEPS):
        grads = grad_fn(params, x, y)
        if by_step:
            params, state = optim.step(tx, grads, state, params)
        else:
            updates, state = tx.update(grads, state, params)
            params = optim.apply_updates(params, updates)
        for name in NAMES:
            rows[name].append(params[name])
    return {name: numpy.stack(r) for name, r in rows.items()}


@pytest.mark.parametrize("name", list(CASES))
def test_trajectory_matches_chainer(name):
    spec = CASES[name]
    ours = trajectory(spec)
    for param in NAMES:
        golden = GOLDEN[f"traj/{name}/{param}"]
        assert ours[param].dtype == golden.dtype
        numpy.testing.assert_allclose(ours[param], golden, **TOL[spec["dtype"]], err_msg=f"{name}: {param}")


@pytest.mark.parametrize("name", list(CASES))
def test_update_and_apply_updates_equal_step(name):
    """Updates then apply_updates land on the parameters of step, bit for bit: one computation."""
    stepped, updated = trajectory(CASES[name]), trajectory(CASES[name], by_step=False)
    for param in NAMES:
        numpy.testing.assert_array_equal(updated[param], stepped[param])


def test_golden_cases_exercise_both_branches():
    """The hook cases are informative: clipping acts on some steps only, LARS on some params only."""
    spec = CASES["GradientClipping"]
    params, x, y = problem("float64")
    norms = []
    for _ in range(STEPS):
        grads = grad_fn(params, x, y)
        norms.append(sum(float(numpy.vdot(g, g)) for g in grads.values()) ** 0.5)
        params, _ = optim.step(optim.SGD(lr=0.1), grads, optim.SGD().init(params), params)
    threshold = spec["hooks"][0][1]["threshold"]
    assert min(norms) < threshold < max(norms)
    lars = CASES["GradientLARS"]["hooks"][0][1]["threshold"]
    start = problem("float64")[0]
    assert sorted(numpy.linalg.norm(start[n]) > lars for n in NAMES) == [False, True, True]


@pytest.mark.parametrize("name", [s[0] for s in SCHEDULES])
def test_schedule_matches_chainer_extension(name):
    _, extension, kwargs = next(s for s in SCHEDULES if s[0] == name)
    schedule = SHIFTS[extension](**kwargs)
    golden = GOLDEN[f"schedule/{name}"]
    ours = numpy.array([schedule(t) for t in range(len(golden))])
    numpy.testing.assert_allclose(ours, golden, rtol=1e-13, atol=0)


def test_make_train_step_matches_chainer():
    """make_train_step on the golden model follows Chainer's Adam trajectory."""
    spec = CASES["Adam"]
    params, x, y = problem("float64")

    def step_loss(p, state, batch):
        return loss_fn(p, *batch), (state, {"s": p["s"]})

    tx = optim.Adam(**spec["kwargs"])
    step = optim.make_train_step(step_loss, tx)
    opt_state, state = tx.init(params), {"count": 0}
    for i in range(STEPS):
        params, state, opt_state, metrics = step(params, state, opt_state, (x, y))
        assert set(metrics) == {"loss", "s"} and state == {"count": 0}
        for name in NAMES:
            numpy.testing.assert_allclose(params[name], GOLDEN[f"traj/Adam/{name}"][i + 1], rtol=1e-5)
    assert opt_state.t == STEPS
