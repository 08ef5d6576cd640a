"""compat/_debug_stack.py: the functions whose backward is running are kept per thread."""

from __future__ import annotations

import threading

from fnet.compat import _debug_stack


def test_each_thread_has_its_own_functions_in_backward():
    marker = object()
    _debug_stack.in_backward().append(marker)
    try:
        seen = []
        thread = threading.Thread(target=lambda: seen.append(list(_debug_stack.in_backward())))
        thread.start()
        thread.join()
        assert seen == [[]]  # a backward pass in another thread does not see this one's
        assert _debug_stack.in_backward()[-1] is marker
    finally:
        _debug_stack.in_backward().remove(marker)


def test_a_failed_backward_names_the_running_function_and_forgets_it():
    class Node:
        stack = [("f.py", 1, "apply", "y = f(x)"), ("f.py", 2, "here", "")]

    _debug_stack.in_backward().append(Node())
    error = ValueError("bad gradient")
    _debug_stack.report_failed_backward(error)
    assert "Stacktrace of the function is below" in error.args[0] and "y = f(x)" in error.args[0]
    assert _debug_stack.in_backward() == []
