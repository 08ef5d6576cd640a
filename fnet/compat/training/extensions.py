"""``chainer.training.extensions``: the trainer extensions of ``fnet.training.extensions``.

Chainer's submodules (``chainer.training.extensions.snapshot_writers``, ``.log_report``...) are
the modules of ``fnet.training.extensions`` under those names too, so that importing them by
their Chainer paths gives the same classes.
"""

import importlib
import pkgutil
import sys

from ...training import extensions as _extensions
from ...training.extensions import (
    DumpGraph,
    Evaluator,
    ExponentialShift,
    FailOnNonNumber,
    InverseShift,
    LinearShift,
    LogReport,
    MicroAverage,
    MultistepShift,
    ParameterStatistics,
    PlotReport,
    PolynomialShift,
    PrintReport,
    ProgressBar,
    StepShift,
    VariableStatisticsPlot,
    WarmupShift,
    dump_graph,
    observe_lr,
    observe_value,
    snapshot,
    snapshot_object,
    snapshot_writers,
    unchain_variables,
)

for _info in pkgutil.iter_modules(_extensions.__path__):
    sys.modules.setdefault(
        f"{__name__}.{_info.name}", importlib.import_module(f"{_extensions.__name__}.{_info.name}")
    )

__all__ = [
    "snapshot_writers",
    "snapshot",
    "snapshot_object",
    "DumpGraph",
    "dump_graph",
    "Evaluator",
    "ExponentialShift",
    "FailOnNonNumber",
    "InverseShift",
    "LinearShift",
    "LogReport",
    "MicroAverage",
    "MultistepShift",
    "ParameterStatistics",
    "PlotReport",
    "PolynomialShift",
    "PrintReport",
    "ProgressBar",
    "StepShift",
    "observe_lr",
    "observe_value",
    "VariableStatisticsPlot",
    "unchain_variables",
    "WarmupShift",
]
