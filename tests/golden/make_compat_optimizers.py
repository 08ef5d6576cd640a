"""Golden data for tests/compat/test_optimizers.py, made with Chainer 7.8.1.

Run with the Chainer venv's python (it writes ``compat_optimizers.npz`` next to this file)::

    benchmarks/.venvs/chainer/bin/python tests/golden/make_compat_optimizers.py

Every case of ``CASES`` trains a two-layer chain (``l1``: Linear 3 -> 4, tanh, ``l2``: Linear
4 -> 2, float64, fixed start) by ``optimizer.update(lossfun, x, y)`` on a mean squared error,
``STEPS`` times, through Chainer's stateful API: optimizer hooks, hooks on one update rule,
hyperparameters overridden on one rule, a rule disabled, an attribute of the optimizer changed
between updates (``optimizer.lr = ...``), ``new_epoch``, static and dynamic loss scaling, and a
parameter that the loss does not use (its grad is None: Chainer updates it with zeros).

Stored per case (``<case>/...``):
    * ``traj/<param>``: the parameter after each update (``STEPS`` rows), ``<param>`` the
      parameter's path without the leading slash (``l1/W``);
    * ``final/<key>``: ``DictionarySerializer`` of the optimizer after the last update, i.e.
      Chainer's key layout (``t``, ``epoch``, ``l1/W/t``, ``l1/W/m`` ...);
    * ``snap/<key>``: the same after ``SNAP`` updates, with ``snap_params/<param>``, so that
      training can resume from it;
    * ``loss_scale``: the optimizer's loss scale after each update (dynamic loss scaling);
    * ``alpha_t``: Adam's ``alpha_t`` after each update (Adam family only).
``cases`` holds ``CASES`` as JSON so that the test builds the same optimizers; ``data/*`` the
start and the data. GradientNoise's noise is ``ramp_noise`` below (the test has the same).
"""

from __future__ import annotations

import json
import pathlib

import chainer
import chainer.functions as F
import chainer.links as L
import numpy
from chainer import optimizer_hooks, optimizers, serializers

assert chainer.__version__ == "7.8.1", chainer.__version__

OUT = pathlib.Path(__file__).with_name("compat_optimizers.npz")
STEPS = 5
SNAP = 3
CHANGE_AT = 2  # the attribute change happens before this update (0-based)


def case(name, optimizer, kwargs, hooks=(), override=None, change=None, **extra):
    """One run: ``optimizers.<optimizer>(**kwargs)`` with its settings.

    ``hooks``: optimizer hooks [name, kwargs]; ``override``: {param: {hyperparameter: value}}
    set on the update rules after setup; ``change``: [attribute, value] set on the optimizer
    before update ``CHANGE_AT``; ``extra``: ``rule_hooks`` {param: [[name, kwargs]]},
    ``disabled`` [param], ``loss_scale`` (a number, or ``"dynamic"`` for
    ``loss_scaling(interval=2)``), ``unused`` (True: the loss does not use ``l3``).
    """
    return {
        "name": name,
        "optimizer": optimizer,
        "kwargs": kwargs,
        "hooks": [list(h) for h in hooks],
        "override": override or {},
        "change": change,
        "rule_hooks": extra.pop("rule_hooks", {}),
        "disabled": extra.pop("disabled", []),
        "loss_scale": extra.pop("loss_scale", None),
        "unused": extra.pop("unused", False),
    }


WD = ["WeightDecay", {"rate": 0.02}]
CLIP = ["GradientClipping", {"threshold": 0.3}]
LASSO = ["Lasso", {"rate": 0.01}]
HARD = ["GradientHardClipping", {"lower_bound": -0.05, "upper_bound": 0.04}]
NOISE = ["GradientNoise", {"eta": 0.02, "noise_func": "ramp_noise"}]
LARS = ["GradientLARS", {"threshold": 0.5, "weight_decay": 0.01, "eps": 1e-6}]

CASES = [
    case("SGD", "SGD", {"lr": 0.1}, [WD], {"l2/b": {"lr": 0.3}}, ["lr", 0.05]),
    case(
        "MomentumSGD",
        "MomentumSGD",
        {"lr": 0.05, "momentum": 0.8},
        [CLIP],
        {"l1/W": {"momentum": 0.5}},
        ["lr", 0.02],
    ),
    case(
        "CorrectedMomentumSGD",
        "CorrectedMomentumSGD",
        {"lr": 0.05, "momentum": 0.7},
        [LASSO],
        {"l1/b": {"lr": 0.1}},
        ["momentum", 0.9],
    ),
    case(
        "NesterovAG",
        "NesterovAG",
        {"lr": 0.04, "momentum": 0.85},
        [HARD],
        {"l2/W": {"lr": 0.1}},
        ["lr", 0.02],
    ),
    case("AdaGrad", "AdaGrad", {"lr": 0.05, "eps": 1e-6}, [NOISE], {"l1/W": {"eps": 1e-3}}, ["lr", 0.1]),
    case("AdaDelta", "AdaDelta", {"rho": 0.9, "eps": 1e-4}, [LARS], {"l2/b": {"rho": 0.8}}, ["eps", 1e-3]),
    case(
        "Adam",
        "Adam",
        {"alpha": 0.01, "beta1": 0.8, "beta2": 0.99, "eps": 1e-7, "eta": 0.9, "weight_decay_rate": 0.01},
        [WD, CLIP],
        {"l1/W": {"alpha": 0.03, "beta1": 0.5}},
        ["alpha", 0.02],
    ),
    case(
        "AdamW",
        "AdamW",
        {"alpha": 0.02, "weight_decay_rate": 0.05, "eta": 0.5},
        [CLIP],
        {"l2/W": {"eta": 1.0}},
        ["eta", 0.8],
    ),
    case(
        "AMSGrad",
        "AMSGrad",
        {"alpha": 0.02, "beta1": 0.85, "beta2": 0.9},
        [LASSO],
        {"l1/b": {"alpha": 0.05}},
        ["alpha", 0.01],
    ),
    case(
        "AdaBound",
        "AdaBound",
        {"alpha": 0.01, "final_lr": 0.05, "gamma": 0.01},
        [HARD],
        {"l2/b": {"final_lr": 0.02}},
        ["alpha", 0.02],
    ),
    case(
        "AMSBound",
        "AMSBound",
        {"alpha": 0.02, "beta2": 0.9, "final_lr": 0.03, "gamma": 0.05},
        [NOISE],
        {"l1/W": {"gamma": 0.1}},
        ["alpha", 0.01],
    ),
    case(
        "Adam_amsbound_flags",
        "Adam",
        {"alpha": 0.02, "amsgrad": True, "adabound": True, "final_lr": 0.02},
        [WD],
        {"l2/W": {"amsgrad": False}},
        ["final_lr", 0.04],
    ),
    case(
        "RMSprop",
        "RMSprop",
        {"lr": 0.01, "alpha": 0.9, "eps": 1e-6, "eps_inside_sqrt": True},
        [LARS],
        {"l1/W": {"eps_inside_sqrt": False}},
        ["lr", 0.02],
    ),
    case(
        "RMSpropGraves",
        "RMSpropGraves",
        {"lr": 0.002, "alpha": 0.9, "momentum": 0.8, "eps": 1e-3},
        [WD],
        {"l2/b": {"momentum": 0.5}},
        ["lr", 0.001],
    ),
    case("SMORMS3", "SMORMS3", {"lr": 0.005, "eps": 1e-12}, [CLIP], {"l1/b": {"lr": 0.01}}, ["lr", 0.002]),
    case(
        "MSVAG",
        "MSVAG",
        {"lr": 0.05, "beta": 0.8, "eta": 0.9, "weight_decay_rate": 0.01},
        [HARD],
        {"l2/W": {"lr": 0.1}},
        ["lr", 0.1],
    ),
    # hooks on one update rule (after the optimizer's hooks), a disabled rule, static loss scaling
    case(
        "rule_hooks_disabled_loss_scale",
        "MomentumSGD",
        {"lr": 0.05},
        [WD, CLIP],
        rule_hooks={"l1/W": [LASSO, NOISE], "l2/W": [HARD]},
        disabled=["l2/b"],
        loss_scale=4.0,
    ),
    case("Adam_loss_scale", "Adam", {"alpha": 0.02}, [WD], loss_scale=8.0),
    # dynamic loss scaling: the scale doubles every update while the grads stay finite
    case("SGD_dynamic_loss_scale", "SGD", {"lr": 0.1}, [WD], loss_scale="dynamic"),
    # a parameter the loss does not use: grad None -> zeros, and it is still updated
    case("Adam_unused_param", "Adam", {"alpha": 0.02, "weight_decay_rate": 0.1}, unused=True),
    case("MomentumSGD_unused_param", "MomentumSGD", {"lr": 0.05}, [WD], unused=True),
]


def ramp_noise(xp, shape, dtype, hook, opt):
    """Deterministic noise that depends on the step count the hook sees (``opt`` is the rule)."""
    size = int(numpy.prod(shape))
    return (hook.eta * (1 + opt.t) * xp.linspace(-1.0, 1.0, size)).reshape(shape).astype(dtype)


def make_data():
    rng = numpy.random.RandomState(7)
    return {
        "x": rng.uniform(-1, 1, (5, 3)),
        "y": rng.uniform(-0.8, 0.8, (5, 2)),
        "l1/W": rng.uniform(-1, 1, (4, 3)),
        "l1/b": rng.uniform(-0.5, 0.5, (4,)),
        "l2/W": rng.uniform(-1, 1, (2, 4)),
        "l2/b": rng.uniform(-0.5, 0.5, (2,)),
        "l3/W": rng.uniform(-1, 1, (2, 2)),
        "l3/b": rng.uniform(-0.5, 0.5, (2,)),
    }


class Net(chainer.Chain):
    def __init__(self, data):
        super().__init__()
        with self.init_scope(), chainer.using_config("dtype", numpy.float64):
            for name, (n_in, n_out) in (("l1", (3, 4)), ("l2", (4, 2)), ("l3", (2, 2))):
                link = L.Linear(n_in, n_out, initialW=data[f"{name}/W"], initial_bias=data[f"{name}/b"])
                setattr(self, name, link)

    def loss(self, x, y, unused):
        h = self.l2(F.tanh(self.l1(x)))
        if not unused:
            h = self.l3(h)
        return F.mean_squared_error(h, y)


def hook(name, kwargs):
    kwargs = dict(kwargs)
    if "noise_func" in kwargs:
        kwargs["noise_func"] = {"ramp_noise": ramp_noise}[kwargs.pop("noise_func")]
    return getattr(optimizer_hooks, name)(**kwargs)


def rule_of(model, path):
    return dict(model.namedparams())["/" + path].update_rule


def saved(optimizer):
    target = {}
    serializers.DictionarySerializer(target).save(optimizer)
    # the serializer keeps references to the state arrays, which later updates change in place
    return {key: numpy.array(value, copy=True) for key, value in target.items()}


def run(spec, data):
    model = Net(data)
    optimizer = getattr(optimizers, spec["optimizer"])(**spec["kwargs"])
    optimizer.setup(model)
    for name, kwargs in spec["hooks"]:
        optimizer.add_hook(hook(name, kwargs))
    for path, values in spec["override"].items():
        for key, value in values.items():
            setattr(rule_of(model, path).hyperparam, key, value)
    for path, hooks in spec["rule_hooks"].items():
        for name, kwargs in hooks:
            rule_of(model, path).add_hook(hook(name, kwargs))
    for path in spec["disabled"]:
        rule_of(model, path).enabled = False
    if spec["loss_scale"] == "dynamic":
        optimizer.loss_scaling(interval=2)
    elif spec["loss_scale"] is not None:
        optimizer.loss_scaling(scale=spec["loss_scale"])

    out = {}
    traj = {name[1:]: [] for name, _ in model.namedparams()}
    scales, alpha_t = [], []
    for step in range(STEPS):
        if spec["change"] is not None and step == CHANGE_AT:
            setattr(optimizer, *spec["change"])
        optimizer.update(model.loss, data["x"], data["y"], spec["unused"])
        if step == 0:
            optimizer.new_epoch()
        for name, param in model.namedparams():
            traj[name[1:]].append(param.array.copy())
        scales.append(optimizer._loss_scale if optimizer._loss_scale is not None else numpy.nan)
        if isinstance(optimizer, optimizers.Adam):
            alpha_t.append(optimizer.alpha_t)
        if step + 1 == SNAP:
            for key, value in saved(optimizer).items():
                out[f"snap/{key}"] = value
            for name, param in model.namedparams():
                out[f"snap_params/{name[1:]}"] = param.array.copy()
    for name, rows in traj.items():
        out[f"traj/{name}"] = numpy.stack(rows)
    for key, value in saved(optimizer).items():
        out[f"final/{key}"] = value
    out["loss_scale"] = numpy.array(scales)
    if alpha_t:
        out["alpha_t"] = numpy.array(alpha_t)
    return out


def main():
    data = make_data()
    arrays = {f"data/{k}": v for k, v in data.items()}
    for spec in CASES:
        for key, value in run(spec, data).items():
            arrays[f"{spec['name']}/{key}"] = value
    arrays["cases"] = numpy.array(json.dumps(CASES))
    numpy.savez_compressed(OUT, **arrays)
    print(f"wrote {OUT} ({len(CASES)} cases, {len(arrays)} arrays)")


if __name__ == "__main__":
    main()
