"""Trainer extensions: reporting, snapshots, evaluation, hyperparameter shifts and more.

Each extension is a callable ``extension(trainer)`` that the ``Trainer`` runs after updates when
its trigger fires (see ``fnet.training.extension``). They work for Chainer-style training (links
and compat optimizers) and for pure step functions (``FunctionalUpdater``), with Chainer's
names, defaults, file formats and serialization keys: ``chainer.training.extensions`` is this
package plus the two extensions that work on the Chainer layer's Variables (``DumpGraph``,
``unchain_variables``, in ``fnet.compat.training.extensions``).
"""

from . import snapshot_writers
from ._snapshot import snapshot, snapshot_object
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
from .warmup_shift import WarmupShift

__all__ = [
    "snapshot_writers",
    "snapshot",
    "snapshot_object",
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
    "WarmupShift",
]
