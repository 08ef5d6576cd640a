"""The modules that used to import each other in circles load first on their own.

``tests/test_import_rules.py`` reads the imports as written; a package's ``__init__`` that runs
when one of its submodules is imported is no arrow there, so each module that stood in a circle
(the array operations, the tabular datasets, compat's package level and core) is also imported
first in a fresh interpreter.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

_ROOT = pathlib.Path(__file__).resolve().parents[1]


FIRST_IMPORTS = [
    "fnet.ops.broadcast",
    "fnet.ops.indexing",
    "fnet.ops.elementwise",
    "fnet.ops.shape",
    "fnet.ops.reduction",
    "fnet.data.datasets.tabular.tabular_dataset",
    "fnet.compat.utils.conv",
    "fnet.compat.utils.conv_nd",
    "fnet.compat.initializers.constant",
    "fnet.compat.testing.array",
    "fnet.compat.testing.function_link",
    "fnet.compat.gradient_check",
    "fnet.compat.sequential",
    "fnet.compat.runtime_info",
    "fnet.compat._tape",
    "fnet.compat.variable",
    "fnet.compat.function_node",
    "fnet.compat.function_hooks",
    "fnet.compat.functions._lift",
    "fnet.compat.utils.sparse",
    "fnet.compat.backends.cuda",
    "fnet.serialization",
    "fnet.training.modes",
    "fnet.training",
]


@pytest.mark.parametrize("module", FIRST_IMPORTS)
def test_the_module_loads_first_in_a_fresh_interpreter(module):
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, cwd=_ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
