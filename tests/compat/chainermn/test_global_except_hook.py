"""chainermn.global_except_hook in one process: the hook is installed once, and removed again."""

import sys

import pytest

from fnet.compat.chainermn import global_except_hook
from fnet.distributed import failure


def test_add_hook_installs_once_and_warns_on_the_second_call():
    before = sys.excepthook
    try:
        global_except_hook.add_hook()
        assert sys.excepthook is failure._abort_hook
        with pytest.warns(UserWarning, match="called more than once"):
            global_except_hook.add_hook()
    finally:
        failure.remove_abort_on_exception()
    assert sys.excepthook is before


def test_the_environment_variable_decides(monkeypatch):
    monkeypatch.delenv("CHAINERMN_FORCE_ABORT_ON_EXCEPTION", raising=False)
    monkeypatch.delenv("CHAINERMN_FORCE_ABORT_ON_EXCEPTIONS", raising=False)
    global_except_hook._add_hook_if_enabled()
    assert sys.excepthook is not failure._abort_hook
    monkeypatch.setenv("CHAINERMN_FORCE_ABORT_ON_EXCEPTION", "1")
    try:
        global_except_hook._add_hook_if_enabled()
        assert sys.excepthook is failure._abort_hook
    finally:
        failure.remove_abort_on_exception()
