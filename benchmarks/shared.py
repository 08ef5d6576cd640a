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

# (d) softmax_xent: softmax cross entropy (mean over the batch) of (batch, classes) scores.
XENT_SHAPE = (100, 1000)

# (e) lstm_lm_step: PTB-shaped word language model (Chainer's PTB example), truncated BPTT.
LM_VOCAB = 10000
LM_UNITS = 200  # embedding size and LSTM units
LM_LAYERS = 2
LM_BPTT = 35
LM_BATCH = 20
LM_LR = 1.0
LM_CLIP = 5.0  # gradient clipping to this global norm
LM_INIT = 0.1  # every parameter starts uniform in [-LM_INIT, LM_INIT], as in the PTB example

# (f) cnn_step: a small CIFAR-shaped ConvNet: CNN_CHANNELS 3x3 convolutions (pad 1), each followed
# by relu and 2x2 max pooling (stride 2), then linear -> relu -> linear, softmax cross entropy
# (mean over the batch), and one step of Adam in Chainer's formulation.
CNN_INPUT = (3, 32, 32)
CNN_BATCH = 64
CNN_CHANNELS = (16, 32, 64)
CNN_HIDDEN = 128
CNN_CLASSES = 10
ADAM_ALPHA, ADAM_BETA1, ADAM_BETA2, ADAM_EPS = 0.001, 0.9, 0.999, 1e-8

# (g) normal_elbo: a batch of NORMAL_SHAPE[0] diagonal Normals in NORMAL_SHAPE[1] dimensions (the
# encoder's output in a VAE), by loc and log_scale: a reparameterized sample z, then
# sum(log q(z)) + sum(KL(q || N(0, 1))), and its gradient. The gradient does not depend on the
# noise (d/dloc = loc, d/dlog_scale = scale**2 - 2), so every framework returns the same numbers.
NORMAL_SHAPE = (1000, 20)

# (h) resnet50_infer: ResNet-50 inference in Chainer's layout (ResNet50Layers: the stride on each
# block's first 1x1 convolution, biasless convolutions in the blocks, batch normalization with
# eps 2e-5 in evaluation mode at its initial statistics), a batch of RESNET_BATCH 224x224 images,
# up to the softmax ('prob'); the weights are He-normal (the last convolution of each block and
# the classifier scaled by 0.2), shared by every framework.
RESNET_BATCH = 8
RESNET_BLOCKS = (3, 4, 6, 3)
RESNET_BN_EPS = 2e-5

# (i) resnet50_step: one training step of the same network from the same weights (batch
# normalization in training mode: batch statistics, running averages updated), softmax cross
# entropy on integer labels, and a MomentumSGD step in Chainer's form (v = momentum v - lr g,
# p += v). The batch by device: issue #21's 32 on a GPU; on the CPU a step of 32 takes many
# seconds per framework, so 4 there.
RESNET_STEP_BATCH = {"cpu": 4, "gpu": 32}
RESNET_LR, RESNET_MOMENTUM = 0.01, 0.9


def resnet50_shapes() -> dict:
    """The shapes of ResNet-50's weights by their key in Chainer's npz layout (``res2/a/conv1/W``)."""
    shapes = {"conv1/W": (64, 3, 7, 7), "conv1/b": (64,)}
    in_ch = 64
    for stage, (blocks, mid) in enumerate(zip(RESNET_BLOCKS, (64, 128, 256, 512)), start=2):
        out = 4 * mid
        for i in range(blocks):
            name = f"res{stage}/{'a' if i == 0 else f'b{i}'}"
            shapes[f"{name}/conv1/W"] = (mid, in_ch if i == 0 else out, 1, 1)
            shapes[f"{name}/conv2/W"] = (mid, mid, 3, 3)
            shapes[f"{name}/conv3/W"] = (out, mid, 1, 1)
            if i == 0:
                shapes[f"{name}/conv4/W"] = (out, in_ch, 1, 1)
        in_ch = out
    shapes["fc6/W"], shapes["fc6/b"] = (1000, 2048), (1000,)
    return shapes


def device_kind(device: str) -> str:
    """'gpu' for a runner's GPU device ('@cupy', '@cupy:N'), 'cpu' for '@numpy'."""
    return "gpu" if device.startswith("@cupy") else "cpu"


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
    "softmax_xent": (
        "us/step",
        1e6,
        f"fwd+bwd of the softmax cross entropy of {XENT_SHAPE} float32 scores and int32 labels",
    ),
    "lstm_lm_step": (
        "s/step",
        1.0,
        f"{LM_LAYERS}x{LM_UNITS} LSTM LM, vocab {LM_VOCAB}, batch {LM_BATCH}, {LM_BPTT} steps one at a time, "
        f"SGD + clip {LM_CLIP:g}",
    ),
    "cnn_step": (
        "ms/step",
        1e3,
        f"{len(CNN_CHANNELS)} x [3x3 conv {'/'.join(map(str, CNN_CHANNELS))}, relu, 2x2 max pool], "
        f"linear {CNN_HIDDEN}, linear {CNN_CLASSES}, batch {CNN_BATCH} of {'x'.join(map(str, CNN_INPUT))}, "
        "softmax CE, Adam",
    ),
    "mlp_adam_step": (
        "ms/step",
        1e3,
        f"{_sizes(MLP_SIZES)} ReLU MLP, softmax CE, batch {MLP_BATCH}, Adam step (Chainer's formulation)",
    ),
    "mlp_update": (
        "ms/step",
        1e3,
        "mlp_step written as Chainer's optimizer.update(lossfun, x, t) (the others: their mlp_step)",
    ),
    "normal_elbo": (
        "us/step",
        1e6,
        f"{NORMAL_SHAPE[0]} diagonal Normals of {NORMAL_SHAPE[1]} dims: reparameterized sample, "
        "log_prob + KL to N(0, 1), fwd+bwd",
    ),
    "resnet50_infer": (
        "ms/step",
        1e3,
        f"ResNet-50 inference (Chainer's layout), batch {RESNET_BATCH} of 3x224x224, to the softmax",
    ),
    "resnet50_step": (
        "ms/step",
        1e3,
        f"ResNet-50 training step (Chainer's layout, batch norm in training mode), batch "
        f"{RESNET_STEP_BATCH['gpu']} of 3x224x224 on a GPU, {RESNET_STEP_BATCH['cpu']} on the CPU, "
        f"softmax CE, MomentumSGD (lr {RESNET_LR:g}, momentum {RESNET_MOMENTUM:g})",
    ),
}

# Cases left out of a run on the CPU unless asked for by --cases: each repetition takes seconds
# there, and its rounds at both thread settings would add minutes to a default run.
ONLY_WHEN_ASKED_ON_CPU = ("resnet50_step",)


def default_cases(device: str = "@numpy") -> list:
    """The cases a run on ``device`` times when not told which: all of them on a GPU; on the CPU
    all but ONLY_WHEN_ASKED_ON_CPU."""
    if device_kind(device) == "gpu":
        return list(CASES)
    return [case for case in CASES if case not in ONLY_WHEN_ASKED_ON_CPU]


def _layers(rng, sizes):
    """Weights in (out, in) layout (Chainer/PyTorch Linear convention)."""
    arrays = {}
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        arrays[f"W{i}"] = (rng.standard_normal((n_out, n_in)) / np.sqrt(n_in)).astype(np.float32)
        arrays[f"b{i}"] = (0.1 * rng.standard_normal(n_out)).astype(np.float32)
    return arrays


def make_data(case, device="@numpy"):
    """Fixed float32 inputs and initial weights for ``case``, for a run on ``device`` (which sets
    the batch of resnet50_step)."""
    if case == "resnet50_step":
        return resnet50_step_data(device)
    rng = np.random.default_rng([SEED, list(CASES).index(case)])
    if case == "per_op":
        return {"x": rng.standard_normal(PER_OP_SIZE).astype(np.float32)}
    if case in ("mlp_step", "mlp_adam_step", "mlp_update"):
        data = _layers(rng, MLP_SIZES)
        data["x"] = rng.standard_normal((MLP_BATCH, MLP_SIZES[0])).astype(np.float32)
        data["t"] = rng.integers(0, MLP_SIZES[-1], MLP_BATCH).astype(np.int32)
        return data
    if case == "grad_penalty":
        data = _layers(rng, GP_SIZES)
        data["x"] = rng.standard_normal((GP_BATCH, GP_SIZES[0])).astype(np.float32)
        return data
    if case == "lstm_lm_step":
        return lm_data(rng)
    if case == "cnn_step":
        return cnn_data(rng)
    if case == "resnet50_infer":
        data = resnet50_weights(rng)
        data["x"] = rng.standard_normal((RESNET_BATCH, 3, 224, 224)).astype(np.float32)
        return data
    if case == "normal_elbo":
        return {
            "loc": rng.standard_normal(NORMAL_SHAPE).astype(np.float32),
            "log_scale": (0.5 * rng.standard_normal(NORMAL_SHAPE)).astype(np.float32),
        }
    if case == "softmax_xent":
        n, c = XENT_SHAPE
        return {
            "x": (3 * rng.standard_normal((n, c))).astype(np.float32),
            "t": rng.integers(0, c, n).astype(np.int32),
        }
    raise KeyError(case)


def resnet50_weights(rng) -> dict:
    """ResNet-50's weights by Chainer's npz keys, He-normal (see resnet50_infer above)."""
    data = {}
    for key, shape in resnet50_shapes().items():
        fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
        scale = np.sqrt(2.0 / fan_in) if len(shape) > 1 else 0.0
        if key.endswith("conv3/W") or key == "fc6/W":  # residual branches and logits kept small,
            scale *= 0.2  # so that the 16 blocks do not blow up the activations (a useful probe)
        data[key] = (scale * rng.standard_normal(shape)).astype(np.float32)
    return data


def resnet50_step_data(device="@numpy"):
    """resnet50_infer's weights (the same arrays, drawn from its seed), then a batch of
    RESNET_STEP_BATCH[device kind] images ``x`` and integer labels ``t`` of their own: the first
    images of the batch are the same on every device."""
    data = resnet50_weights(np.random.default_rng([SEED, list(CASES).index("resnet50_infer")]))
    index = list(CASES).index("resnet50_step")
    batch = RESNET_STEP_BATCH[device_kind(device)]
    # images and labels from streams of their own, so that a larger batch extends a smaller one
    x_rng, t_rng = (np.random.default_rng([SEED, index, stream]) for stream in (0, 1))
    data["x"] = x_rng.standard_normal((batch, 3, 224, 224)).astype(np.float32)
    data["t"] = t_rng.integers(0, 1000, batch).astype(np.int32)
    return data


def lm_data(rng):
    """Tokens ``(LM_BPTT + 1, LM_BATCH)`` (inputs ``x[t]``, targets ``x[t + 1]``) and the LM's weights.

    The LSTM weights are in Chainer's ``L.LSTM`` layout: ``up{l}_W`` ``(4 H, in)`` with bias
    ``up{l}_b`` and ``lat{l}_W`` ``(4 H, H)`` (no bias), the gates of unit ``j`` interleaved in
    rows ``4 j + k`` in the order a (cell input), i, f, o. ``out_W`` is ``(V, H)``.
    """

    def uniform(*shape):
        return rng.uniform(-LM_INIT, LM_INIT, shape).astype(np.float32)

    data = {"tokens": rng.integers(0, LM_VOCAB, (LM_BPTT + 1, LM_BATCH)).astype(np.int32)}
    data["embed_W"] = uniform(LM_VOCAB, LM_UNITS)
    for layer in range(LM_LAYERS):
        data[f"up{layer}_W"] = uniform(4 * LM_UNITS, LM_UNITS)
        data[f"up{layer}_b"] = uniform(4 * LM_UNITS)
        data[f"lat{layer}_W"] = uniform(4 * LM_UNITS, LM_UNITS)
    data["out_W"] = uniform(LM_VOCAB, LM_UNITS)
    data["out_b"] = uniform(LM_VOCAB)
    return data


def cnn_data(rng):
    """Images ``x`` ``(CNN_BATCH, *CNN_INPUT)``, labels ``t`` and the ConvNet's weights in
    Chainer's layouts: ``conv{i}_W`` ``(out, in, 3, 3)`` and ``fc{i}_W`` ``(out, in)`` (He
    initialization; the output layer 10 times smaller, so that the loss starts near log(10) and
    decreases from the first Adam step), biases ``conv{i}_b`` and ``fc{i}_b`` small and random."""
    data = {
        "x": rng.standard_normal((CNN_BATCH, *CNN_INPUT)).astype(np.float32),
        "t": rng.integers(0, CNN_CLASSES, CNN_BATCH).astype(np.int32),
    }
    channels = CNN_INPUT[0]
    for i, out in enumerate(CNN_CHANNELS):
        data[f"conv{i}_W"] = (
            rng.standard_normal((out, channels, 3, 3)) * np.sqrt(2 / (9 * channels))
        ).astype(np.float32)
        data[f"conv{i}_b"] = (0.01 * rng.standard_normal(out)).astype(np.float32)
        channels = out
    side = CNN_INPUT[1] // 2 ** len(CNN_CHANNELS)
    sizes = (channels * side * side, CNN_HIDDEN, CNN_CLASSES)
    for i, (n_in, n_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        gain = np.sqrt(2 / n_in) * (0.1 if i == len(sizes) - 2 else 1.0)
        data[f"fc{i}_W"] = (rng.standard_normal((n_out, n_in)) * gain).astype(np.float32)
        data[f"fc{i}_b"] = (0.01 * rng.standard_normal(n_out)).astype(np.float32)
    return data


def n_layers(data):
    return sum(1 for k in data if k.startswith("W"))
