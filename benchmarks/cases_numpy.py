"""A reference written by hand in NumPy, with no framework: what the work itself costs here.

``lstm_lm_step``: the same per-time-step forward pass as the other frameworks,
and a backward pass as cheap as that program allows (the products of the output layer and
of every weight's gradient batched over the time steps, which a tape of the per-step program
can do at best). Its time is a floor for any framework running the program on NumPy's BLAS.

``normal_elbo``: the Normals' sample, log-density and KL, with their gradient derived by hand.

``cnn_step``: the ConvNet's forward and backward passes and Adam, with the activations kept
channel-major ``(channels, batch, h, w)`` from layer to layer, so that every convolution is one
matrix product over im2col patches with no transpose of its input or output, and max pooling
strided views of the convolution's output. A floor for a framework whose convolutions are
im2col + BLAS on NumPy.

``grad_penalty``: the two-layer tanh critic's input gradient, and the gradient of its norm's
penalty with respect to the weights (double backprop) derived by hand.
"""

import math

import numpy as np
from shared import (
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
)


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


def _patches(x):
    """The 3x3 patches (pad 1) of channel-major images ``x`` ``(c, n, h, w)`` as the matrix
    ``(c * 9, n * h * (w + 2))``. Every image is zero-padded and flattened, and each kernel offset
    copies one contiguous run of it: the patches of the positions over the whole padded width
    (two columns too many, which every later step ignores), in long runs rather than rows of w."""
    c, n, h, w = x.shape
    flat = np.zeros((c, n, (h + 2) * (w + 2) + 2), x.dtype)  # + 2: the last offset's run
    flat[:, :, : (h + 2) * (w + 2)].reshape(c, n, h + 2, w + 2)[:, :, 1:-1, 1:-1] = x
    span = h * (w + 2)
    col = np.empty((c, 9, n, span), x.dtype)
    for k in range(9):
        start = (k // 3) * (w + 2) + k % 3
        col[:, k] = flat[:, :, start : start + span]
    return col.reshape(c * 9, n * span)


def _add_patches(col, shape):
    """The transpose of ``_patches``: the patches added back into images of ``shape`` ``(c, n, h,
    w)`` (a view into the padded sum)."""
    c, n, h, w = shape
    span = h * (w + 2)
    col = col.reshape(c, 9, n, span)
    flat = np.zeros((c, n, (h + 2) * (w + 2) + 2), col.dtype)
    for k in range(9):
        start = (k // 3) * (w + 2) + k % 3
        flat[:, :, start : start + span] += col[:, k]
    return flat[:, :, : (h + 2) * (w + 2)].reshape(c, n, h + 2, w + 2)[:, :, 1:-1, 1:-1]


def _window_views(y, w):
    """The elements at each of the four offsets of the 2x2 windows (stride 2) over the first ``w``
    columns of ``y`` ``(c, n, h, w + 2)``: four strided views ``(c, n, h / 2, w / 2)``, row-major."""
    return [y[:, :, i::2, j:w:2] for i in (0, 1) for j in (0, 1)]


def cnn_step(data):
    """Per layer: ``z = W @ patches(x) + b``, ``relu`` in place, the maximum of each 2x2 window;
    then ``relu(h @ W0.T + b0) @ W1.T + b1``, softmax cross entropy, and Chainer's Adam in place.
    The backward pass sends each pooled gradient to the first maximum of its window, times relu's
    derivative there (``pooled > 0``, computed on the pooled, quarter-sized array)."""
    x = np.ascontiguousarray(data["x"].swapaxes(0, 1))  # channel-major, as every layer keeps it
    t = data["t"]
    n = len(t)
    rows = np.arange(n)
    params = {k: v.copy() for k, v in data.items() if k not in ("x", "t")}
    # the filters as matrices (o, c * 9): views of the parameters, so the Adam step updates them
    filters = [params[f"conv{i}_W"].reshape(len(params[f"conv{i}_W"]), -1) for i in range(len(CNN_CHANNELS))]
    m = {k: np.zeros_like(v) for k, v in params.items()}
    v = {k: np.zeros_like(v) for k, v in params.items()}
    state = {"t": 0}

    def step():
        p = params
        # forward: keep each layer's patches, its output and its pooled output
        kept, h = [], x
        for i, W in enumerate(filters):
            c, _, height, width = h.shape
            col = _patches(h)
            z = W @ col
            z += p[f"conv{i}_b"][:, None]
            np.maximum(z, 0, out=z)
            z = z.reshape(len(W), n, height, width + 2)
            v00, v01, v10, v11 = _window_views(z, width)
            pooled = np.maximum(v00, v01)
            pooled = np.maximum(pooled, np.maximum(v10, v11), out=pooled)
            kept.append((col, z, pooled, h.shape))
            h = pooled
        flat = np.ascontiguousarray(h.swapaxes(0, 1)).reshape(n, -1)  # Chainer's (n, c * h * w)
        a = flat @ p["fc0_W"].T
        a += p["fc0_b"]
        r = np.maximum(a, 0)
        s = r @ p["fc1_W"].T
        s += p["fc1_b"]
        s -= s.max(axis=1, keepdims=True)
        e = np.exp(s)
        total = e.sum(axis=1)
        loss = np.float32(np.mean(np.log(total) - s[rows, t]))

        # backward
        g = {}
        g_s = e / (n * total[:, None])
        g_s[rows, t] -= np.float32(1 / n)
        g["fc1_W"], g["fc1_b"] = g_s.T @ r, g_s.sum(axis=0)
        g_a = g_s @ p["fc1_W"]
        g_a *= a > 0
        g["fc0_W"], g["fc0_b"] = g_a.T @ flat, g_a.sum(axis=0)
        g_h = (g_a @ p["fc0_W"]).reshape(n, *h.shape[:1], *h.shape[2:]).swapaxes(0, 1)
        for i in reversed(range(len(filters))):
            col, z, pooled, shape = kept[i]
            g_pooled = g_h * (pooled > 0)
            g_z = np.zeros_like(z)  # zero on the two extra columns
            pending = None  # the windows whose first maximum is still to be found
            for view, target in zip(_window_views(z, shape[3]), _window_views(g_z, shape[3])):
                hit = view == pooled
                if pending is None:
                    pending = ~hit
                else:
                    hit &= pending
                    pending ^= hit
                np.multiply(hit, g_pooled, out=target)
            g_z = g_z.reshape(len(z), -1)
            g[f"conv{i}_W"] = (g_z @ col.T).reshape(p[f"conv{i}_W"].shape)
            g[f"conv{i}_b"] = g_z.sum(axis=1)
            if i:
                g_h = _add_patches(filters[i].T @ g_z, shape)

        # Chainer's Adam, in place
        state["t"] += 1
        step_t = state["t"]
        alpha_t = ADAM_ALPHA * math.sqrt(1 - ADAM_BETA2**step_t) / (1 - ADAM_BETA1**step_t)
        for k, param in p.items():
            grad, mk, vk = g[k], m[k], v[k]
            mk += (1 - ADAM_BETA1) * (grad - mk)
            vk += (1 - ADAM_BETA2) * (grad * grad - vk)
            param -= alpha_t * mk / (np.sqrt(vk) + ADAM_EPS)
        return loss

    return step


def grad_penalty(data):
    """``loss = mean(f(x)) + GP_LAMBDA * mean((|df/dx| - 1) ** 2)`` for the critic
    ``f(x) = tanh(x @ W0.T + b0) @ W1.T + b1`` with one output, and an SGD step on its gradient.

    With ``h = tanh(a)``, ``a = x @ W0.T + b0`` and ``s = 1 - h * h``, the critic's input gradient
    is ``gx = u @ W0`` with ``u = W1[0] * s``. For ``G``, the penalty's gradient in ``gx``, and
    ``Gu = G @ W0.T``: ``W0`` gets ``u.T @ G`` from the product and ``d.T @ x`` through ``a``,
    where ``d = s * (W1[0] / n - 2 h * Gu * W1[0])`` (the penalty through ``s``, plus the mean of
    the outputs); ``W1[0]`` gets ``sum(Gu * s) + sum(h) / n``.
    """
    assert sum(1 for k in data if k.startswith("W")) == 2 and data["b1"].shape == (1,), (
        "two layers, one output"
    )
    x = data["x"]
    n = len(x)
    params = {k: data[k].copy() for k in ("W0", "b0", "W1", "b1")}

    def step():
        W0, b0, W1, b1 = (params[k] for k in ("W0", "b0", "W1", "b1"))
        h = np.tanh(x @ W0.T + b0)
        out = h @ W1.T + b1
        s = 1 - h * h
        u = W1[0] * s
        gx = u @ W0
        norm = np.sqrt(np.sum(gx * gx, axis=1))
        loss = np.float32(out.mean() + GP_LAMBDA * np.mean((norm - 1) ** 2))

        G = gx * (2 * GP_LAMBDA / n * (norm - 1) / norm)[:, None]
        Gu = G @ W0.T
        d = s * (W1[0] / n - 2 * h * Gu * W1[0])
        grads = {
            "W0": u.T @ G + d.T @ x,
            "b0": d.sum(axis=0),
            "W1": (np.sum(Gu * s, axis=0) + h.sum(axis=0) / n)[None],
            "b1": np.full(1, 1, np.float32),  # d mean(out) / d b1
        }
        for k, g in grads.items():
            params[k] += g * np.float32(-LR)
        return loss

    return step


CASES = {
    "lstm_lm_step": lstm_lm_step,
    "normal_elbo": normal_elbo,
    "cnn_step": cnn_step,
    "grad_penalty": grad_penalty,
}
