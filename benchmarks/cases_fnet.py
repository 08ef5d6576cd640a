"""Benchmark cases written in fnet (run by worker.py in this interpreter)."""

import numpy as np
from shared import GP_LAMBDA, LR, SCALE, n_layers, op_sequence

import fnet
import fnet.ops as fo


def init(threads):
    return {"version": f"fnet {getattr(fnet, '__version__', 'dev')}, numpy {np.__version__}"}


def to_numpy(result):
    return np.asarray(result)


def mlp_params(data):
    """Nested dict {"l0": {"W": (in, out), "b": (out,)}, ...}."""
    return {
        f"l{i}": {"W": np.ascontiguousarray(data[f"W{i}"].T), "b": data[f"b{i}"]}
        for i in range(n_layers(data))
    }


def mlp(params, x, act):
    n = len(params)
    for i in range(n):
        p = params[f"l{i}"]
        x = x @ p["W"] + p["b"]
        if i < n - 1:
            x = act(x)
    return x


def sgd(params, grads):
    # g * -LR + p, not p - LR * g: NumPy then reuses the temporary g * -LR for the sum
    # (temporary elision needs the temporary on the left of a non-commutative operator)
    return fnet.tree.map(lambda p, g: g * -LR + p, params, grads)


def relu(x):
    return fo.maximum(x, 0.0)


def per_op(data):
    fns = {"sin": fo.sin, "tanh": fo.tanh, "exp": fo.exp, "scale": lambda y: y * SCALE}
    seq = [fns[name] for name in op_sequence()]
    x = data["x"]

    def chain(x):
        for f in seq:
            x = f(x)
        return fo.sum(x)

    grad_chain = fnet.grad(chain)

    def step():
        return grad_chain(x)

    return step


def mlp_step(data):
    x, t = data["x"], data["t"]
    rows = np.arange(x.shape[0])

    def loss_fn(params, x, t):
        z = mlp(params, x, relu)
        return fo.mean(fo.logsumexp(z, axis=1) - z[rows, t])

    value_and_grad = fnet.value_and_grad(loss_fn)
    state = {"params": mlp_params(data)}

    def step():
        loss, grads = value_and_grad(state["params"], x, t)
        state["params"] = sgd(state["params"], grads)
        return loss

    return step


def grad_penalty(data):
    x = data["x"]
    out_size = x.shape[0] * data[f"b{n_layers(data) - 1}"].shape[0]

    def sum_out(params, x):
        return fo.sum(mlp(params, x, fo.tanh))

    # d sum(out) / dx, together with sum(out) itself (one forward pass).
    out_and_grad_x = fnet.value_and_grad(sum_out, argnums=1)

    def loss_fn(params, x):
        s, gx = out_and_grad_x(params, x)
        norm = fo.sqrt(fo.sum(gx * gx, axis=1))
        return s / out_size + GP_LAMBDA * fo.mean((norm - 1.0) ** 2)

    value_and_grad = fnet.value_and_grad(loss_fn)
    state = {"params": mlp_params(data)}

    def step():
        loss, grads = value_and_grad(state["params"], x)
        state["params"] = sgd(state["params"], grads)
        return loss

    return step


CASES = {"per_op": per_op, "mlp_step": mlp_step, "grad_penalty": grad_penalty}
