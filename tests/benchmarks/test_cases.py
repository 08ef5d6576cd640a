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
    ],
)
def test_captured_cases_are_the_eager_cases_bit_for_bit(cases, case, steps):
    """The fnet-captured column runs the same updates replayed (cases_captured.py): the results of
    each step are the eager ones exactly (the same NumPy calls in the same order)."""
    import fnet

    shared, _, cases_fnet = cases
    data = shared.make_data(case)

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
