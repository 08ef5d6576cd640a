"""Trainer extensions: reporting, snapshots, evaluation, hyperparameter shifts and more.

Each extension is a callable ``extension(trainer)`` that the ``Trainer`` runs after updates when
its trigger fires (see ``fnet.training.extension``). They work for Chainer-style training (links
and compat optimizers) and for pure step functions (``FunctionalUpdater``), with Chainer's
names, defaults, file formats and serialization keys: this package is
``chainer.training.extensions``.
"""

from . import snapshot_writers
from ._snapshot import snapshot, snapshot_object
from .computational_graph import DumpGraph
from .evaluator import Evaluator
from .exponential_shift import ExponentialShift
from .fail_on_nonnumber import FailOnNonNumber
from .inverse_shift import InverseShift
from .linear_shift import LinearShift
from .log_report import LogReport
from .micro_average import MicroAverage
from .multistep_shift import MultistepShift
from .parameter_statistics import ParameterStatistics
from .plot_report import PlotReport
from .polynomial_shift import PolynomialShift
from .print_report import PrintReport
from .progress_bar import ProgressBar
from .step_shift import StepShift
from .tensorboard_report import TensorBoardReport
from .value_observation import observe_lr, observe_value
from .variable_statistics_plot import VariableStatisticsPlot
from .variable_unchain import unchain_variables
from .warmup_shift import WarmupShift

dump_graph = DumpGraph  # the name of DumpGraph before Chainer v7, still accepted

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
    "TensorBoardReport",
    "observe_lr",
    "observe_value",
    "VariableStatisticsPlot",
    "unchain_variables",
    "WarmupShift",
]
