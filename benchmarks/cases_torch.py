"""Benchmark cases written in PyTorch (run by worker.py in .venvs/torch)."""

import numpy as np
import torch
import torch.nn.functional as F
from shared import GP_LAMBDA, LR, SCALE, n_layers, op_sequence


def init(threads):
    torch.set_num_threads(threads)
    torch.set_num_interop_threads(threads)
    return {
        "version": f"torch {torch.__version__}, numpy {np.__version__}",
        "torch_threads": torch.get_num_threads(),
    }


def to_numpy(result):
    return result.detach().numpy()


class MLP(torch.nn.Module):
    """Linear layers from the shared (out, in) weights, ``act`` between."""

    def __init__(self, data, act):
        super().__init__()
        layers = []
        for i in range(n_layers(data)):
            W, b = data[f"W{i}"], data[f"b{i}"]
            layer = torch.nn.Linear(W.shape[1], W.shape[0])
            with torch.no_grad():
                layer.weight.copy_(torch.from_numpy(W))
                layer.bias.copy_(torch.from_numpy(b))
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
    x = torch.from_numpy(data["x"]).requires_grad_()

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
    x = torch.from_numpy(data["x"])
    t = torch.from_numpy(data["t"].astype(np.int64))

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
    x = torch.from_numpy(data["x"]).requires_grad_()

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


CASES = {"per_op": per_op, "mlp_step": mlp_step, "grad_penalty": grad_penalty}
