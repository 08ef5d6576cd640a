"""``gen_test_data_set``: export a test case into ``out/opset<N>/<name>``."""

from __future__ import annotations

import os

import numpy

from ..export_testcase import export_testcase

__all__ = ["TEST_OUT_DIR", "gen_test_data_set"]

TEST_OUT_DIR = "out"


def gen_test_data_set(model, args, name: str, opset_version: int, **kwargs) -> str:
    """Export ``model`` on ``args`` at ``opset_version`` with its test data; returns the folder."""
    numpy.random.seed(42)
    path = os.path.join(TEST_OUT_DIR, f"opset{opset_version}", name)
    export_testcase(model, args, path, opset_version=opset_version, **kwargs)
    return path
