"""Benchmark cases written in fnet (run by worker.py in this interpreter).

Every case is a pure update, ``update(*state) -> (result, new_state)`` (``new_state`` a tuple
of the next call's arguments, or None where nothing changes), run by ``_repeated``: the case's
step calls it on the state kept from the call before. ``WRAP`` is applied to each update first:
the identity here; cases_captured.py sets it to ``fnet.capture``, so that the very same updates
are recorded once and replayed.
"""

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
    RESNET_LR,
    RESNET_MOMENTUM,
    SCALE,
    n_layers,
    op_sequence,
)

import fnet
import fnet.functions as F
import fnet.ops as fo

# The device the cases run on (use_device): the CPU unless the runner asks for a GPU.
DEVICE = fnet.backend.CPU

# Applied to every case's pure update when the case is built (cases_captured.py: fnet.capture).
WRAP = None


def _repeated(update, *state):
    """The step of a case: ``update`` (through ``WRAP``) on the state its last call returned."""
    update = update if WRAP is None else WRAP(update)
    box = [state]

    def step():
        result, new_state = update(*box[0])
        if new_state is not None:
            box[0] = new_state
        return result

    return step


def init(threads):
    return {"version": f"fnet {getattr(fnet, '__version__', 'dev')}, numpy {np.__version__}"}


def use_device(spec):
    """Run the cases on ``spec`` (e.g. '@cupy:0'): their arrays are sent there by ``prepare``."""
    global DEVICE
    DEVICE = fnet.backend.get_device(spec)
    cupy = DEVICE.xp
    cupy.cuda.Device(DEVICE.id).use()
    name = cupy.cuda.runtime.getDeviceProperties(DEVICE.id)["name"]
    name = name.decode() if isinstance(name, bytes) else name
    return {"device": f"{DEVICE}: {name}, CuPy {cupy.__version__}"}


def prepare(data):
    return fnet.backend.to_device(data, DEVICE)


def sync():
    if DEVICE is not fnet.backend.CPU:
        DEVICE.xp.cuda.Device(DEVICE.id).synchronize()


def to_numpy(result):
    return fnet.backend.to_cpu(result)


def mlp_params(data):
    """Nested dict {"l0": {"W": (in, out), "b": (out,)}, ...}."""
    return {
        f"l{i}": {"W": fnet.backend.xp(data["x"]).ascontiguousarray(data[f"W{i}"].T), "b": data[f"b{i}"]}
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


def linear_params(data):
    """Chainer's layout for ``F.linear``: {"l0": {"W": (out, in), "b": (out,)}, ...}."""
    return {f"l{i}": {"W": data[f"W{i}"], "b": data[f"b{i}"]} for i in range(n_layers(data))}


def linear_mlp_loss(params, x, t):
    """The ReLU MLP as a Chainer user writes it: F.linear, F.relu, F.softmax_cross_entropy."""
    n = len(params)
    for i in range(n):
        x = F.linear(x, params[f"l{i}"]["W"], params[f"l{i}"]["b"])
        if i < n - 1:
            x = F.relu(x)
    return F.softmax_cross_entropy(x, t)


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
    return _repeated(lambda x: (grad_chain(x), None), x)


def mlp_step(data):
    x, t = data["x"], data["t"].astype(np.int32)
    value_and_grad = fnet.value_and_grad(linear_mlp_loss)

    def update(params):
        loss, grads = value_and_grad(params, x, t)
        return loss, (sgd(params, grads),)

    return _repeated(update, linear_params(data))


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

    def update(params):
        loss, grads = value_and_grad(params, x)
        return loss, (sgd(params, grads),)

    return _repeated(update, mlp_params(data))


def softmax_xent(data):
    x, t = data["x"], data["t"]
    value_and_grad = fnet.value_and_grad(F.softmax_cross_entropy)
    return _repeated(lambda x: (value_and_grad(x, t)[0], None), x)


def lstm_lm_step(data):
    tokens = data["tokens"]
    params = {k: v for k, v in data.items() if k != "tokens"}
    batch, units = tokens.shape[1], data["lat0_W"].shape[1]
    zeros = fnet.backend.xp(tokens).zeros((batch, units), np.float32)

    def loss_fn(p, lstm_state):
        # Chainer's PTB example: per time step, embed -> LSTM -> LSTM -> linear -> softmax CE.
        loss = 0.0
        for t in range(LM_BPTT):
            h = F.embed_id(tokens[t], p["embed_W"])
            new_state = []
            for layer, (c, h_prev) in enumerate(lstm_state):
                gates = F.linear(h, p[f"up{layer}_W"], p[f"up{layer}_b"]) + F.linear(
                    h_prev, p[f"lat{layer}_W"]
                )
                c, h = F.lstm(c, gates)
                new_state.append((c, h))
            lstm_state = new_state
            loss = loss + F.softmax_cross_entropy(F.linear(h, p["out_W"], p["out_b"]), tokens[t + 1])
        return loss, lstm_state

    value_and_grad = fnet.value_and_grad(loss_fn, has_aux=True)

    def update(params, lstm_state):
        (loss, lstm_state), grads = value_and_grad(params, lstm_state)
        # Chainer's GradientClipping: scale all gradients by LM_CLIP / global norm when it is above
        # 1 (in array operations, not Python floats, so that a captured step can replay it)
        norm = fo.sqrt(sum(fo.sum(g * g) for g in fnet.tree.leaves(grads)))
        scale = fo.minimum(LM_CLIP / norm, 1.0) * -LM_LR
        return loss, (fnet.tree.map(lambda p, g: g * scale + p, params, grads), lstm_state)

    return _repeated(update, params, [(zeros, zeros)] * LM_LAYERS)


def adam(params, grads, state):
    """One step of Chainer's Adam as pure tree maps: the new params and the new state (whose step
    count ``t`` is an array, so that a captured step sees the same signature on every call)."""
    t = state["t"] + 1
    m = fnet.tree.map(lambda m, g: m + (1 - ADAM_BETA1) * (g - m), state["m"], grads)
    v = fnet.tree.map(lambda v, g: v + (1 - ADAM_BETA2) * (g * g - v), state["v"], grads)
    # in float64 (t is a float64 scalar array), then as the float32 that the product uses anyway
    alpha_t = fo.astype(ADAM_ALPHA * fo.sqrt(1 - ADAM_BETA2**t) / (1 - ADAM_BETA1**t), np.float32)
    params = fnet.tree.map(lambda p, m, v: p - alpha_t * m / (np.sqrt(v) + ADAM_EPS), params, m, v)
    return params, {"t": t, "m": m, "v": v}


def cnn_step(data):
    x, t = data["x"], data["t"]
    params = {k: v for k, v in data.items() if k not in ("x", "t")}

    def loss_fn(p):
        h = x
        for i in range(len(CNN_CHANNELS)):
            h = F.convolution_2d(h, p[f"conv{i}_W"], p[f"conv{i}_b"], pad=1)
            h = F.max_pooling_2d(F.relu(h), 2, stride=2)
        h = F.relu(F.linear(h, p["fc0_W"], p["fc0_b"]))  # linear flattens (n, c, h, w) to (n, c*h*w)
        return F.softmax_cross_entropy(F.linear(h, p["fc1_W"], p["fc1_b"]), t)

    value_and_grad = fnet.value_and_grad(loss_fn)
    zeros = fnet.tree.map(np.zeros_like, params)

    def update(params, adam_state):
        loss, grads = value_and_grad(params)
        return loss, adam(params, grads, adam_state)

    return _repeated(update, params, {"t": np.zeros((), np.float64), "m": zeros, "v": zeros})


def mlp_adam_step(data):
    x, t = data["x"], data["t"].astype(np.int32)

    def loss_fn(params, state, batch):
        return linear_mlp_loss(params, x, t), (state, {})

    adam = fnet.optim.Adam(alpha=ADAM_ALPHA, beta1=ADAM_BETA1, beta2=ADAM_BETA2, eps=ADAM_EPS)
    train_step = fnet.optim.make_train_step(loss_fn, adam)

    def update(params, adam_state):
        params, _, adam_state, metrics = train_step(params, None, adam_state, None)
        return metrics["loss"], (params, adam_state)

    params = linear_params(data)
    # the step count in an array: a captured update takes it as an input (the same bits as an int)
    return _repeated(update, params, adam.init(params).with_array_count())


def normal_elbo(data):
    from fnet import distributions as D  # noqa: PLC0415 - only this case needs it

    params = {"loc": data["loc"], "log_scale": data["log_scale"]}
    xp = fnet.backend.xp(data["loc"])
    prior = D.Normal(xp.zeros_like(data["loc"]), xp.ones_like(data["loc"]))

    def loss_fn(params, key):
        q = D.Normal(params["loc"], log_scale=params["log_scale"])
        z = q.sample(key)
        return fo.sum(q.log_prob(z)) + fo.sum(D.kl_divergence(q, prior))

    grad = fnet.grad(loss_fn)

    def update(key):
        key, subkey = fnet.random.split(key)
        g = grad(params, subkey)
        return fo.sum(g["loc"]) + fo.sum(g["log_scale"]), (key,)

    return _repeated(update, fnet.random.key(0))


def resnet50(data):
    """``fnet.nn.vision.ResNet50``, its params and its batch norms' state, with the shared weights
    (Chainer's npz keys: res2/a/conv1/W) in place of the drawn ones, on the device of ``x``."""
    from fnet.nn import vision  # noqa: PLC0415 - only the ResNet cases need it

    model = vision.ResNet50()
    params, state = model.init(fnet.random.key(0)), model.init_state()
    for key, array in data.items():
        if key not in ("x", "t"):
            *path, leaf = key.split("/")
            node = params
            for name in path:
                node = node[name]
            node[leaf] = array
    device = fnet.backend.get_device_from_array(data["x"])  # the batch norms' own arrays too
    params, state = fnet.backend.to_device((params, state), device)
    return model, params, state


def resnet50_infer(data):
    model, params, state = resnet50(data)

    def update(x):
        prob, _ = model.apply(params, x, state, train=False)
        return prob[:, 0], None  # one class: a probe that can differ

    return _repeated(update, data["x"])


def resnet50_step(data):
    model, params, state = resnet50(data)
    x, t = data["x"], data["t"]

    def loss_fn(params, state, batch):
        # the logits ('fc6'); in training mode the batch norms use the batch's statistics and
        # return their running averages updated
        out, state = model.extract(params, x, ("fc6",), state, train=True)
        return F.softmax_cross_entropy(out["fc6"], t), (state, {})

    momentum_sgd = fnet.optim.MomentumSGD(lr=RESNET_LR, momentum=RESNET_MOMENTUM)
    train_step = fnet.optim.make_train_step(loss_fn, momentum_sgd)

    def update(params, state, opt_state):
        params, state, opt_state, metrics = train_step(params, state, opt_state, None)
        return metrics["loss"], (params, state, opt_state)

    # the step count in an array, as in mlp_adam_step (a captured update takes it as an input)
    return _repeated(update, params, state, momentum_sgd.init(params).with_array_count())


CASES = {
    "per_op": per_op,
    "mlp_step": mlp_step,
    "grad_penalty": grad_penalty,
    "softmax_xent": softmax_xent,
    "lstm_lm_step": lstm_lm_step,
    "cnn_step": cnn_step,
    "mlp_adam_step": mlp_adam_step,
    "mlp_update": mlp_step,  # no optimizer.update(lossfun, ...) API: the same step
    "normal_elbo": normal_elbo,
    "resnet50_infer": resnet50_infer,
    "resnet50_step": resnet50_step,
}
