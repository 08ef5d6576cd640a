"""Case definitions shared by every framework: sizes, constants and data.

Imports numpy only (no deep-learning framework), so it is safe to use from
the runner and from each worker.  The runner calls :func:`make_data` once
per case and hands the same arrays (saved as ``.npz``) to every worker, so
all frameworks start from bit-identical weights and inputs.
"""

import numpy as np

SEED = 20240601

# (a) per_op: a chain of N_OPS elementwise ops on a (PER_OP_SIZE,) vector.
PER_OP_SIZE = 10
N_OPS = 200
# Applied in this order, cyclically; "scale" multiplies by SCALE.  The cycle
# sin -> tanh -> exp -> *1.2 settles on a fixed point near 2.3, so values stay
# finite, and its derivative there is about -0.83, so the input gradient
# shrinks only slowly (about 1e-4 after 200 ops: no float32 denormals, which
# would slow some frameworks down) and float32 rounding is not amplified.
OP_CYCLE = ("sin", "tanh", "exp", "scale")
SCALE = 1.2

# (b) mlp_step: 784-1000-1000-10 ReLU MLP, softmax cross entropy, SGD.
MLP_SIZES = (784, 1000, 1000, 10)
MLP_BATCH = 100
LR = 0.01

# (c) grad_penalty: 784-100-1 tanh MLP with a WGAN-GP style penalty.
GP_SIZES = (784, 100, 1)
GP_BATCH = 32
GP_LAMBDA = 10.0


def op_sequence():
    """The N_OPS op names of the per_op chain, in order."""
    return [OP_CYCLE[i % len(OP_CYCLE)] for i in range(N_OPS)]


def _sizes(sizes):
    return "-".join(map(str, sizes))


# name -> (unit shown, factor turning seconds-per-rep into that unit, text)
CASES = {
    "per_op": (
        "us/op",
        1e6 / N_OPS,
        f"fwd+bwd of {N_OPS} elementwise ops on a ({PER_OP_SIZE},) float32 vector",
    ),
    "mlp_step": (
        "ms/step",
        1e3,
        f"{_sizes(MLP_SIZES)} ReLU MLP, softmax CE, batch {MLP_BATCH}, SGD step",
    ),
    "grad_penalty": (
        "ms/step",
        1e3,
        f"{_sizes(GP_SIZES)} tanh MLP, batch {GP_BATCH}, mean(out) + {GP_LAMBDA:g}*GP, double backprop + SGD",
    ),
}


def _layers(rng, sizes):
    """Weights in (out, in) layout (Chainer/PyTorch Linear convention)."""
    arrays = {}
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        arrays[f"W{i}"] = (rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)).astype(np.float32)
        arrays[f"b{i}"] = (0.1 * rng.standard_normal(n_out)).astype(np.float32)
    return arrays


def make_data(case):
    """Fixed float32 inputs and initial weights for ``case``."""
    rng = np.random.default_rng([SEED, list(CASES).index(case)])
    if case == "per_op":
        return {"x": rng.standard_normal(PER_OP_SIZE).astype(np.float32)}
    if case == "mlp_step":
        data = _layers(rng, MLP_SIZES)
        data["x"] = rng.standard_normal((MLP_BATCH, MLP_SIZES[0])).astype(np.float32)
        data["t"] = rng.integers(0, MLP_SIZES[-1], MLP_BATCH).astype(np.int32)
        return data
    if case == "grad_penalty":
        data = _layers(rng, GP_SIZES)
        data["x"] = rng.standard_normal((GP_BATCH, GP_SIZES[0])).astype(np.float32)
        return data
    raise KeyError(case)


def n_layers(data):
    return sum(1 for k in data if k.startswith("W"))
