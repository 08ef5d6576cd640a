"""Fixtures for the tests of ``chainer.testing``."""

from __future__ import annotations

import sys
import types

import pytest


@pytest.fixture
def scratch_module():
    """A module registered in ``sys.modules`` for test classes to be generated into (so that
    they do not land in the test module), removed afterwards. ``scratch_module.case(name,
    *bases, **members)`` makes a class that lives there."""
    module = types.ModuleType("scratch_testing_module")

    def case(name: str, *bases: type, **members):
        members["__module__"] = module.__name__
        return type(name, bases or (object,), members)

    module.case = case
    sys.modules[module.__name__] = module
    yield module
    del sys.modules[module.__name__]
