"""The benchmark cases compute the same thing in every framework that runs here: the NumPy-by-hand
floors (benchmarks/cases_numpy.py) against fnet's cases (benchmarks/cases_fnet.py), step by step
from the same data (benchmarks/shared.py)."""

from __future__ import annotations

import pathlib
import sys

import numpy
import pytest

BENCHMARKS = pathlib.Path(__file__).resolve().parents[2] / "benchmarks"

pytestmark = pytest.mark.skipif(not BENCHMARKS.exists(), reason="needs the repository's benchmarks/")


@pytest.fixture(scope="module")
def cases():
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import cases_fnet
        import cases_numpy
        import shared
    finally:
        sys.path.remove(str(BENCHMARKS))
    return shared, cases_numpy, cases_fnet


def losses(build, data, steps):
    step = build({k: v.copy() for k, v in data.items()})
    return numpy.array([float(step()) for _ in range(steps)])


# float32 throughout, summed in different orders (BLAS blocking, im2col layouts): a relative
# error of a few float32 ulps per product, grown by the steps of training that follow.
@pytest.mark.parametrize("case, steps", [("cnn_step", 4), ("grad_penalty", 4), ("lstm_lm_step", 2)])
def test_numpy_floor_matches_fnet(cases, case, steps, rtol=1e-5):
    shared, cases_numpy, cases_fnet = cases
    data = shared.make_data(case)
    floor = losses(cases_numpy.CASES[case], data, steps)
    fnet = losses(cases_fnet.CASES[case], data, steps)
    numpy.testing.assert_allclose(floor, fnet, rtol=rtol)
    assert len(set(fnet.tolist())) == steps  # the parameters move: every step's loss differs


def test_numpy_normal_elbo_matches_fnet(cases):
    """Not a training step: the same sum of the gradient on every call (it does not depend on
    the noise)."""
    shared, cases_numpy, cases_fnet = cases
    data = shared.make_data("normal_elbo")
    numpy.testing.assert_allclose(
        losses(cases_numpy.normal_elbo, data, 2), losses(cases_fnet.normal_elbo, data, 2), rtol=1e-5
    )


JAX_PYTHON = BENCHMARKS / ".venvs" / "jax" / "bin" / "python"
# set up, not only begun: setup_peers.sh installs jax after making the venv
JAX_READY = JAX_PYTHON.exists() and any((BENCHMARKS / ".venvs" / "jax").glob("lib/python*/site-packages/jax"))
JAX_CASES = ["per_op", "mlp_step", "mlp_adam_step", "grad_penalty", "lstm_lm_step", "cnn_step"]


@pytest.mark.skipif(not JAX_READY, reason="needs benchmarks/.venvs/jax with jax (setup_peers.sh jax)")
def test_jax_cases_match_fnet(cases):
    """Two steps of each JAX case (in the JAX venv, one thread) against fnet's."""
    import json
    import subprocess

    script = (
        "import json, sys, numpy, shared, cases_jax\n"
        "out = {}\n"
        "for case in sys.argv[1:]:\n"
        "    step = cases_jax.CASES[case](shared.make_data(case))\n"
        "    out[case] = [float(numpy.sum(step(), dtype=numpy.float64)) for _ in range(2)]\n"
        "print(json.dumps(out))\n"
    )
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(BENCHMARKS), "OMP_NUM_THREADS": "1"}
    done = subprocess.run(
        [str(JAX_PYTHON), "-c", script, *JAX_CASES], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr
    jax_results = json.loads(done.stdout.strip().splitlines()[-1])
    shared, _, cases_fnet = cases
    for case in JAX_CASES:
        step = cases_fnet.CASES[case](shared.make_data(case))
        expected = [float(numpy.sum(numpy.asarray(step()), dtype=numpy.float64)) for _ in range(2)]
        # float32 in both, summed in different orders; Adam's second step divides by sqrt(v)
        numpy.testing.assert_allclose(jax_results[case], expected, rtol=1e-5, err_msg=case)


@pytest.mark.parametrize(
    "case, steps",
    [
        ("per_op", 2),
        ("mlp_step", 3),
        ("mlp_adam_step", 3),
        ("grad_penalty", 3),
        ("softmax_xent", 2),
        ("lstm_lm_step", 2),
        ("cnn_step", 3),
        ("normal_elbo", 2),
        ("resnet50_step", 2),
    ],
)
def test_captured_cases_are_the_eager_cases_bit_for_bit(cases, case, steps):
    """The fnet-captured column runs the same updates replayed (cases_captured.py): the results of
    each step are the eager ones exactly (the same NumPy calls in the same order)."""
    import fnet

    shared, _, cases_fnet = cases
    data = shared.make_data(case)
    if case == "resnet50_step":  # 2 images of 64x64 (bit for bit at any size): 10x faster
        data = {**data, "x": numpy.ascontiguousarray(data["x"][:2, :, :64, :64]), "t": data["t"][:2]}

    def results():
        step = cases_fnet.CASES[case]({k: v.copy() for k, v in data.items()})
        return [numpy.array(step(), copy=True) for _ in range(steps)]

    eager = results()
    cases_fnet.WRAP = fnet.capture
    try:
        captured = results()
    finally:
        cases_fnet.WRAP = None
    for e, c in zip(eager, captured):
        assert e.dtype == c.dtype and numpy.array_equal(e, c), (e, c)


PEERS = {
    "chainer": (BENCHMARKS / ".venvs" / "chainer" / "bin" / "python", "cases_chainer"),
    "torch": (BENCHMARKS / ".venvs" / "torch" / "bin" / "python", "cases_torch"),
    "compat": (pathlib.Path(sys.executable), "cases_compat"),  # aliases chainer: its own process
}
# the results of the first steps of a case, as the runner's worker takes them
STEPS_SCRIPT = (
    "import json, sys, numpy, shared, importlib\n"
    "cases = importlib.import_module(sys.argv[1])\n"
    "cases.init(1)\n"
    "step = cases.CASES[sys.argv[2]](shared.make_data(sys.argv[2]))\n"
    "out = [float(numpy.sum(cases.to_numpy(step()), dtype=numpy.float64)) for _ in range(int(sys.argv[3]))]\n"
    "print(json.dumps(out))\n"
)


def peer_results(peer, case, steps):
    """The first ``steps`` results of ``case`` in ``peer``'s cases, run in its own interpreter."""
    import json
    import os
    import subprocess

    python, module = PEERS[peer]
    if not python.exists():
        pytest.skip(f"needs {python} (benchmarks/setup_peers.sh)")
    path = os.pathsep.join([str(BENCHMARKS), str(BENCHMARKS.parent)])
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": path, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    done = subprocess.run(
        [str(python), "-c", STEPS_SCRIPT, module, case, str(steps)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def fnet_resnet50_step(cases):
    """fnet's first two losses of resnet50_step (the CPU's batch)."""
    shared, _, cases_fnet = cases
    return losses(cases_fnet.resnet50_step, shared.make_data("resnet50_step"), 2)


@pytest.mark.slow
@pytest.mark.parametrize("peer", list(PEERS))
def test_resnet50_step_agrees_with_fnet(fnet_resnet50_step, peer):
    """The first two losses of resnet50_step (before the first update and after it) in Chainer
    7.8.1, PyTorch and fnet.compat against fnet's, from the same weights and batch."""
    expected = fnet_resnet50_step
    found = peer_results(peer, "resnet50_step", 2)
    # the first loss: one float32 forward pass through 50 layers, summed in other orders
    numpy.testing.assert_allclose(found[0], expected[0], rtol=1e-5)
    # the second follows one update whose gradient is ill-conditioned: the backward pass of batch
    # normalization on the batch's own statistics, 4 images, cancels most of what reaches it
    # (fnet's step in float32 and in float64: gradients up to 25% apart elementwise in res5, the
    # second loss 1.4e-4; the frameworks' orders of summation: up to 1.4e-3 here)
    numpy.testing.assert_allclose(found[1], expected[1], rtol=1e-2)
    assert expected[1] < 0.5 * expected[0]  # the update was made: the loss falls from 7.2 to 2.2


TORCH_MOMENTUM_SCRIPT = (
    "import json, sys, torch\n"
    "lr, momentum, steps = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])\n"
    "a = torch.tensor(json.loads(sys.argv[4]), dtype=torch.float64)\n"
    "w = torch.zeros(a.shape[1], dtype=torch.float64, requires_grad=True)\n"
    "opt = torch.optim.SGD([w], lr=lr, momentum=momentum)\n"
    "out = []\n"
    "for _ in range(steps):\n"
    "    opt.zero_grad()\n"
    "    (0.5 * ((a @ w - 1.0) ** 2).sum()).backward()\n"
    "    opt.step()\n"
    "    out.append(w.tolist())\n"
    "print(json.dumps(out))\n"
)


def test_pytorch_momentum_follows_chainers_trajectory(cases):
    """resnet50_step's PyTorch case updates with torch.optim.SGD(momentum=...), which puts lr
    outside the velocity; Chainer's MomentumSGD (fnet.optim.MomentumSGD) puts it inside. With
    resnet50_step's constant lr and momentum, the parameters after each step are the same: a
    least-squares problem in float64, 5 steps (the momentum acts from the second)."""
    import json
    import subprocess

    import fnet

    shared, _, _ = cases
    python = PEERS["torch"][0]
    if not python.exists():
        pytest.skip(f"needs {python} (benchmarks/setup_peers.sh)")
    a = numpy.random.default_rng(0).standard_normal((6, 3))
    steps = 5
    done = subprocess.run(
        [
            str(python),
            "-c",
            TORCH_MOMENTUM_SCRIPT,
            str(shared.RESNET_LR),
            str(shared.RESNET_MOMENTUM),
            str(steps),
            json.dumps(a.tolist()),
        ],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "OMP_NUM_THREADS": "1"},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    torch_path = numpy.array(json.loads(done.stdout.strip().splitlines()[-1]))

    tx = fnet.optim.MomentumSGD(lr=shared.RESNET_LR, momentum=shared.RESNET_MOMENTUM)
    params = {"w": numpy.zeros(3)}
    state = tx.init(params)
    path = []
    for _ in range(steps):
        grads = {"w": a.T @ (a @ params["w"] - 1.0)}
        params, state = fnet.optim.step(tx, grads, state, params)
        path.append(params["w"])
    # float64, the same products in another order: a few ulps of each coordinate
    numpy.testing.assert_allclose(torch_path, numpy.array(path), rtol=1e-12, atol=1e-15)
    assert not numpy.allclose(path[2] - path[1], path[1] - path[0])  # the momentum did act
