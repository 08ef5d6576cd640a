"""Benchmark cases written in JAX, each step one ``jax.jit``-compiled function (run by worker.py
in .venvs/jax, on the CPU).

A peer with a compiler: the whole step (forward, backward and update) is traced once and run as
one XLA program, so these times show what capturing a step can reach. Each step returns its
new parameters and optimizer state as well, which the case keeps for the next call, and waits
for the result (``block_until_ready``), since JAX dispatches asynchronously.

Threads: with the thread variables set to 1 (``--threads 1``), XLA is asked for one thread
(``XLA_FLAGS``: no multi-threaded Eigen, one intra-op thread), set before jax is imported;
otherwise XLA's defaults (one thread per core).
"""

import os

if os.environ.get("OMP_NUM_THREADS") == "1":  # the worker sets the thread variables first
    os.environ["XLA_FLAGS"] = (
        os.environ.get("XLA_FLAGS", "") + " --xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
    ).strip()

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from shared import (  # noqa: E402
    ADAM_ALPHA,
    ADAM_BETA1,
    ADAM_BETA2,
    ADAM_EPS,
    CNN_CHANNELS,
    GP_LAMBDA,
    LM_BPTT,
    LM_CLIP,
    LM_LAYERS,
    LM_LR,
    LR,
    SCALE,
    n_layers,
    op_sequence,
)

# no peak memory from tracemalloc (worker.py)
UNTRACED_MEMORY = "XLA's buffers come from its own allocator, which tracemalloc does not see"


def init(threads):
    return {
        "version": f"jax {jax.__version__} (jit, {jax.default_backend()}), numpy {np.__version__}",
        "xla_flags": os.environ.get("XLA_FLAGS", ""),
    }


def to_numpy(result):
    return np.asarray(result)


def _kept(step_fn, *state):
    """A step() that calls the jitted ``step_fn(*state) -> (result, *new_state)``, keeps the new
    state for the next call and returns the result once it is computed."""
    box = list(state)

    def step():
        out = step_fn(*box)
        box[:] = out[1:]
        return jax.block_until_ready(out[0])

    return step


def _linear_params(data):
    return [(jnp.asarray(data[f"W{i}"]), jnp.asarray(data[f"b{i}"])) for i in range(n_layers(data))]


def _mlp(params, x, act):
    """Linear layers in Chainer's (out, in) layout, ``act`` between them."""
    for i, (W, b) in enumerate(params):
        x = x @ W.T + b
        if i < len(params) - 1:
            x = act(x)
    return x


def _softmax_cross_entropy(scores, t):
    """The mean over the batch of -log softmax(scores)[t]."""
    logp = jax.nn.log_softmax(scores, axis=1)
    return -jnp.mean(jnp.take_along_axis(logp, t[:, None], axis=1))


def _sgd(params, grads, lr=LR):
    return jax.tree.map(lambda p, g: p - lr * g, params, grads)


def _adam(params, grads, state):
    """One step of Chainer's Adam: ``p - alpha_t * m / (sqrt(v) + eps)``."""
    t, m, v = state
    t = t + 1
    m = jax.tree.map(lambda m, g: m + (1 - ADAM_BETA1) * (g - m), m, grads)
    v = jax.tree.map(lambda v, g: v + (1 - ADAM_BETA2) * (g * g - v), v, grads)
    alpha_t = ADAM_ALPHA * jnp.sqrt(1 - ADAM_BETA2**t) / (1 - ADAM_BETA1**t)
    params = jax.tree.map(lambda p, m, v: p - alpha_t * m / (jnp.sqrt(v) + ADAM_EPS), params, m, v)
    return params, (t, m, v)


def _adam_state(params):
    zeros = jax.tree.map(jnp.zeros_like, params)
    return (jnp.float32(0), zeros, zeros)


def per_op(data):
    fns = {"sin": jnp.sin, "tanh": jnp.tanh, "exp": jnp.exp, "scale": lambda y: y * SCALE}
    seq = [fns[name] for name in op_sequence()]

    def chain(x):
        for f in seq:
            x = f(x)
        return jnp.sum(x)

    grad = jax.jit(jax.grad(chain))
    x = jnp.asarray(data["x"])
    return lambda: jax.block_until_ready(grad(x))


def mlp_step(data):
    x, t = jnp.asarray(data["x"]), jnp.asarray(data["t"])

    @jax.jit
    def step(params):
        loss, grads = jax.value_and_grad(lambda p: _softmax_cross_entropy(_mlp(p, x, jax.nn.relu), t))(params)
        return loss, _sgd(params, grads)

    return _kept(step, _linear_params(data))


def mlp_adam_step(data):
    x, t = jnp.asarray(data["x"]), jnp.asarray(data["t"])

    @jax.jit
    def step(params, state):
        loss, grads = jax.value_and_grad(lambda p: _softmax_cross_entropy(_mlp(p, x, jax.nn.relu), t))(params)
        return (loss, *_adam(params, grads, state))

    params = _linear_params(data)
    return _kept(step, params, _adam_state(params))


def grad_penalty(data):
    x = jnp.asarray(data["x"])

    def loss_fn(params):
        def sum_out(x):
            out = _mlp(params, x, jnp.tanh)
            return jnp.sum(out), out

        gx, out = jax.grad(sum_out, has_aux=True)(x)
        norm = jnp.sqrt(jnp.sum(gx * gx, axis=1))
        return jnp.mean(out) + GP_LAMBDA * jnp.mean((norm - 1.0) ** 2)

    @jax.jit
    def step(params):
        loss, grads = jax.value_and_grad(loss_fn)(params)
        return loss, _sgd(params, grads)

    return _kept(step, _linear_params(data))


def _lstm(c, gates):
    """Chainer's ``F.lstm``: the gates of unit j interleaved in columns 4 j + (a, i, f, o)."""
    g = gates.reshape(gates.shape[0], -1, 4)
    a, i, f, o = jnp.tanh(g[..., 0]), *(jax.nn.sigmoid(g[..., k]) for k in (1, 2, 3))
    c = a * i + f * c
    return c, o * jnp.tanh(c)


def lstm_lm_step(data):
    tokens = jnp.asarray(data["tokens"])
    params = {k: jnp.asarray(v) for k, v in data.items() if k != "tokens"}
    batch, units = tokens.shape[1], data["lat0_W"].shape[1]

    def loss_fn(p, lstm_state):
        def one_step(lstm_state, xt):
            x, target = xt
            h = p["embed_W"][x]
            new_state = []
            for layer, (c, h_prev) in enumerate(lstm_state):
                gates = h @ p[f"up{layer}_W"].T + p[f"up{layer}_b"] + h_prev @ p[f"lat{layer}_W"].T
                c, h = _lstm(c, gates)
                new_state.append((c, h))
            loss = _softmax_cross_entropy(h @ p["out_W"].T + p["out_b"], target)
            return new_state, loss

        # the LM_BPTT time steps one after the other (lax.scan: compiled once, not unrolled)
        lstm_state, losses = jax.lax.scan(one_step, lstm_state, (tokens[:LM_BPTT], tokens[1 : LM_BPTT + 1]))
        return jnp.sum(losses), lstm_state

    @jax.jit
    def step(p, lstm_state):
        (loss, lstm_state), grads = jax.value_and_grad(loss_fn, has_aux=True)(p, lstm_state)
        # Chainer's GradientClipping to LM_CLIP, then SGD
        norm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree.leaves(grads)))
        return loss, _sgd(p, grads, LM_LR * jnp.minimum(1.0, LM_CLIP / norm)), lstm_state

    zeros = jnp.zeros((batch, units), jnp.float32)
    return _kept(step, params, [(zeros, zeros)] * LM_LAYERS)


def cnn_step(data):
    x, t = jnp.asarray(data["x"]), jnp.asarray(data["t"])
    params = {k: jnp.asarray(v) for k, v in data.items() if k not in ("x", "t")}

    def loss_fn(p):
        h = x
        for i in range(len(CNN_CHANNELS)):
            h = jax.lax.conv_general_dilated(h, p[f"conv{i}_W"], (1, 1), ((1, 1), (1, 1)))  # NCHW, OIHW
            h = jax.nn.relu(h + p[f"conv{i}_b"][:, None, None])
            h = jax.lax.reduce_window(h, -jnp.inf, jax.lax.max, (1, 1, 2, 2), (1, 1, 2, 2), "VALID")
        h = jax.nn.relu(h.reshape(len(h), -1) @ p["fc0_W"].T + p["fc0_b"])
        return _softmax_cross_entropy(h @ p["fc1_W"].T + p["fc1_b"], t)

    @jax.jit
    def step(p, state):
        loss, grads = jax.value_and_grad(loss_fn)(p)
        return (loss, *_adam(p, grads, state))

    return _kept(step, params, _adam_state(params))


CASES = {
    "per_op": per_op,
    "mlp_step": mlp_step,
    "grad_penalty": grad_penalty,
    "lstm_lm_step": lstm_lm_step,
    "cnn_step": cnn_step,
    "mlp_adam_step": mlp_adam_step,
}
