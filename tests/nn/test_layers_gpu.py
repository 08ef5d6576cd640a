"""The layers that the other gpu files leave out, on the device under test, in float64: the
stateful recurrent cells, the tree LSTMs, the loss layers, Linear, Classifier, Sequential,
InceptionBN and SimplifiedDropconnect with their state or masks, and ResNet's blocks; each
output, its gradients and a second-order quantity compared with the CPU (``tests/_gpu.py``).
Randomness is given, not drawn: sampled negatives, dropconnect masks and zoneout keys are the
same arrays on both devices."""

from __future__ import annotations

import numpy
import pytest

import fnet
from fnet import nn
from fnet.nn import vision

from .._gpu import as_float64, compare_with_cpu
from .test_connection import CASES as CONNECTIONS
from .test_rnn import CELLS, KEY, rand

STATEFUL = [name for name in sorted(CELLS) if not name.startswith("stateless")]


def _state(layer, batch: int, units: int):
    """A layer's state with every slot that starts as None filled with values."""
    return {name: rand(batch, units, seed=10 + i) for i, name in enumerate(sorted(layer.init_state()))}


@pytest.mark.gpu
@pytest.mark.parametrize("name", STATEFUL)
def test_stateful_cell_on_device(name, gpu_device):
    cell = CELLS[name]
    options = {"train": False} if name == "zoneout_lstm" else {}  # its training draws: below
    compare_with_cpu(
        lambda p, x, s: cell(p, x, s, **options),
        (as_float64(cell.init(KEY)), rand(2, 3), _state(cell, 2, 4)),
        gpu_device,
    )


@pytest.mark.gpu
def test_zoneout_lstm_training_on_device_keeps_what_the_key_says(gpu_device):
    cell = CELLS["zoneout_lstm"]
    compare_with_cpu(
        lambda p, x, s: cell(p, x, s, key=fnet.random.key(3)),
        (as_float64(cell.init(KEY)), rand(2, 3), _state(cell, 2, 4)),
        gpu_device,
    )


@pytest.mark.gpu
def test_peephole_lstm_on_device(gpu_device):
    cell = nn.StatefulPeepholeLSTM(3, 2)
    compare_with_cpu(cell, (as_float64(cell.init(KEY)), rand(4, 3), _state(cell, 4, 2)), gpu_device)


@pytest.mark.gpu
@pytest.mark.parametrize(
    "cell", [nn.ChildSumTreeLSTM(3, 2), nn.NaryTreeLSTM(3, 2, 2)], ids=["child_sum", "nary"]
)
def test_tree_lstm_on_device(cell, gpu_device):
    cs = [rand(4, 2, seed=1 + k) for k in range(2)]
    hs = [rand(4, 2, seed=11 + k) for k in range(2)]
    compare_with_cpu(cell, (as_float64(cell.init(KEY)), *cs, *hs, rand(4, 3, seed=21)), gpu_device)


@pytest.mark.gpu
@pytest.mark.parametrize("n_batch_axes", [1, 2])
def test_linear_on_device(n_batch_axes, gpu_device):
    layer = nn.Linear(3, 4)
    x = rand(2, 3) if n_batch_axes == 1 else rand(2, 5, 3)
    compare_with_cpu(layer, (as_float64(layer.init(KEY)), x), gpu_device, n_batch_axes=n_batch_axes)


@pytest.mark.gpu
def test_classifier_and_sequential_on_device(gpu_device):
    model = nn.Classifier(nn.Sequential(nn.Linear(3, 5), fnet.functions.tanh, nn.Linear(5, 4)))
    t = numpy.array([0, 3, 1], numpy.int32)
    compare_with_cpu(
        lambda p, x, t: model(p, x, t)[0], (as_float64(model.init(KEY)), rand(3, 3), t), gpu_device
    )


@pytest.mark.gpu
def test_binary_hierarchical_softmax_on_device(gpu_device):
    layer = nn.BinaryHierarchicalSoftmax(3, ((0, (1, 3)), 2), dtype=numpy.float64)
    t = numpy.array([0, 3, 2, 1], numpy.int32)
    compare_with_cpu(lambda p, x, t: layer(p, x, t), (layer.init(KEY), rand(4, 3), t), gpu_device)


@pytest.mark.gpu
def test_sampled_losses_on_device(gpu_device):
    t = numpy.array([0, 4, 2], numpy.int32)
    samples = numpy.array([[1, 3], [5, 0], [2, 2]], numpy.int32)  # given: the same on both devices
    black_out = nn.BlackOut(3, [5, 2, 7, 1, 4, 3], 2)
    params = {"W": rand(6, 3, seed=5)}  # BlackOut starts from NaN weights, as Chainer's
    compare_with_cpu(
        lambda p, x, t, s: black_out(p, x, t, samples=s), (params, rand(3, 3), t, samples), gpu_device
    )
    negative = nn.NegativeSampling(3, [5, 2, 7, 1, 4, 3], 2, dtype=numpy.float64)
    compare_with_cpu(
        lambda p, x, t, s: negative(p, x, t, "no", samples=s),
        ({"W": rand(6, 3, seed=6)}, rand(3, 3, seed=1), t, samples),
        gpu_device,
    )


@pytest.mark.gpu
def test_crf1d_on_device(gpu_device):
    layer = nn.CRF1d(3)
    xs = [rand(3, 3, seed=1), rand(2, 3, seed=2), rand(1, 3, seed=3)]  # lengths sorted, as Chainer's
    ys = [numpy.array(y, numpy.int32) for y in ([0, 2, 1], [1, 1], [2])]
    compare_with_cpu(lambda p, xs, ys: layer(p, xs, ys), (as_float64(layer.init(KEY)), xs, ys), gpu_device)


@pytest.mark.gpu
@pytest.mark.parametrize("name", ["inception_bn", "inception_bn_avg"])
@pytest.mark.parametrize("train", [True, False])
def test_inception_bn_on_device(name, train, gpu_device):
    layer = CONNECTIONS[name][0]()
    state = as_float64(layer.init_state())
    compare_with_cpu(
        lambda p, x, s: layer(p, x, s, train=train),
        (as_float64(layer.init(KEY)), rand(2, 4, 5, 5), state),
        gpu_device,
    )


@pytest.mark.gpu
def test_simplified_dropconnect_on_device(gpu_device):
    layer = nn.SimplifiedDropconnect(6, 3, ratio=0.3)
    mask = (numpy.random.RandomState(4).uniform(size=(2, 3, 6)) >= 0.3).astype(numpy.float64)
    compare_with_cpu(
        lambda p, x, m: layer(p, x, mask=m), (as_float64(layer.init(KEY)), rand(2, 6), mask), gpu_device
    )


@pytest.mark.gpu
@pytest.mark.parametrize(
    "block",
    [vision.BottleneckA(4, 2, 6, stride=2), vision.BottleneckB(6, 2), vision.BuildingBlock(2, 4, 2, 6, 1)],
    ids=["bottleneck_a", "bottleneck_b", "building_block"],
)
def test_resnet_blocks_on_device(block, gpu_device):
    state = as_float64(block.init_state())
    compare_with_cpu(
        lambda p, x, s: block.apply(p, x, s, train=True),
        (as_float64(block.init(KEY)), rand(2, block_channels(block), 5, 5), state),
        gpu_device,
    )


def block_channels(block) -> int:
    """The input channels of a ResNet block of this file."""
    return 6 if isinstance(block, vision.BottleneckB) else 4
