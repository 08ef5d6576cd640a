"""``chainer.testing``: helpers for testing Chainer-style code with pytest or unittest.

Parameterized and backend-injected test classes (with Chainer's class names, so test ids stay
the same), ``assert_allclose``, repeated and seeded tests, GPU annotations, and the
``FunctionTestCase``/``LinkTestCase`` workflow that checks forward, backward and double
backward of a function or link against expected values and numerical gradients.
"""

from __future__ import annotations

from . import attr, condition
from .array import assert_allclose
from .backend import BackendConfig, inject_backend_tests
from .distribution_test import distribution_unittest
from .function_link import (
    FunctionTestCase,
    FunctionTestError,
    InitializerArgument,
    LinkInitializersTestCase,
    LinkTestCase,
    LinkTestError,
)
from .helper import assert_warns, patch, with_requires, without_requires
from .matrix import generate_matrix
from .parameterized import (
    from_pytest_parameterize,
    parameterize,
    parameterize_pytest,
    product,
    product_dict,
)
from .random import fix_random, generate_seed
from .serializer import save_and_load, save_and_load_hdf5, save_and_load_npz
from .training import get_trainer_with_mock_updater
from .unary_math_function_test import unary_math_function_unittest

__all__ = [
    "attr",
    "condition",
    "assert_allclose",
    "BackendConfig",
    "inject_backend_tests",
    "FunctionTestCase",
    "FunctionTestError",
    "LinkTestCase",
    "LinkTestError",
    "LinkInitializersTestCase",
    "InitializerArgument",
    "assert_warns",
    "patch",
    "with_requires",
    "without_requires",
    "generate_matrix",
    "parameterize",
    "parameterize_pytest",
    "from_pytest_parameterize",
    "product",
    "product_dict",
    "fix_random",
    "generate_seed",
    "save_and_load",
    "save_and_load_npz",
    "save_and_load_hdf5",
    "get_trainer_with_mock_updater",
    "unary_math_function_unittest",
    "distribution_unittest",
    "run_module",
]


def run_module(name: str, file: str) -> None:
    """Run the tests of a test file with pytest when the file is run as a script: put
    ``testing.run_module(__name__, __file__)`` at its end."""
    if name == "__main__":
        import pytest

        pytest.main([file, "-vvs", "-x", "--pdb"])
