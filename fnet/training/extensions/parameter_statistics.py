"""``ParameterStatistics``: report statistics (mean, std, percentiles...) of parameters and grads.

For each link, parameter, attribute (``data`` and/or ``grad``) and statistic, the value is
reported as ``'{prefix}/{link name}{parameter path}/{attribute}/{statistic}'`` (for example
``'l1/W/data/mean'``); a statistic with several values (the percentiles) adds ``/0``, ``/1``...
The values are averaged over the interval of ``trigger`` and reported when it fires.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy

from ... import backend
from .. import reporter as _reporter
from ..extension import PRIORITY_WRITER, Extension
from ..triggers.interval import get_trigger

__all__ = ["ParameterStatistics"]

_PERCENTILE_SIGMAS = (0.13, 2.28, 15.87, 50, 84.13, 97.72, 99.87)  # the normal's -3 to +3 sigmas


def _mean(x):
    return backend.xp(x).mean(x)


def _std(x):
    return backend.xp(x).std(x)


def _min(x):
    return backend.xp(x).min(x)


def _max(x):
    return backend.xp(x).max(x)


def _zeros(x):
    return backend.xp(x).count_nonzero(x == 0)


def _percentile(x):
    return backend.xp(x).percentile(x, _PERCENTILE_SIGMAS)


_DEFAULT_STATISTICS = {
    "mean": _mean,
    "std": _std,
    "min": _min,
    "max": _max,
    "zeros": _zeros,
    "percentile": _percentile,
}


class ParameterStatistics(Extension):
    """Report statistics of the parameters (and gradients) of ``links``.

    Args:
        links: a Chainer link or a list of them; their ``namedparams()`` are examined.
        statistics: a dict ``name -> function(flat array) -> value or 1-d array``; ``'default'``
            for mean, std, min, max, zeros (the count of zeros) and percentile (at the -3 to
            +3 sigma points of a normal distribution); None for none (see
            ``register_statistics``).
        report_params: report statistics of the parameters' values (attribute ``data``).
        report_grads: report statistics of their gradients (attribute ``grad``).
        prefix: a prefix of the reported names.
        trigger: when to report the means accumulated since the last report.
        skip_nan_params: report NaN for an array that holds a NaN, without computing.

    A parameter that is not initialized yet (or has no gradient) is skipped.
    """

    default_name = "parameter_statistics"
    priority = PRIORITY_WRITER
    report_key_template = "{prefix}{link_name}{param_name}/{attr_name}/{function_name}"
    default_statistics = _DEFAULT_STATISTICS

    def __init__(
        self,
        links: Any,
        statistics: dict[str, Callable] | str | None = "default",
        report_params: bool = True,
        report_grads: bool = True,
        prefix: str | None = None,
        trigger: Any = (1, "epoch"),
        skip_nan_params: bool = False,
    ):
        if not isinstance(links, (list, tuple)):
            links = (links,)
        for link in links:
            if not callable(getattr(link, "namedparams", None)):
                raise TypeError(
                    f"ParameterStatistics: links must be Chainer links (or a list of them), got "
                    f"{type(link).__name__}\n  hint: e.g. ParameterStatistics(model.predictor)"
                )
        self._links = links
        if statistics is None:
            statistics = {}
        elif isinstance(statistics, str):
            if statistics != "default":
                raise ValueError(
                    f"ParameterStatistics: statistics must be a dict, None or 'default', got {statistics!r}"
                )
            statistics = self.default_statistics
        self._statistics = dict(statistics)
        self._attrs = [name for name, on in (("data", report_params), ("grad", report_grads)) if on]
        self._prefix = prefix
        self._trigger = get_trigger(trigger)
        self._summary = _reporter.DictSummary()
        self._skip_nan_params = skip_nan_params

    def __call__(self, trainer) -> None:
        """Compute the statistics; report their means when the trigger fires."""
        statistics = {}
        prefix = self._prefix + "/" if self._prefix else ""
        for link in self._links:
            link_name = getattr(link, "name", "None")
            for param_name, param in link.namedparams():
                if param.array is None:  # not drawn yet: no data, and a grad that may not be read
                    continue
                for attr_name in self._attrs:
                    values = getattr(param, attr_name)
                    if values is None:
                        continue
                    values = values.ravel()
                    for function_name, function in self._statistics.items():
                        if self._skip_nan_params and backend.xp(values).isnan(values).any():
                            value = numpy.nan
                        else:
                            value = function(values)
                        key = self.report_key_template.format(
                            prefix=prefix,
                            link_name=link_name,
                            param_name=param_name,
                            attr_name=attr_name,
                            function_name=function_name,
                        )
                        if backend.is_array(value) and value.size > 1:
                            statistics.update({f"{key}/{i}": v for i, v in enumerate(value)})
                        else:
                            statistics[key] = value
        self._summary.add(statistics)
        if self._trigger(trainer):
            _reporter.report(self._summary.compute_mean())
            self._summary = _reporter.DictSummary()

    def register_statistics(self, name: str, function: Callable) -> None:
        """Add the statistic ``name``: ``function(flat array)`` gives a number or a 1-d array."""
        self._statistics[name] = function
