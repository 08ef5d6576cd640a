"""Golden data for the tests of fnet.optim, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``optim.npz`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_optim.py

Trajectories: a tiny model with three parameters, ``W`` (2, 3), ``b`` (2,) and a scalar ``s``,
fits ``y = tanh(s * (x W^T) + b)`` to fixed data by mean squared error. For every case of
``CASES``, Chainer's optimizer (with its hooks, per-parameter settings, per-parameter hooks and
a shift extension triggered every iteration) runs ``STEPS`` updates from the same start; the
parameters after each update are stored as ``traj/<case>/<param>`` (``STEPS + 1`` rows, the
first the start). ``cases`` holds the list as JSON, so that the test builds the same
optimizers in fnet. ``GradientNoise``'s noise is the deterministic ``cosine_noise`` below (the
test defines the same), so that its timing (the step count it sees) is checked.

Schedules: for every case of ``SCHEDULES``, the value that Chainer's shift extension sets at
``initialize`` and after each of ``SCHEDULE_STEPS`` calls, as ``schedule/<case>``.
"""

from __future__ import annotations

import json
import pathlib
import types

import chainer
import chainer.functions as F
import numpy
from chainer import optimizer_hooks, optimizers
from chainer.training import extensions

assert chainer.__version__ == "7.8.1", chainer.__version__

OUT = pathlib.Path(__file__).with_name("optim.npz")
STEPS = 20
SCHEDULE_STEPS = 30


def case(
    name, optimizer, kwargs=None, hooks=(), per_param=None, rule_hooks=None, shift=None, dtype="float64"
):
    """One trajectory: Chainer's ``optimizers.<optimizer>(**kwargs)`` and its settings."""
    return {
        "name": name,
        "optimizer": optimizer,
        "kwargs": kwargs or {},
        "hooks": [list(h) for h in hooks],  # optimizer hooks, in registration order: [name, kwargs]
        "per_param": per_param or {},  # param -> {hyperparameter: value, or "enabled": bool}
        "rule_hooks": rule_hooks or {},  # param -> hooks added to its update rule
        "shift": shift,  # [extension name, attr, kwargs]: triggered after every update
        "dtype": dtype,
    }


DEFAULTS = [
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

CASES = [
    *(case(f"{name}_defaults", name) for name in DEFAULTS),
    case("SGD", "SGD", {"lr": 0.1}),
    case("MomentumSGD", "MomentumSGD", {"lr": 0.05, "momentum": 0.8}),
    case("CorrectedMomentumSGD", "CorrectedMomentumSGD", {"lr": 0.05, "momentum": 0.7}),
    case("NesterovAG", "NesterovAG", {"lr": 0.05, "momentum": 0.85}),
    case("AdaGrad", "AdaGrad", {"lr": 0.1, "eps": 1e-4}),
    case("AdaDelta", "AdaDelta", {"rho": 0.9, "eps": 1e-3}),
    case("Adam", "Adam", {"alpha": 0.05, "beta1": 0.8, "beta2": 0.99, "eps": 1e-6}),
    case("Adam_decoupled_decay", "Adam", {"alpha": 0.05, "eta": 0.5, "weight_decay_rate": 0.1}),
    case("Adam_amsgrad", "Adam", {"alpha": 0.05, "beta2": 0.9, "amsgrad": True}),
    case("Adam_adabound", "Adam", {"alpha": 0.05, "adabound": True, "final_lr": 0.05, "gamma": 0.1}),
    case("Adam_amsbound", "Adam", {"alpha": 0.05, "amsgrad": True, "adabound": True, "final_lr": 0.02}),
    case("AdamW", "AdamW", {"alpha": 0.05, "weight_decay_rate": 0.2, "eta": 0.7}),
    case("AMSGrad", "AMSGrad", {"alpha": 0.05, "beta2": 0.9, "eta": 0.8}),
    case("AdaBound", "AdaBound", {"alpha": 0.05, "final_lr": 0.02, "gamma": 0.05}),
    case("AMSBound", "AMSBound", {"alpha": 0.05, "beta2": 0.9, "final_lr": 0.02, "gamma": 0.05}),
    case("RMSprop", "RMSprop", {"lr": 0.02, "alpha": 0.9}),
    case("RMSprop_eps_inside_sqrt", "RMSprop", {"lr": 0.02, "eps": 1e-3, "eps_inside_sqrt": True}),
    case("RMSpropGraves", "RMSpropGraves", {"lr": 0.01, "alpha": 0.9, "momentum": 0.8, "eps": 1e-3}),
    case("SMORMS3", "SMORMS3", {"lr": 0.05, "eps": 1e-10}),
    case("MSVAG", "MSVAG", {"lr": 0.2, "beta": 0.8}),
    case("MSVAG_decoupled_decay", "MSVAG", {"lr": 0.2, "eta": 0.5, "weight_decay_rate": 0.1}),
    # float32 parameters: Chainer's arithmetic in float32
    case("Adam_float32", "Adam", {"alpha": 0.05}, dtype="float32"),
    case("MomentumSGD_float32", "MomentumSGD", {"lr": 0.05}, dtype="float32"),
    case("RMSprop_float32", "RMSprop", {"lr": 0.02}, dtype="float32"),
    # optimizer hooks, run on every parameter's gradient before the update rules
    case("WeightDecay", "SGD", {"lr": 0.1}, hooks=[("WeightDecay", {"rate": 0.1})]),
    case("Lasso", "MomentumSGD", {"lr": 0.05}, hooks=[("Lasso", {"rate": 0.05})]),
    case("GradientClipping", "SGD", {"lr": 0.1}, hooks=[("GradientClipping", {"threshold": 0.3})]),
    case(
        "GradientHardClipping",
        "SGD",
        {"lr": 0.1},
        hooks=[("GradientHardClipping", {"lower_bound": -0.05, "upper_bound": 0.05})],
    ),
    case("GradientLARS_defaults", "SGD", {"lr": 0.1}, hooks=[("GradientLARS", {})]),
    case(
        "GradientLARS",
        "MomentumSGD",
        {"lr": 0.05},
        hooks=[("GradientLARS", {"threshold": 1.0, "weight_decay": 0.01, "eps": 1e-6})],
    ),
    case(
        "GradientNoise",
        "SGD",
        {"lr": 0.1},
        hooks=[("GradientNoise", {"eta": 0.3, "noise_func": "cosine_noise"})],
    ),
    case(
        "hooks_in_order",
        "Adam",
        {"alpha": 0.05},
        hooks=[
            ("WeightDecay", {"rate": 0.05}),
            ("GradientClipping", {"threshold": 0.2}),
            ("Lasso", {"rate": 0.01}),
        ],
    ),
    # per-parameter settings: update_rule.hyperparam.<name> = value, update_rule.enabled = False
    case("per_param_SGD", "SGD", {"lr": 0.1}, per_param={"b": {"lr": 0.5}, "s": {"enabled": False}}),
    case(
        "per_param_Adam",
        "Adam",
        {"alpha": 0.05},
        per_param={"W": {"alpha": 0.01, "beta1": 0.5}, "b": {"enabled": False}},
    ),
    case("per_param_Adam_amsgrad", "Adam", {"alpha": 0.05, "beta2": 0.9}, per_param={"W": {"amsgrad": True}}),
    case("per_param_MomentumSGD", "MomentumSGD", {"lr": 0.05}, per_param={"s": {"momentum": 0.0, "lr": 0.2}}),
    # per-parameter hooks run after the optimizer's hooks
    case(
        "rule_hooks",
        "SGD",
        {"lr": 0.1},
        hooks=[("GradientClipping", {"threshold": 0.2})],
        rule_hooks={
            "W": [("WeightDecay", {"rate": 0.5})],
            "b": [("GradientHardClipping", {"lower_bound": -0.01, "upper_bound": 0.02})],
        },
    ),
    # schedules: a shift extension triggered after every update
    case(
        "SGD_ExponentialShift",
        "SGD",
        {"lr": 0.2},
        shift=("ExponentialShift", "lr", {"rate": 0.8, "init": 0.2}),
    ),
    case(
        "Adam_LinearShift",
        "Adam",
        {"alpha": 0.05},
        shift=("LinearShift", "alpha", {"value_range": [0.05, 0.005], "time_range": [2, 12]}),
    ),
    case(
        "AdaBound_ExponentialShift",
        "AdaBound",
        {"alpha": 0.05, "final_lr": 0.02, "gamma": 0.05},
        shift=("ExponentialShift", "alpha", {"rate": 0.9, "init": 0.05}),
    ),
    case(
        "MomentumSGD_MultistepShift",
        "MomentumSGD",
        {"lr": 0.05},
        shift=("MultistepShift", "lr", {"gamma": 0.3, "step_value": [3, 8, 15], "init": 0.05}),
    ),
    case(
        "RMSprop_WarmupShift",
        "RMSprop",
        {"lr": 0.02},
        shift=("WarmupShift", "lr", {"warmup_start": 0.0, "warmup_iter": 5, "init": 0.02}),
    ),
]

SCHEDULES = [
    ("exponential", "ExponentialShift", {"rate": 0.5, "init": 1.0}),
    ("exponential_target", "ExponentialShift", {"rate": 0.5, "init": 1.0, "target": 0.1}),
    ("exponential_up", "ExponentialShift", {"rate": 2.0, "init": 0.1, "target": 1.0}),
    ("exponential_negative", "ExponentialShift", {"rate": 0.5, "init": -1.0, "target": -0.1}),
    ("inverse", "InverseShift", {"gamma": 0.1, "power": 0.75, "init": 0.1}),
    ("inverse_target", "InverseShift", {"gamma": 0.5, "power": 0.75, "init": 0.1, "target": 0.05}),
    ("inverse_up", "InverseShift", {"gamma": 0.5, "power": -0.5, "init": 0.1, "target": 0.2}),
    ("linear", "LinearShift", {"value_range": [0.1, 0.001], "time_range": [3, 13]}),
    ("linear_from_zero", "LinearShift", {"value_range": [0.0, 1.0], "time_range": [0, 7]}),
    ("multistep", "MultistepShift", {"gamma": 0.1, "step_value": [3, 7, 12], "init": 0.1}),
    ("multistep_early", "MultistepShift", {"gamma": 0.5, "step_value": [0, 1, 1, 5], "init": 1.0}),
    ("polynomial", "PolynomialShift", {"rate": 0.5, "max_count": 10, "init": 0.1}),
    ("polynomial_target", "PolynomialShift", {"rate": 2.0, "max_count": 40, "init": 0.1, "target": 0.02}),
    ("step", "StepShift", {"gamma": 0.5, "step": 3, "init": 1.0}),
    ("step_target", "StepShift", {"gamma": 0.5, "step": 2, "init": 1.0, "target": 0.2}),
    ("step_up", "StepShift", {"gamma": 2.0, "step": 4, "init": 0.5, "target": 5.0}),
    ("warmup", "WarmupShift", {"warmup_start": 0.0, "warmup_iter": 5, "init": 0.1}),
    ("warmup_thirds", "WarmupShift", {"warmup_start": 0.01, "warmup_iter": 3, "init": 0.1}),
]


def cosine_noise(xp, shape, dtype, hook, opt):
    """Deterministic stand-in for Gaussian noise that depends on the step count the hook sees."""
    size = int(numpy.prod(shape))
    return (hook.eta * 0.01 * (1 + opt.t) * xp.cos(xp.arange(size))).reshape(shape).astype(dtype)


NOISE_FUNCS = {"cosine_noise": cosine_noise}


def make_data():
    rng = numpy.random.RandomState(0)
    return {
        "x": rng.uniform(-1, 1, (6, 3)),
        "y": rng.uniform(-0.8, 0.8, (6, 2)),
        "W": rng.uniform(-1, 1, (2, 3)),
        "b": rng.uniform(-0.5, 0.5, (2,)),
        "s": numpy.array(1.3),
    }


class Model(chainer.Link):
    def __init__(self, data, dtype):
        super().__init__()
        with self.init_scope():
            for name in ("W", "b", "s"):
                setattr(self, name, chainer.Parameter(data[name].astype(dtype)))

    def loss(self, x, y):
        h = F.linear(x, self.W)
        h = F.tanh(F.broadcast_to(self.s, h.shape) * h + F.broadcast_to(self.b, h.shape))
        return F.mean_squared_error(h, y)


def hook(name, kwargs):
    kwargs = dict(kwargs)
    if "noise_func" in kwargs:
        kwargs["noise_func"] = NOISE_FUNCS[kwargs["noise_func"]]
    return getattr(optimizer_hooks, name)(**kwargs)


def trajectory(spec, data):
    dtype = numpy.dtype(spec["dtype"])
    model = Model(data, dtype)
    x, y = data["x"].astype(dtype), data["y"].astype(dtype)
    opt = getattr(optimizers, spec["optimizer"])(**spec["kwargs"])
    opt.setup(model)
    for name, kwargs in spec["hooks"]:
        opt.add_hook(hook(name, kwargs))
    for param, settings in spec["per_param"].items():
        rule = getattr(model, param).update_rule
        for key, value in settings.items():
            if key == "enabled":
                rule.enabled = value
            else:
                setattr(rule.hyperparam, key, value)
    for param, hooks in spec["rule_hooks"].items():
        for name, kwargs in hooks:
            getattr(model, param).update_rule.add_hook(hook(name, kwargs))
    shift = None
    if spec["shift"] is not None:
        ext_name, attr, kwargs = spec["shift"]
        shift = getattr(extensions, ext_name)(attr, optimizer=opt, **kwargs)
        shift.initialize(None)
    rows = {name: [getattr(model, name).array.copy()] for name in ("W", "b", "s")}
    for _ in range(STEPS):
        model.cleargrads()
        model.loss(x, y).backward()
        opt.update()
        if shift is not None:
            shift(None)
        for name in rows:
            rows[name].append(getattr(model, name).array.copy())
    return {name: numpy.stack(r) for name, r in rows.items()}


def schedule_values(ext_name, kwargs):
    opt = types.SimpleNamespace(value=None)
    ext = getattr(extensions, ext_name)("value", optimizer=opt, **kwargs)
    ext.initialize(None)
    values = [opt.value]
    for _ in range(SCHEDULE_STEPS):
        ext(None)
        values.append(opt.value)
    return numpy.array(values, numpy.float64)


def main():
    data = make_data()
    out = {f"data/{k}": v for k, v in data.items()}
    for spec in CASES:
        for name, rows in trajectory(spec, data).items():
            out[f"traj/{spec['name']}/{name}"] = rows
    for name, ext_name, kwargs in SCHEDULES:
        out[f"schedule/{name}"] = schedule_values(ext_name, kwargs)
    out["cases"] = numpy.array(json.dumps(CASES))
    out["schedules"] = numpy.array(json.dumps(SCHEDULES))
    numpy.savez_compressed(OUT, **out)
    print(f"wrote {OUT} ({len(CASES)} trajectories, {len(SCHEDULES)} schedules)")


if __name__ == "__main__":
    main()
