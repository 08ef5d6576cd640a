"""The modules that used to import each other in circles (the array operations, the tabular
datasets, compat's package level) now import in one direction, and each loads first on its own.

``tools/import_rules.py`` reads the imports as written; a package's ``__init__`` that runs when
one of its submodules is imported is no arrow there, so each module is also imported first in a
fresh interpreter.
"""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

import pytest

_ROOT = pathlib.Path(__file__).resolve().parents[1]


def _import_rules():
    spec = importlib.util.spec_from_file_location("import_rules", _ROOT / "tools" / "import_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Packages whose every module stands in no circle and hides no import; then single modules.
PACKAGES = ["fnet.ops", "fnet.data", "fnet.compat.initializers", "fnet.compat.testing"]
MODULES = [
    "fnet.compat.utils",
    "fnet.compat.utils.conv",
    "fnet.compat.utils.conv_nd",
    "fnet.compat.runtime_info",
    "fnet.compat.gradient_check",
    "fnet.compat.link",
    "fnet.compat.sequential",
]


def _in(module: str, area: str) -> bool:
    """Whether ``module`` is ``area``, or stands below it when ``area`` is one of PACKAGES."""
    return module == area or (area in PACKAGES and module.startswith(area + "."))


def broken_in(area: str, root: pathlib.Path = _ROOT) -> list[str]:
    """The broken import rules under ``root`` that involve ``area``: an arrow from one of its
    modules that is hidden or runs against the layers, or a circle through one of them."""
    rules = _import_rules()
    arrows = rules.read_arrows(root)
    found = []
    for arrow in arrows:
        if not _in(arrow.source, area):
            continue
        source_level, source_package = rules.layer_of(arrow.source)
        target_level, target_package = rules.layer_of(arrow.target)
        if arrow.local and (arrow.source, arrow.target) not in rules.DEFERRED:
            found.append(f"hidden arrow: {arrow}")
        if target_level > source_level or (target_level == source_level and target_package != source_package):
            found.append(f"against the layers: {arrow}")
    for members in rules._circles(arrows):
        if any(_in(m, area) for m in members):
            found.append(f"circle: {', '.join(members)}")
    return found


@pytest.mark.parametrize("area", PACKAGES + MODULES)
def test_the_area_imports_in_one_direction(area):
    assert broken_in(area) == []


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
]


@pytest.mark.parametrize("module", FIRST_IMPORTS)
def test_the_module_loads_first_in_a_fresh_interpreter(module):
    done = subprocess.run(
        [sys.executable, "-c", f"import {module}"], capture_output=True, text=True, cwd=_ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr[-2000:]
