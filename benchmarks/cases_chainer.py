"""Benchmark cases written in Chainer (run by worker.py in .venvs/chainer)."""

import chainer
import chainer.functions as F
import chainer.links as L
import numpy as np
from shared import GP_LAMBDA, LR, SCALE, n_layers, op_sequence


def init(threads):
    return {"version": f"chainer {chainer.__version__}, numpy {np.__version__}"}


def to_numpy(result):
    return getattr(result, "array", result)


class MLP(chainer.ChainList):
    """Linear layers from the shared (out, in) weights, ``act`` between."""

    def __init__(self, data, act):
        layers = []
        for i in range(n_layers(data)):
            W, b = data[f"W{i}"], data[f"b{i}"]
            layers.append(L.Linear(W.shape[1], W.shape[0], initialW=W, initial_bias=b))
        super().__init__(*layers)
        self.act = act

    def forward(self, x):
        layers = list(self)
        for layer in layers[:-1]:
            x = self.act(layer(x))
        return layers[-1](x)


def per_op(data):
    fns = {"sin": F.sin, "tanh": F.tanh, "exp": F.exp, "scale": lambda y: y * SCALE}
    seq = [fns[name] for name in op_sequence()]
    x = chainer.Variable(data["x"])

    def step():
        y = x
        for f in seq:
            y = f(y)
        s = F.sum(y)
        x.cleargrad()
        s.backward()
        return x.grad

    return step


def mlp_step(data):
    model = MLP(data, F.relu)
    opt = chainer.optimizers.SGD(lr=LR)
    opt.setup(model)
    x, t = data["x"], data["t"]

    def step():
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        opt.update()
        return loss

    return step


def grad_penalty(data):
    model = MLP(data, F.tanh)
    opt = chainer.optimizers.SGD(lr=LR)
    opt.setup(model)
    params = list(model.params())
    x = chainer.Variable(data["x"])

    def step():
        out = model(x)
        (gx,) = chainer.grad([F.sum(out)], [x], enable_double_backprop=True)
        norm = F.sqrt(F.sum(gx * gx, axis=1))
        loss = F.mean(out) + GP_LAMBDA * F.mean((norm - 1.0) ** 2)
        # Gradients w.r.t. the weights only (not x), set as param.grad.
        chainer.grad([loss], params, set_grad=True)
        opt.update()
        return loss

    return step


CASES = {"per_op": per_op, "mlp_step": mlp_step, "grad_penalty": grad_penalty}
