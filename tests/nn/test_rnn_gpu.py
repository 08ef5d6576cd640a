"""The recurrent layers of the CPU tests' tables on the device under test, in float64: the
stateless cells one step, the NStep layers over two sequences of different lengths (no
dropout), compared with the CPU to second order (``tests/_gpu.py``)."""

from __future__ import annotations

import pytest

from .._gpu import as_float64, compare_with_cpu
from .test_rnn import CELLS, KEY, NSTEP, rand

STATELESS = [name for name in sorted(CELLS) if name.startswith("stateless")]


@pytest.mark.gpu
@pytest.mark.parametrize("name", STATELESS)
def test_stateless_cell_on_device(name, gpu_device):
    cell = CELLS[name]
    params, x, h = as_float64(cell.init(KEY)), rand(2, 3), rand(2, 4, seed=1)
    states = (rand(2, 4, seed=2), h) if name == "stateless_lstm" else (h,)  # (c, h) or h
    compare_with_cpu(cell, (params, *states, x), gpu_device)


@pytest.mark.gpu
@pytest.mark.parametrize("name", sorted(NSTEP))
def test_nstep_layer_on_device(name, gpu_device):
    cls, n_layers = NSTEP[name]
    layer = cls(n_layers, 3, 4, 0.0)
    n_states = n_layers * (2 if "_bi" in name else 1)
    hs = [rand(n_states, 2, 4, seed=1)] + ([rand(n_states, 2, 4, seed=2)] if "lstm" in name else [])
    xs = [rand(3, 3, seed=3), rand(1, 3, seed=4)]
    compare_with_cpu(layer, (as_float64(layer.init(KEY)), *hs, xs), gpu_device)
