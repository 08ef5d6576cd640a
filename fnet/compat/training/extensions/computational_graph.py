"""``chainer.training.extensions.computational_graph``: ``DumpGraph`` writes the computational
graph of a reported Variable as a Graphviz dot file.

The graph is drawn at the first iteration from the reported variable named ``root_name`` (the
loss, typically ``'main/loss'``). Reported Variables normally keep no graph, so the extension
turns ``chainer.config.keep_graph_on_report`` on before training and restores it once the
graph is written. When Graphviz's ``dot`` command is installed, a PNG image is made too.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from typing import Any

from ....training.extension import Extension
from ....training.extensions.snapshot_writers import write_atomically
from ...computational_graph import build_computational_graph
from ...configuration import config
from ...variable import Variable

__all__ = ["DumpGraph", "is_graphviz_available"]

_VARIABLE_STYLE = {"shape": "octagon", "fillcolor": "#E0E0E0", "style": "filled"}
_FUNCTION_STYLE = {"shape": "record", "fillcolor": "#6495ED", "style": "filled"}


def is_return_code_zero(args) -> bool:
    """Whether the command ``args`` (a list of strings) runs and exits with status 0; its output
    is discarded."""
    try:
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    except (OSError, subprocess.CalledProcessError):
        return False
    return True


def is_graphviz_available() -> bool:
    """Whether Graphviz's ``dot`` command can be run."""
    dot = shutil.which("dot")
    return dot is not None and is_return_code_zero([dot, "-V"])


def _write_text(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


class DumpGraph(Extension):
    """Write the graph of the reported Variable ``root_name`` to ``trainer.out/filename``, once.

    Args:
        root_name: the name of the reported Variable the graph ends in (e.g. ``'main/loss'``).
        filename: the dot file under the output directory (``'cg.dot'`` when None;
            ``out_name`` is its old name).
        variable_style: dot attributes of the variable nodes (grey octagons when None).
        function_style: dot attributes of the function nodes (blue records when None).

    Keep its default trigger: it runs at the first iteration only, and the graphs are kept in
    the meantime (see ``chainer.config.keep_graph_on_report``).
    """

    default_name = "dump_graph"

    def __init__(
        self,
        root_name: str,
        filename: str | None = None,
        variable_style: dict | None = None,
        function_style: dict | None = None,
        **kwargs: Any,
    ):
        out_name = kwargs.pop("out_name", "cg.dot")
        if kwargs:
            raise TypeError(
                f"DumpGraph() got unexpected keyword argument(s) {', '.join(map(repr, kwargs))}\n"
                "  hint: the arguments are root_name, filename (or out_name), variable_style, function_style"
            )
        self._root_name = root_name
        self._filename = out_name if filename is None else filename
        self._variable_style = _VARIABLE_STYLE if variable_style is None else variable_style
        self._function_style = _FUNCTION_STYLE if function_style is None else function_style
        self._original_flag: bool | None = None
        self._flag_called = False
        self._flag_set = False  # whether initialize turned the flag on and it is still to restore

    def initialize(self, trainer) -> None:
        """Turn ``keep_graph_on_report`` on (unless the graph was already written)."""
        if not self._flag_called:
            self._original_flag = config.keep_graph_on_report
            config.keep_graph_on_report = True
            self._flag_set = True

    def trigger(self, trainer) -> bool:
        """True at the first call only."""
        if self._flag_called:
            return False
        self._flag_called = True
        return True

    def __call__(self, trainer) -> None:
        """Write the graph (and its PNG image with Graphviz), then restore the flag."""
        try:
            var = trainer.observation.get(self._root_name)
            if not isinstance(var, Variable):
                raise TypeError(
                    f"DumpGraph: the root value {self._root_name!r} is not a Variable, got "
                    f"{type(var).__name__}\n  hint: root_name must name a reported Variable, such as "
                    "'main/loss' for a Classifier (reported values: "
                    f"{sorted(trainer.observation)})"
                )
            graph = build_computational_graph(
                [var], variable_style=self._variable_style, function_style=self._function_style
            )
            write_atomically(self._filename, trainer.out, graph.dump(), _write_text)
            if is_graphviz_available():
                path = os.path.join(trainer.out, self._filename)
                image = os.path.join(trainer.out, os.path.splitext(self._filename)[0] + ".png")
                subprocess.run(["dot", "-Tpng", path, "-o", image], check=True)
        finally:
            self._restore_flag()

    def _restore_flag(self) -> None:
        config.keep_graph_on_report = self._original_flag
        self._flag_set = False

    def serialize(self, serializer) -> None:
        """Save or load the flag to restore (``_original_flag``) and whether the graph was written
        (``_flag_called``). A snapshot loaded after ``initialize`` (``snapshot(autoload=True)``)
        in which the graph was written restores the flag at once."""
        original = self._original_flag
        self._original_flag = serializer("_original_flag", self._original_flag)
        self._flag_called = serializer("_flag_called", self._flag_called)
        if self._flag_set and self._flag_called:
            self._original_flag = original  # the flag as it was before this run's initialize
            self._restore_flag()
