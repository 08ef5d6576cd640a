"""Benchmark cases written in Chainer (run by worker.py in .venvs/chainer)."""

import chainer
import chainer.functions as F
import chainer.links as L
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


def mlp_update(data):
    model = MLP(data, F.relu)
    opt = chainer.optimizers.SGD(lr=LR)
    opt.setup(model)
    x, t = data["x"], data["t"]

    last = {}

    def lossfun(x, t):
        last["loss"] = F.softmax_cross_entropy(model(x), t)
        return last["loss"]

    def step():
        opt.update(lossfun, x, t)
        return last["loss"]

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


def softmax_xent(data):
    x = chainer.Variable(data["x"])
    t = data["t"]

    def step():
        loss = F.softmax_cross_entropy(x, t)
        x.cleargrad()
        loss.backward()
        return loss

    return step


class RNNLM(chainer.Chain):
    """Chainer's PTB example model: EmbedID, stacked L.LSTM, Linear (no dropout)."""

    def __init__(self, data):
        super().__init__()
        vocab, units = data["embed_W"].shape
        with self.init_scope():
            self.embed = L.EmbedID(vocab, units, initialW=data["embed_W"])
            self.lstms = chainer.ChainList(*(L.LSTM(units, units) for _ in range(LM_LAYERS)))
            self.out = L.Linear(units, vocab, initialW=data["out_W"], initial_bias=data["out_b"])
        for layer, lstm in enumerate(self.lstms):
            lstm.upward.W.array[...] = data[f"up{layer}_W"]
            lstm.upward.b.array[...] = data[f"up{layer}_b"]
            lstm.lateral.W.array[...] = data[f"lat{layer}_W"]

    def forward(self, x):
        h = self.embed(x)
        for lstm in self.lstms:
            h = lstm(h)
        return self.out(h)


def lstm_lm_step(data):
    model = RNNLM(data)
    opt = chainer.optimizers.SGD(lr=LM_LR)
    opt.setup(model)
    opt.add_hook(chainer.optimizer_hooks.GradientClipping(LM_CLIP))
    tokens = data["tokens"]

    def step():
        # The PTB example's BPTT updater: one time step at a time, then cut the graph.
        loss = 0
        for t in range(LM_BPTT):
            loss += F.softmax_cross_entropy(model(tokens[t]), tokens[t + 1])
        model.cleargrads()
        loss.backward()
        loss.unchain_backward()
        opt.update()
        return loss

    return step


class ConvNet(chainer.Chain):
    """Convolution2D -> relu -> 2x2 max pooling blocks, then two Linear links, from the shared weights."""

    def __init__(self, data):
        super().__init__()
        with self.init_scope():
            self.convs = chainer.ChainList(
                *(
                    L.Convolution2D(
                        W.shape[1], W.shape[0], 3, pad=1, initialW=W, initial_bias=data[f"conv{i}_b"]
                    )
                    for i, W in enumerate(data[f"conv{i}_W"] for i in range(len(CNN_CHANNELS)))
                )
            )
            self.fc0 = L.Linear(
                *data["fc0_W"].shape[::-1], initialW=data["fc0_W"], initial_bias=data["fc0_b"]
            )
            self.fc1 = L.Linear(
                *data["fc1_W"].shape[::-1], initialW=data["fc1_W"], initial_bias=data["fc1_b"]
            )

    def forward(self, x):
        for conv in self.convs:
            x = F.max_pooling_2d(F.relu(conv(x)), 2, stride=2)
        return self.fc1(F.relu(self.fc0(x)))


def cnn_step(data):
    model = ConvNet(data)
    opt = chainer.optimizers.Adam(alpha=ADAM_ALPHA, beta1=ADAM_BETA1, beta2=ADAM_BETA2, eps=ADAM_EPS)
    opt.setup(model)
    x, t = data["x"], data["t"]

    def step():
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        opt.update()
        return loss

    return step


def mlp_adam_step(data):
    model = MLP(data, F.relu)
    opt = chainer.optimizers.Adam(alpha=ADAM_ALPHA, beta1=ADAM_BETA1, beta2=ADAM_BETA2, eps=ADAM_EPS)
    opt.setup(model)
    x, t = data["x"], data["t"]

    def step():
        loss = F.softmax_cross_entropy(model(x), t)
        model.cleargrads()
        loss.backward()
        opt.update()
        return loss

    return step


def normal_elbo(data):
    import chainer.distributions as D  # noqa: PLC0415 - only this case needs it

    loc, log_scale = chainer.Variable(data["loc"]), chainer.Variable(data["log_scale"])
    prior = D.Normal(np.zeros_like(data["loc"]), np.ones_like(data["loc"]))

    def step():
        q = D.Normal(loc, log_scale=log_scale)
        z = q.sample()
        loss = F.sum(q.log_prob(z)) + F.sum(chainer.kl_divergence(q, prior))
        loc.cleargrad()
        log_scale.cleargrad()
        loss.backward()
        return np.float32(loc.grad.sum() + log_scale.grad.sum())

    return step


def resnet50(data):
    """``L.ResNet50Layers`` with the shared weights copied in (by their npz keys)."""
    model = L.ResNet50Layers(pretrained_model=None)
    for name, param in model.namedparams():
        key = name.lstrip("/")
        if key in data:
            param.array[...] = data[key]
    return model


def resnet50_infer(data):
    model = resnet50(data)
    x = data["x"]

    def step():
        with chainer.using_config("train", False), chainer.no_backprop_mode():
            return model(x, layers=["prob"])["prob"][:, 0]  # one class: a probe that can differ

    return step


def resnet50_step(data):
    model = resnet50(data)
    opt = chainer.optimizers.MomentumSGD(lr=RESNET_LR, momentum=RESNET_MOMENTUM)
    opt.setup(model)
    x, t = data["x"], data["t"]

    def step():
        # training mode (the default): batch statistics, running averages updated
        loss = F.softmax_cross_entropy(model(x, layers=["fc6"])["fc6"], t)
        model.cleargrads()
        loss.backward()
        opt.update()
        return loss

    return step


CASES = {
    "per_op": per_op,
    "mlp_step": mlp_step,
    "grad_penalty": grad_penalty,
    "softmax_xent": softmax_xent,
    "lstm_lm_step": lstm_lm_step,
    "cnn_step": cnn_step,
    "mlp_adam_step": mlp_adam_step,
    "mlp_update": mlp_update,
    "normal_elbo": normal_elbo,
    "resnet50_infer": resnet50_infer,
    "resnet50_step": resnet50_step,
}
