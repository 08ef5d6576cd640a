"""A reference written by hand in NumPy, with no framework: what the work itself costs here.

``lstm_lm_step``: the same per-time-step forward pass as the other frameworks,
and a backward pass as cheap as that program allows (the products of the output layer and
of every weight's gradient batched over the time steps, which a tape of the per-step program
can do at best). Its time is a floor for any framework running the program on NumPy's BLAS.

``normal_elbo``: the Normals' sample, log-density and KL, with their gradient derived by hand.
"""

import numpy as np
from shared import LM_BPTT, LM_CLIP, LM_LAYERS, LM_LR


def init(threads):
    return {"version": f"hand-written, numpy {np.__version__}"}


def to_numpy(result):
    return np.asarray(result)


def _sigmoid(x):
    return 0.5 * np.tanh(0.5 * x) + 0.5


def _lstm_forward(x, c_prev, h_prev, W_up, b_up, W_lat):
    """One step of Chainer's ``L.LSTM``: gates ``a, i, f, o`` interleaved per unit."""
    gates = x @ W_up.T + b_up + h_prev @ W_lat.T
    gates = gates.reshape(len(x), -1, 4)
    a, i, f, o = (
        np.tanh(gates[..., 0]),
        _sigmoid(gates[..., 1]),
        _sigmoid(gates[..., 2]),
        _sigmoid(gates[..., 3]),
    )
    c = a * i + f * c_prev
    tanh_c = np.tanh(c)
    return c, o * tanh_c, (a, i, f, o, c_prev, tanh_c)


def _lstm_backward(gh, gc, kept):
    """The gradients of the gate input and of ``c_prev`` from those of ``h`` and ``c``."""
    a, i, f, o, c_prev, tanh_c = kept
    gc = gc + gh * o * (1 - tanh_c * tanh_c)
    go = gh * tanh_c
    grad = np.stack(
        [gc * i * (1 - a * a), gc * a * i * (1 - i), gc * c_prev * f * (1 - f), go * o * (1 - o)], axis=2
    )
    return grad.reshape(len(gh), -1), gc * f


def lstm_lm_step(data):
    tokens = data["tokens"]
    params = {k: v for k, v in data.items() if k != "tokens"}
    batch, units = tokens.shape[1], data["lat0_W"].shape[1]
    vocab = data["out_W"].shape[0]
    rows = np.arange(batch) * vocab
    ones = np.ones(vocab, np.float32)
    zeros = np.zeros((batch, units), np.float32)
    state = {"params": params, "lstm": [(zeros, zeros)] * LM_LAYERS}

    def step():
        p, lstm_state = state["params"], state["lstm"]
        inputs = [[] for _ in range(LM_LAYERS)]  # per layer: (x_t, h_prev_t) for the weight gradients
        kept = [[] for _ in range(LM_LAYERS)]
        tops, scores = [], []
        loss = 0.0
        for t in range(LM_BPTT):
            h = p["embed_W"][tokens[t]]
            new_state = []
            for layer, (c, h_prev) in enumerate(lstm_state):
                inputs[layer].append((h, h_prev))
                c, h, cell = _lstm_forward(
                    h, c, h_prev, p[f"up{layer}_W"], p[f"up{layer}_b"], p[f"lat{layer}_W"]
                )
                kept[layer].append(cell)
                new_state.append((c, h))
            lstm_state = new_state
            y = h @ p["out_W"].T
            y += p["out_b"]
            with np.errstate(over="ignore"):
                e = np.exp(y)  # unshifted while the row sums stay finite, as fnet does
            s = e @ ones
            if not np.isfinite(s).all():
                e = np.exp(y - y.max(axis=1, keepdims=True))
                s = e @ ones
            loss += float(np.log(s / e.ravel()[rows + tokens[t + 1]]).sum()) / batch
            tops.append(h)
            scores.append((e, s))
        state["lstm"] = lstm_state

        # Backward: the output layer's products at once, over all time steps.
        g_ys = []
        for t, (e, s) in enumerate(scores):
            g_y = e * (1 / (batch * s))[:, None]
            g_y.ravel()[rows + tokens[t + 1]] -= 1 / batch
            g_ys.append(g_y)
        g_y = np.concatenate(g_ys)
        grads = {"out_W": g_y.T @ np.concatenate(tops), "out_b": g_y.sum(axis=0)}
        g_h = (g_y @ p["out_W"]).reshape(LM_BPTT, batch, units)
        g_gates = [[None] * LM_BPTT for _ in range(LM_LAYERS)]
        g_embedded = np.empty((LM_BPTT, batch, units), np.float32)
        g_h_next = [zeros] * LM_LAYERS
        g_c_next = [zeros] * LM_LAYERS
        for t in reversed(range(LM_BPTT)):
            g_from_above = g_h[t]
            for layer in reversed(range(LM_LAYERS)):
                g, g_c_next[layer] = _lstm_backward(
                    g_from_above + g_h_next[layer], g_c_next[layer], kept[layer][t]
                )
                g_gates[layer][t] = g
                g_h_next[layer] = g @ p[f"lat{layer}_W"]
                g_from_above = g @ p[f"up{layer}_W"]
            g_embedded[t] = g_from_above
        for layer in range(LM_LAYERS):
            g = np.concatenate(g_gates[layer])
            xs, h_prevs = zip(*inputs[layer])
            grads[f"up{layer}_W"] = g.T @ np.concatenate(xs)
            grads[f"up{layer}_b"] = g.sum(axis=0)
            grads[f"lat{layer}_W"] = g.T @ np.concatenate(h_prevs)
        grads["embed_W"] = np.zeros_like(p["embed_W"])
        np.add.at(grads["embed_W"], tokens[:LM_BPTT].ravel(), g_embedded.reshape(-1, units))

        # Chainer's GradientClipping, then SGD.
        norm = sum(float(np.vdot(g, g)) for g in grads.values()) ** 0.5
        scale = -LM_LR * min(1.0, LM_CLIP / norm)
        state["params"] = {k: grads[k] * scale + v for k, v in p.items()}
        return np.float32(loss)

    return step


def normal_elbo(data):
    """The sample, log-density and KL of the diagonal Normals, and their gradient by hand."""
    loc, log_scale = data["loc"], data["log_scale"]
    rng = np.random.default_rng(0)
    half_log_2pi = np.float32(0.5 * np.log(2 * np.pi))
    state = {}

    def step():
        eps = rng.standard_normal(loc.shape, dtype=np.float32)
        scale = np.exp(log_scale)
        z = loc + scale * eps
        u = (z - loc) / scale
        log_q = np.sum(-log_scale - 0.5 * u * u - half_log_2pi)
        state["loss"] = log_q + np.sum(-log_scale + 0.5 * (scale * scale + loc * loc) - 0.5)
        # log q(z): d/dz = -u / scale, reaching loc through dz/dloc = 1 and log_scale through
        # dz/dlog_scale = scale * eps; the KL: loc, and scale**2 - 1
        g_z = -u / scale
        g_loc = g_z + u / scale + loc
        g_log_scale = g_z * scale * eps - 1 + u * u - 1 + scale * scale
        return np.float32(g_loc.sum() + g_log_scale.sum())

    return step


CASES = {"lstm_lm_step": lstm_lm_step, "normal_elbo": normal_elbo}
