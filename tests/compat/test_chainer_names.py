"""tools/chainer_names.py: Chainer's module tree read without importing it, compared with fnet.compat."""

from __future__ import annotations

import importlib.util
import pathlib

import pytest

_TOOL = pathlib.Path(__file__).resolve().parents[2] / "tools" / "chainer_names.py"


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("chainer_names", _TOOL)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def checkout(tmp_path):
    """A tiny stand-in for a Chainer checkout: chainer/ with three modules, and tests/."""
    package = tmp_path / "chainer"
    (package / "utils").mkdir(parents=True)
    (package / "__init__.py").write_text("from chainer.variable import Variable  # NOQA\nimport os\n")
    (package / "utils" / "__init__.py").write_text("def force_array(x):\n    pass\n_private = 1\n")
    (package / "utils" / "argument.py").write_text(
        "import inspect\nfrom chainer import backend\nfrom chainer.x import check_unexpected_kwargs  # NOQA\n"
        "def parse_kwargs(kwargs):\n    pass\nif TYPE_CHECKING:\n    class OnlyForTypes: pass\n"
    )
    (package / "nowhere.py").write_text("class Gone:\n    pass\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("from chainer.utils import _private\n")
    return package


def test_public_names_are_definitions_and_marked_reexports(tool, checkout):
    public, every = tool.defined_names(checkout / "utils" / "argument.py")
    assert public == {
        "parse_kwargs",
        "check_unexpected_kwargs",
    }  # not the plain imports, nor typing-only classes
    assert "backend" in every


def test_scan_counts_what_fnet_compat_has_and_lists_what_it_lacks(tool, checkout, tmp_path):
    left_out = tmp_path / "left_out.txt"
    left_out.write_text("# comment\nchainer.nowhere a module fnet does not have, on purpose\n")
    report = tool.scan(checkout, left_out=left_out)
    assert report["modules"] == {"present": 3, "missing": [], "left_out": 1}
    # fnet.compat has the four public names; _private (read by the tests) it lacks
    assert report["names"]["missing"] == ["chainer.utils:_private"]
    assert report["names"]["present"] == 4


def test_the_left_out_list_gives_a_reason_for_every_pattern(tool):
    rows = tool.read_left_out()
    assert rows and all(reason for _, reason in rows)
    assert tool.left_out_reason("chainer.distributions.normal", rows).startswith("probability distributions")
    assert tool.left_out_reason("chainer.links.connection.linear", rows) is None
