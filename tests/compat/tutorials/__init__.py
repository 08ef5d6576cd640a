"""The seeds' tutorial samples as text, one module per guide, and the harness that runs them.

The samples are kept character for character as the seeds print them (Chainer v7 docs), with the
indentation that the text dump lost put back. The harness imports nothing of fnet: the same code
runs them under ``fnet.compat`` (tests/compat/test_tutorials.py, through the ``chainer`` alias)
and under Chainer 7.8.1 itself (tests/golden/make_tutorials.py).
"""

from __future__ import annotations

import ast
import doctest
import io

# The import block every guide starts with ("we assume ... the following symbols are already
# imported").
IMPORTS = """\
import math
import numpy as np
import chainer
from chainer import backend
from chainer import backends
from chainer.backends import cuda
from chainer import Function, FunctionNode, gradient_check, report, training, utils, Variable
from chainer import datasets, initializers, iterators, optimizers, serializers
from chainer import Link, Chain, ChainList
import chainer.functions as F
import chainer.links as L
from chainer.training import extensions
"""

# The block imports parts of the training machinery (issue #7 of fnet.compat, built apart from
# the samples tested here). Only these names may be missing: every other import must succeed.
TOLERATED_MISSING = frozenset({"training", "extensions", "datasets", "iterators"})


def _tolerated(module: str | None, name: str) -> bool:
    parts = set((module or "").split(".")) | set(name.split("."))
    return bool(parts & TOLERATED_MISSING)


def namespace() -> dict:
    """A fresh global namespace holding the guides' import block, seeded as Chainer's doctests
    are (``np.random.seed(0)``).

    An import of the training machinery that fails leaves its name unbound; any other failing
    import raises.
    """
    ns: dict = {"__name__": "tutorial"}
    for node in ast.parse(IMPORTS).body:
        try:
            exec(compile(ast.Module([node], []), "<imports>", "exec"), ns)
        except ImportError:
            module = getattr(node, "module", None)
            for alias in node.names:
                single = ast.Module([type(node)(**{**vars(node), "names": [alias]})], [])
                try:
                    exec(compile(ast.fix_missing_locations(single), "<imports>", "exec"), ns)
                except ImportError:
                    if not _tolerated(module, alias.name):
                        raise
    ns["np"].random.seed(0)
    return ns


def run_code(source: str, ns: dict, name: str = "<sample>") -> None:
    """Execute a ``testcode`` sample in ``ns``."""
    exec(compile(source, name, "exec"), ns)


def run_doctest(text: str, ns: dict, name: str = "<sample>", random_outputs: tuple[str, ...] = ()) -> str:
    """Run a ``doctest`` sample in ``ns`` (whitespace-normalized comparison, as Sphinx does).

    ``random_outputs`` lists example sources (stripped) whose printed value depends on random
    initialization: they are not run (they only display a value) and the caller checks what the
    value must satisfy instead. Returns the runner's report: empty when every example printed
    what the sample says.
    """
    test = doctest.DocTestParser().get_doctest(text, ns, name, None, 0)
    test.globs = ns  # the guide's later samples see what this one defines
    for example in test.examples:
        if example.source.strip() in random_outputs:
            example.options[doctest.SKIP] = True
    report = io.StringIO()
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE, verbose=False)
    runner.run(test, out=report.write, clear_globs=False)
    return report.getvalue()
