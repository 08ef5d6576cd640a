"""fnet.compat._modules: Chainer's module paths made from declarations."""

import importlib
import sys
import types

import pytest

from fnet.compat import _modules


@pytest.fixture
def package(monkeypatch):
    """A real module (``fnet.compat._probe``) that adopts declared submodules."""
    name = "fnet.compat._probe"
    module = types.ModuleType(name)
    module.real = "real"
    monkeypatch.setitem(sys.modules, name, module)
    monkeypatch.setattr(_modules, "_CONTENTS", dict(_modules._CONTENTS))
    monkeypatch.setattr(_modules, "_PACKAGES", set(_modules._PACKAGES))
    _modules.adopt(vars(module))
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


def test_declared_submodules_are_attributes_of_the_real_module_above_them(package):
    _modules.declare("fnet.compat._probe.category.leaf", lambda: {"value": 1})
    assert package.category.leaf.value == 1  # no import statement: as after ``import chainer.functions``
    assert package.real == "real"
    with pytest.raises(AttributeError, match="_probe' has no attribute 'absent'"):
        package.absent  # noqa: B018


def test_contents_are_looked_up_when_the_module_is_first_imported(package):
    calls = []
    _modules.declare("fnet.compat._probe.lazy", lambda: calls.append(1) or {"x": 0})
    assert calls == []
    importlib.import_module("fnet.compat._probe.lazy")
    importlib.import_module("fnet.compat._probe.lazy")
    assert calls == [1]


def test_an_undeclared_name_is_still_not_found(package):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("fnet.compat._probe.nothing_here")
