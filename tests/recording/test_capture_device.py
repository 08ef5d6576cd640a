"""fnet.capture on a device (``--gpu-device``: CuPy, or the stand-in that refuses host operands):
the recording holds the device module's calls, a replay runs them on the device, and gives the
eager step's results on that device (the same calls in the same order: bit for bit)."""

from __future__ import annotations

import numpy
import pytest

import fnet
import fnet.functions as F
import fnet.ops as fo
from fnet import backend, optim
from fnet.errors import DeviceError

from .._gpu import host, on_device
from .test_capture import cnn_params, cnn_sgd_step

pytestmark = pytest.mark.gpu


def _same_bits(a, b) -> bool:
    la, lb = fnet.tree.leaves(a), fnet.tree.leaves(b)
    return len(la) == len(lb) and all(
        x.dtype == y.dtype and numpy.array_equal(x, y, equal_nan=True) for x, y in zip(la, lb)
    )


def _eager_and_captured(step, state, feeds, device):
    """Run ``step`` eagerly and captured on ``device`` over ``feeds``, feeding the state back;
    both runs' outputs, moved to the host after checking that they stayed on the device."""
    captured = fnet.capture(step)
    outs = []
    for fn in (step, captured):
        s, run = on_device(state, device), []
        for feed in feeds:
            out = fn(*s, *on_device(feed, device))
            run.append(host(out, device))
            s = out[: len(state)]
        outs.append(run)
    assert captured.stats()["records"] == 1 and captured.stats()["replays"] == len(feeds) - 1
    return outs


def _mlp(rng):
    return {
        "W0": rng.standard_normal((5, 6)).astype(numpy.float32),
        "b0": rng.standard_normal(5).astype(numpy.float32),
        "W1": rng.standard_normal((3, 5)).astype(numpy.float32),
        "b1": rng.standard_normal(3).astype(numpy.float32),
    }


def _mlp_loss(p, x, t):
    h = F.relu(F.linear(x, p["W0"], p["b0"]))
    return F.softmax_cross_entropy(F.linear(h, p["W1"], p["b1"]), t)


def _feeds(rng, n=3):
    return [
        (rng.standard_normal((4, 6)).astype(numpy.float32), rng.integers(0, 3, 4).astype(numpy.int32))
        for _ in range(n)
    ]


def test_an_adam_step_replays_on_the_device(gpu_device):
    rng = numpy.random.default_rng(0)
    params, tx = _mlp(rng), optim.Adam()

    def step(params, opt_state, x, t):
        loss, grads = fnet.value_and_grad(_mlp_loss)(params, x, t)
        params, opt_state = tx.step(grads, opt_state, params)
        return params, opt_state, loss

    state = tx.init(params).with_array_count()  # the step count as an array: one signature
    eager, captured = _eager_and_captured(step, (params, state), _feeds(rng), gpu_device)
    assert _same_bits(eager, captured)


def test_a_convolution_step_replays_on_the_device(gpu_device):
    rng = numpy.random.default_rng(1)
    feeds = [
        (rng.standard_normal((3, 2, 4, 4)).astype(numpy.float32), rng.integers(0, 3, 3).astype(numpy.int32))
        for _ in range(3)
    ]
    params = cnn_params(rng, 4, 3, 16)
    eager, captured = _eager_and_captured(cnn_sgd_step, (params,), feeds, gpu_device)
    assert _same_bits(eager, captured)


def test_a_gradient_penalty_replays_on_the_device(gpu_device):
    rng = numpy.random.default_rng(2)
    params = {"W": rng.standard_normal((4, 3)), "v": rng.standard_normal(4)}

    def critic(p, x):
        return fo.sum(fo.multiply(fo.tanh(fo.matmul(x, fo.transpose(p["W"]))), p["v"]))

    def loss_fn(p, x):
        gx = fnet.grad(critic, argnums=1)(p, x)
        return critic(p, x) + fo.sum(fo.square(fo.sqrt(fo.sum(fo.square(gx))) - 1.0))

    def step(p, x):
        loss, grads = fnet.value_and_grad(loss_fn)(p, x)
        return fnet.tree.map(lambda w, g: w - 0.01 * g, p, grads), loss

    feeds = [(rng.standard_normal((5, 3)),) for _ in range(3)]
    eager, captured = _eager_and_captured(step, (params,), feeds, gpu_device)
    assert _same_bits(eager, captured)


def test_scatter_add_and_special_functions_are_kept_whole_on_the_device(gpu_device):
    """Their device code calls cupyx, which takes device arrays only: a recording calls them whole."""
    rng = numpy.random.default_rng(3)
    index = numpy.array([0, 2, 2, 1])

    def step(w, x):
        def loss_fn(w):
            picked = fo.getitem(w, on_device(index, gpu_device))  # advanced: scatter_add backward
            return fo.sum(F.erf(picked * x))

        loss, g = fnet.value_and_grad(loss_fn)(w)
        return w - 0.5 * g, loss

    feeds = [(rng.standard_normal(4),) for _ in range(3)]
    eager, captured = _eager_and_captured(step, (rng.standard_normal(3),), feeds, gpu_device)
    assert _same_bits(eager, captured)


def test_fresh_randomness_on_replay_on_the_device(gpu_device):
    step = fnet.capture(lambda key, x: F.dropout(x, 0.5, key=key))
    x = on_device(numpy.ones((64,), numpy.float32), gpu_device)
    draws = [host(step(on_device(fnet.random.key(seed), gpu_device), x), gpu_device) for seed in (1, 2)]
    assert step.stats()["replays"] == 1
    assert not numpy.array_equal(draws[0], draws[1])
    again = host(F.dropout(x, 0.5, key=on_device(fnet.random.key(2), gpu_device)), gpu_device)
    assert numpy.array_equal(draws[1], again)


def test_a_host_array_met_on_the_device_is_refused_as_eagerly(gpu_device):
    if backend.xp(gpu_device.send(numpy.ones(1))) is numpy:
        pytest.skip("the device under test is the host (--gpu-device=@numpy)")
    host_w = numpy.ones(3)
    step = fnet.capture(lambda x: fo.multiply(x, host_w))
    with pytest.raises(DeviceError):
        step(on_device(numpy.ones(3), gpu_device))
