"""fnet.compat._modules: Chainer's module paths made from declarations, with no import hook."""

import importlib
import subprocess
import sys
import types

import pytest

from fnet.compat import _modules


@pytest.fixture
def package(monkeypatch):
    """A real module (``fnet.compat._probe``) under which the tests declare modules."""
    name = "fnet.compat._probe"
    module = types.ModuleType(name)
    module.real = "real"
    monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(_modules, "_CONTENTS", dict(_modules._CONTENTS))
    yield module
    for key in [k for k in sys.modules if k.startswith(name + ".")]:
        del sys.modules[key]


def test_a_declared_module_holds_its_names_and_every_level_above_it_imports(package):
    _modules.declare("fnet.compat._probe.category.leaf", lambda: {"value": 42, "Node": int})
    leaf = importlib.import_module("fnet.compat._probe.category.leaf")
    assert leaf.value == 42 and leaf.Node is int
    assert leaf.__all__ == ["Node", "value"]
    category = importlib.import_module("fnet.compat._probe.category")
    assert category.leaf is leaf
    assert "fnet.compat._probe.category.leaf" in _modules.declared("fnet.compat._probe")
    from fnet.compat._probe.category.leaf import Node  # noqa: PLC0415

    assert Node is int


def test_declared_submodules_are_attributes_of_the_real_module_above_them(package):
    _modules.declare("fnet.compat._probe.category.leaf", lambda: {"value": 1})
    assert package.category.leaf.value == 1  # no import statement: as after ``import chainer.functions``
    assert package.__path__ == []  # the plain module became a package
    assert package.real == "real"
    with pytest.raises(AttributeError, match="has no attribute 'absent'"):
        package.category.leaf.absent  # noqa: B018


def test_contents_are_looked_up_on_first_use_only(package):
    calls = []
    _modules.declare("fnet.compat._probe.lazy", lambda: calls.append(1) or {"x": 0})
    module = importlib.import_module("fnet.compat._probe.lazy")
    assert calls == []
    assert module.x == 0 and module.x == 0
    assert calls == [1]


def test_a_name_the_parent_has_is_not_replaced_by_a_declared_module(package):
    package.taken = "a function of the same name"
    _modules.declare("fnet.compat._probe.taken", lambda: {})
    assert package.taken == "a function of the same name"
    assert importlib.import_module("fnet.compat._probe.taken").__name__ == "fnet.compat._probe.taken"


def test_an_undeclared_name_is_still_not_found(package):
    _modules.declare("fnet.compat._probe.category.leaf")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("fnet.compat._probe.category.nothing_here")


def test_the_alias_finds_declared_modules_in_a_fresh_process():
    probe = (
        "import fnet.compat; fnet.compat.install_alias()\n"
        "from fnet.compat import _modules\n"
        "name = _modules.declared('fnet.compat.')[0].replace('fnet.compat', 'chainer', 1)\n"
        "import importlib; m = importlib.import_module(name)\n"
        "print(m.__name__)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.startswith("fnet.compat.")
