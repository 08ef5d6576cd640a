"""Moving pytrees between the host and the device under test (``--gpu-device``)."""

from __future__ import annotations

import numpy
import pytest

from fnet import backend, tree

from ._gpu import host


@pytest.mark.gpu
def test_params_round_trip(gpu_device):
    params = {"l1": {"W": numpy.arange(6.0).reshape(2, 3), "b": numpy.ones(2, numpy.float32)}, "n": 3}
    there = backend.to_device(params, gpu_device)
    assert there["n"] == 3
    back = host(there, gpu_device)
    for leaf in tree.leaves(back["l1"]):
        assert type(leaf) is numpy.ndarray
    assert tree.structure(back) == tree.structure(params)
    for a, b in zip(tree.leaves(back), tree.leaves(params)):
        numpy.testing.assert_array_equal(a, b)  # a copy of the same bits, no arithmetic
        assert numpy.asarray(a).dtype == numpy.asarray(b).dtype
    assert all(type(leaf) is numpy.ndarray for leaf in tree.leaves(backend.to_cpu(there)["l1"]))
