"""Benchmark cases written in PyTorch (run by worker.py in .venvs/torch)."""

import numpy as np
import torch
import torch.nn.functional as F
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
    RESNET_BLOCKS,
    RESNET_BN_EPS,
    RESNET_LR,
    RESNET_MOMENTUM,
    SCALE,
    n_layers,
    op_sequence,
)

# no peak memory from tracemalloc (worker.py)
UNTRACED_MEMORY = "PyTorch's tensors come from its own allocator (c10), which tracemalloc does not see"


def init(threads):
    if threads is not None:  # None: PyTorch's own defaults
        torch.set_num_threads(threads)
        torch.set_num_interop_threads(threads)
    return {
        "version": f"torch {torch.__version__}, numpy {np.__version__}",
        "torch_threads": torch.get_num_threads(),
    }


# The device the cases run on (use_device): "cpu" unless the runner asks for a GPU.
DEVICE = "cpu"


def use_device(spec):
    """Run the cases on the CUDA device of ``spec`` ('@cupy:N' names CUDA device N)."""
    global DEVICE
    DEVICE = f"cuda:{int(spec.partition(':')[2] or 0)}"
    torch.cuda.set_device(DEVICE)
    torch.set_default_device(DEVICE)  # modules and torch.zeros are made there
    return {"device": f"{DEVICE}: {torch.cuda.get_device_name(DEVICE)}, CUDA {torch.version.cuda}"}


def sync():
    if DEVICE != "cpu":
        torch.cuda.synchronize()


def tensor(array):
    """A tensor of the NumPy ``array`` on the device the cases run on."""
    return torch.from_numpy(array).to(DEVICE)


def to_numpy(result):
    return result.detach().cpu().numpy()


class MLP(torch.nn.Module):
    """Linear layers from the shared (out, in) weights, ``act`` between."""

    def __init__(self, data, act):
        super().__init__()
        layers = []
        for i in range(n_layers(data)):
            W, b = data[f"W{i}"], data[f"b{i}"]
            layer = torch.nn.Linear(W.shape[1], W.shape[0])
            with torch.no_grad():
                layer.weight.copy_(tensor(W))
                layer.bias.copy_(tensor(b))
            layers.append(layer)
        self.layers = torch.nn.ModuleList(layers)
        self.act = act

    def forward(self, x):
        for layer in self.layers[:-1]:
            x = self.act(layer(x))
        return self.layers[-1](x)


def per_op(data):
    fns = {"sin": torch.sin, "tanh": torch.tanh, "exp": torch.exp, "scale": lambda y: y * SCALE}
    seq = [fns[name] for name in op_sequence()]
    x = tensor(data["x"]).requires_grad_()

    def step():
        y = x
        for f in seq:
            y = f(y)
        s = y.sum()
        x.grad = None
        s.backward()
        return x.grad

    return step


def mlp_step(data):
    model = MLP(data, torch.relu)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    x = tensor(data["x"])
    t = tensor(data["t"].astype(np.int64))

    def step():
        loss = F.cross_entropy(model(x), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def grad_penalty(data):
    model = MLP(data, torch.tanh)
    opt = torch.optim.SGD(model.parameters(), lr=LR)
    params = list(model.parameters())
    x = tensor(data["x"]).requires_grad_()

    def step():
        out = model(x)
        (gx,) = torch.autograd.grad(out.sum(), x, create_graph=True)
        norm = (gx * gx).sum(1).sqrt()
        loss = out.mean() + GP_LAMBDA * ((norm - 1.0) ** 2).mean()
        opt.zero_grad()
        # Gradients w.r.t. the weights only (not x).
        loss.backward(inputs=params)
        opt.step()
        return loss

    return step


def softmax_xent(data):
    x = tensor(data["x"]).requires_grad_()
    t = tensor(data["t"].astype(np.int64))

    def step():
        loss = F.cross_entropy(x, t)
        x.grad = None
        loss.backward()
        return loss

    return step


def chainer_gates_to_torch(w):
    """Rows of Chainer's LSTM layout (unit-major, gates a, i, f, o) in PyTorch's (gate blocks i, f, g, o)."""
    units = w.shape[0] // 4
    blocks = w.reshape(units, 4, *w.shape[1:])[:, [1, 2, 0, 3]]
    return np.ascontiguousarray(np.swapaxes(blocks, 0, 1).reshape(w.shape))


class RNNLM(torch.nn.Module):
    """Embedding, stacked nn.LSTMCell, Linear, from the shared weights (bias_hh zero, frozen)."""

    def __init__(self, data):
        super().__init__()
        vocab, units = data["embed_W"].shape
        self.embed = torch.nn.Embedding(vocab, units)
        self.cells = torch.nn.ModuleList(torch.nn.LSTMCell(units, units) for _ in range(LM_LAYERS))
        self.out = torch.nn.Linear(units, vocab)
        with torch.no_grad():
            self.embed.weight.copy_(tensor(data["embed_W"]))
            for layer, cell in enumerate(self.cells):
                cell.weight_ih.copy_(tensor(chainer_gates_to_torch(data[f"up{layer}_W"])))
                cell.bias_ih.copy_(tensor(chainer_gates_to_torch(data[f"up{layer}_b"])))
                cell.weight_hh.copy_(tensor(chainer_gates_to_torch(data[f"lat{layer}_W"])))
                cell.bias_hh.zero_()
                cell.bias_hh.requires_grad_(False)  # Chainer's lateral link has no bias
            self.out.weight.copy_(tensor(data["out_W"]))
            self.out.bias.copy_(tensor(data["out_b"]))

    def forward(self, x, state):
        h = self.embed(x)
        new_state = []
        for cell, hc in zip(self.cells, state):
            h, c = cell(h, hc)
            new_state.append((h, c))
        return self.out(h), new_state


def lstm_lm_step(data):
    model = RNNLM(data)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=LM_LR)
    tokens = tensor(data["tokens"].astype(np.int64))
    zeros = torch.zeros(tokens.shape[1], model.out.in_features)
    carried = {"state": [(zeros, zeros)] * LM_LAYERS}

    def step():
        # nn.LSTMCell one time step at a time, as Chainer's PTB example; then cut the graph.
        state = carried["state"]
        loss = 0
        for t in range(LM_BPTT):
            y, state = model(tokens[t], state)
            loss = loss + F.cross_entropy(y, tokens[t + 1])
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, LM_CLIP)
        opt.step()
        carried["state"] = [(h.detach(), c.detach()) for h, c in state]
        return loss

    return step


class ConvNet(torch.nn.Module):
    """Conv2d -> relu -> 2x2 max pooling blocks, then two Linear modules, from the shared weights."""

    def __init__(self, data):
        super().__init__()
        convs = []
        for i in range(len(CNN_CHANNELS)):
            W = tensor(data[f"conv{i}_W"])
            conv = torch.nn.Conv2d(W.shape[1], W.shape[0], 3, padding=1)
            with torch.no_grad():
                conv.weight.copy_(W)
                conv.bias.copy_(tensor(data[f"conv{i}_b"]))
            convs.append(conv)
        self.convs = torch.nn.ModuleList(convs)
        self.fcs = torch.nn.ModuleList()
        for i in range(2):
            W = tensor(data[f"fc{i}_W"])
            fc = torch.nn.Linear(W.shape[1], W.shape[0])
            with torch.no_grad():
                fc.weight.copy_(W)
                fc.bias.copy_(tensor(data[f"fc{i}_b"]))
            self.fcs.append(fc)

    def forward(self, x):
        for conv in self.convs:
            x = F.max_pool2d(torch.relu(conv(x)), 2, stride=2)
        return self.fcs[1](torch.relu(self.fcs[0](x.flatten(1))))


def cnn_step(data):
    model = ConvNet(data)
    # PyTorch's Adam adds eps to sqrt(v / (1 - beta2^t)) where Chainer adds it to sqrt(v): the
    # same step up to a rescaled eps, which is negligible next to sqrt(v) here.
    opt = torch.optim.Adam(model.parameters(), lr=ADAM_ALPHA, betas=(ADAM_BETA1, ADAM_BETA2), eps=ADAM_EPS)
    x = tensor(data["x"])
    t = tensor(data["t"].astype(np.int64))

    def step():
        loss = F.cross_entropy(model(x), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def mlp_adam_step(data):
    model = MLP(data, torch.relu)
    # eps is added to sqrt(v / (1 - beta2^t)) here, to sqrt(v) in Chainer: see cnn_step
    opt = torch.optim.Adam(model.parameters(), lr=ADAM_ALPHA, betas=(ADAM_BETA1, ADAM_BETA2), eps=ADAM_EPS)
    x = tensor(data["x"])
    t = tensor(data["t"].astype(np.int64))

    def step():
        loss = F.cross_entropy(model(x), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss

    return step


def normal_elbo(data):
    loc = tensor(data["loc"]).requires_grad_()
    log_scale = tensor(data["log_scale"]).requires_grad_()
    prior = torch.distributions.Normal(torch.zeros_like(loc), torch.ones_like(loc))

    def step():
        q = torch.distributions.Normal(loc, log_scale.exp())
        z = q.rsample()
        loss = q.log_prob(z).sum() + torch.distributions.kl_divergence(q, prior).sum()
        loc.grad = log_scale.grad = None
        loss.backward()
        return loc.grad.sum() + log_scale.grad.sum()

    return step


class _Bottleneck(torch.nn.Module):
    """Chainer's BottleneckA (with the projection ``conv4``) or BottleneckB, stride on conv1."""

    def __init__(self, in_ch, mid, out, stride, project):
        super().__init__()

        def conv(i, o, k, s, p):
            return torch.nn.Conv2d(i, o, k, s, p, bias=False)

        def bn(c):
            return torch.nn.BatchNorm2d(c, eps=RESNET_BN_EPS)

        self.conv1, self.bn1 = conv(in_ch, mid, 1, stride, 0), bn(mid)
        self.conv2, self.bn2 = conv(mid, mid, 3, 1, 1), bn(mid)
        self.conv3, self.bn3 = conv(mid, out, 1, 1, 0), bn(out)
        self.conv4 = conv(in_ch, out, 1, stride, 0) if project else None
        self.bn4 = bn(out) if project else None

    def forward(self, x):
        h = F.relu(self.bn1(self.conv1(x)))
        h = F.relu(self.bn2(self.conv2(h)))
        h = self.bn3(self.conv3(h))
        return F.relu(h + (self.bn4(self.conv4(x)) if self.conv4 is not None else x))


class ResNet50(torch.nn.Module):
    """ResNet-50 in Chainer's ResNet50Layers layout, its modules named by Chainer's keys."""

    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 64, 7, 2, 3)
        self.bn1 = torch.nn.BatchNorm2d(64, eps=RESNET_BN_EPS)
        in_ch = 64
        for stage, (blocks, mid) in enumerate(zip(RESNET_BLOCKS, (64, 128, 256, 512)), start=2):
            layers = torch.nn.Module()
            for i in range(blocks):
                stride = 1 if stage == 2 or i > 0 else 2
                block = _Bottleneck(in_ch if i == 0 else 4 * mid, mid, 4 * mid, stride, i == 0)
                layers.add_module("a" if i == 0 else f"b{i}", block)
            setattr(self, f"res{stage}", layers)
            in_ch = 4 * mid
        self.fc6 = torch.nn.Linear(2048, 1000)

    def logits(self, x):
        """The scores before the softmax (Chainer's 'fc6')."""
        h = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 3, 2, ceil_mode=True)  # Chainer's cover_all
        for stage in range(2, 6):
            for block in getattr(self, f"res{stage}").children():
                h = block(h)
        return self.fc6(h.mean(dim=(2, 3)))

    def forward(self, x):
        return F.softmax(self.logits(x), dim=1)


def resnet50(data):
    """``ResNet50`` on the device, with the shared weights copied in (by Chainer's npz keys)."""
    model = ResNet50().to(DEVICE)
    params = dict(model.named_parameters())
    with torch.no_grad():
        for key, array in data.items():
            if key not in ("x", "t"):
                *path, leaf = key.split("/")
                params[".".join([*path, {"W": "weight", "b": "bias"}[leaf]])].copy_(tensor(array))
    return model


def resnet50_infer(data):
    model = resnet50(data).eval()
    x = tensor(data["x"])

    def step():
        with torch.no_grad():
            return model(x)[:, 0]  # one class: a probe that can differ

    return step


def resnet50_step(data):
    # training mode: batch statistics, running averages with momentum 0.1 (Chainer's decay 0.9)
    model = resnet50(data).train()
    # PyTorch's momentum keeps b = momentum b + g and steps p -= lr b, where Chainer keeps
    # v = momentum v - lr g and steps p += v: with a constant lr, v = -lr b at every step, so
    # the parameters follow the same trajectory
    opt = torch.optim.SGD(model.parameters(), lr=RESNET_LR, momentum=RESNET_MOMENTUM)
    x = tensor(data["x"])
    t = tensor(data["t"].astype(np.int64))

    def step():
        loss = F.cross_entropy(model.logits(x), t)
        opt.zero_grad()
        loss.backward()
        opt.step()
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
    "mlp_update": mlp_step,  # no optimizer.update(lossfun, ...) API: the same step
    "normal_elbo": normal_elbo,
    "resnet50_infer": resnet50_infer,
    "resnet50_step": resnet50_step,
}
