"""The direction of imports (tools/import_rules.py): the repository keeps it, and each rule bites.

The first test reads this checkout. The others lay out a small ``fnet`` tree holding one broken
rule of each kind (the kinds the house had before the rules: a training module reaching up into
compat, autodiff importing ops inside a function, four ops modules in a circle) and check that
the tool reports it, so a passing first test means something.
"""

from __future__ import annotations

import importlib.util
import pathlib
import textwrap

import pytest

_ROOT = pathlib.Path(__file__).resolve().parents[1]
_TOOL = _ROOT / "tools" / "import_rules.py"

pytestmark = pytest.mark.skipif(not _TOOL.exists(), reason="needs tools/import_rules.py (a checkout)")


@pytest.fixture(scope="module")
def rules():
    spec = importlib.util.spec_from_file_location("import_rules", _TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _tree(root: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    """Write ``files`` (path under root -> source) and the ``__init__.py`` of every folder."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        for folder in path.relative_to(root).parents:
            if str(folder) != ".":
                (root / folder / "__init__.py").touch()
        path.write_text(textwrap.dedent(text))
    return root


def test_fnet_keeps_the_direction_of_imports(rules):
    broken = rules.check(_ROOT)
    assert broken == [], "\n".join(broken)


def test_a_layer_importing_one_above_it_is_reported(rules, tmp_path):
    root = _tree(
        tmp_path,
        {
            "fnet/compat/serializer.py": "class Serializer: ...\n",
            "fnet/training/trainer.py": "from ..compat.serializer import Serializer\n",
        },
    )
    (broken,) = rules.check(root)
    assert broken.startswith("back-arrow: fnet.training.trainer:1 imports fnet.compat.serializer")


def test_a_function_local_import_is_reported_as_hidden(rules, tmp_path):
    root = _tree(
        tmp_path,
        {
            "fnet/ops/elementwise.py": "def add(a, b): ...\n",
            "fnet/autodiff/backward.py": """\
                def accumulate(a, b):
                    from ..ops.elementwise import add
                    return add(a, b)
            """,
        },
    )
    broken = rules.check(root)
    assert len(broken) == 2
    assert broken[0].startswith(
        "back-arrow: fnet.autodiff.backward:2 function-local imports fnet.ops.elementwise"
    )
    assert broken[1].startswith(
        "hidden arrow: fnet.autodiff.backward:2 function-local imports fnet.ops.elementwise"
    )


def test_a_circle_is_reported_with_its_members(rules, tmp_path):
    root = _tree(
        tmp_path,
        {
            "fnet/ops/shape.py": "from .reduction import sum\n",
            "fnet/ops/reduction.py": "from .elementwise import exp\n",
            "fnet/ops/elementwise.py": "from .shape import sum_to\n",
        },
    )
    assert rules.check(root) == [
        "circle of 3 modules: fnet.ops.elementwise, fnet.ops.reduction, fnet.ops.shape"
    ]


def test_a_package_beside_another_on_its_level_is_reported(rules, tmp_path):
    root = _tree(tmp_path, {"fnet/optim/adam.py": "", "fnet/nn/linear.py": "import fnet.optim.adam\n"})
    (broken,) = rules.check(root)
    assert broken.startswith("sideways: fnet.nn.linear:1 imports fnet.optim.adam")


def test_literal_import_module_is_an_arrow(rules, tmp_path):
    root = _tree(
        tmp_path,
        {
            "fnet/compat/variable.py": "",
            "fnet/data/convert.py": "import importlib\nv = importlib.import_module('fnet.compat.variable')\n",
        },
    )
    (broken,) = rules.check(root)
    assert broken.startswith("back-arrow: fnet.data.convert:2 imports fnet.compat.variable")


def test_a_look_up_in_sys_modules_is_an_arrow(rules, tmp_path):
    root = _tree(
        tmp_path,
        {
            "fnet/compat/backend.py": "",
            "fnet/data/convert.py": "import sys\nb = sys.modules.get('fnet.compat.backend')\n"
            "c = sys.modules['fnet.compat.backend']\n",
        },
    )
    broken = rules.check(root)
    assert [line.split(" (")[0] for line in broken] == [
        "back-arrow: fnet.data.convert:2 imports fnet.compat.backend",
        "back-arrow: fnet.data.convert:3 imports fnet.compat.backend",
    ]


def test_a_deferred_import_with_a_reason_is_allowed(rules, tmp_path, monkeypatch):
    root = _tree(
        tmp_path,
        {"fnet/io/plot.py": "", "fnet/training/report.py": "def f():\n    from ..io import plot\n"},
    )
    assert rules.check(root) == [
        "hidden arrow: fnet.training.report:2 function-local imports fnet.io.plot "
        "(move it to the top of the module, or list why in DEFERRED)"
    ]
    monkeypatch.setitem(rules.DEFERRED, ("fnet.training.report", "fnet.io.plot"), "matplotlib")
    assert rules.check(root) == []


def test_a_module_on_no_layer_is_an_error(rules, tmp_path):
    root = _tree(tmp_path, {"fnet/newthing/x.py": "", "fnet/ops/y.py": "from ..newthing import x\n"})
    with pytest.raises(KeyError, match="newthing"):
        rules.check(root)
