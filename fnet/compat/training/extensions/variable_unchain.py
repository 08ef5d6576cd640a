"""``chainer.training.extensions.variable_unchain``: ``unchain_variables`` cuts the graphs of the
reported variables after the other extensions ran.

When ``chainer.config.keep_graph_on_report`` is on, reported Variables keep their graphs (so
that, e.g., ``DumpGraph`` can draw them); this extension, run last (priority 0), cuts them at
the iterations where the flag was on, so the graphs do not pile up in memory.
"""

from __future__ import annotations

from ....training.extension import Extension
from ...configuration import config
from ...variable import Variable

__all__ = ["unchain_variables"]


class unchain_variables(Extension):  # a class with a function-like name, as in Chainer
    """Call ``unchain_backward()`` on every Variable of the observation, at the iterations that
    follow one where ``keep_graph_on_report`` was on."""

    priority = 0

    def __init__(self):
        self._prev_flag: bool | None = None

    def initialize(self, trainer) -> None:
        """Remember the flag as it is before training."""
        self._prev_flag = config.keep_graph_on_report

    def trigger(self, trainer) -> bool:
        """Whether the flag was on at the previous check (and remember it as it is now)."""
        flag = self._prev_flag
        self._prev_flag = config.keep_graph_on_report
        return bool(flag)

    def __call__(self, trainer) -> None:
        """Cut the graph of every Variable in the observation."""
        for value in trainer.observation.values():
            if isinstance(value, Variable):
                value.unchain_backward()
