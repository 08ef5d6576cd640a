"""Numeric parity with Chainer 7.8.1: the same training script, run by Chainer and by fnet.compat.

``tests/golden/parity_script.py`` trains a small MLP and a small CNN with MomentumSGD and Adam,
in float32 and float64, for 50 steps from parameters in an npz file. ``make_compat_parity.py``
ran it with Chainer 7.8.1 and saved the parameters it started from and the loss of every step;
here the same ``train`` function runs with ``fnet.compat`` as its ``chainer`` module, loads the
same file, and must match every loss to rtol 1e-5 (float64) / 1e-4 (float32).
"""

from __future__ import annotations

import numpy
import pytest

import fnet.compat

from .._scripts import GOLDEN, load_golden

INIT = GOLDEN / "compat_parity_init.npz"
LOSSES = GOLDEN / "compat_parity_losses.npz"
RTOL = {"float32": 1e-4, "float64": 1e-5}


script = load_golden("parity_script")


@pytest.mark.parametrize("case", script.CASES, ids=lambda case: script.case_name(*case))
def test_training_matches_chainer_at_every_step(case):
    name = script.case_name(*case)
    numpy.random.seed(0)
    losses = script.train(fnet.compat, *case, INIT, name + "/")
    with numpy.load(LOSSES) as golden:
        expected = golden[name]
    assert losses.dtype == expected.dtype == numpy.dtype(case[2])
    assert losses.shape == (script.STEPS,)
    numpy.testing.assert_allclose(losses, expected, rtol=RTOL[case[2]], atol=0, err_msg=name)
