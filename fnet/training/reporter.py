"""Reporting observed values by name (Chainer's ``Reporter``), and their running summaries.

A ``Reporter`` writes ``report(values, observer)`` into its current observation dict, each name
prefixed with the observer's registered name (``'main/loss'``). The reporter made current by
``with reporter:`` or ``reporter.scope(observation)`` is the one the module-level ``report``
uses, so any code (a loss function, a link) can report without holding a reporter.
"""

from __future__ import annotations

import contextlib
import json
import threading
import warnings
from collections import defaultdict

import numpy

from .. import backend
from ..autodiff.tracer import unbox_all
from ..errors import FnetError
from ..recording import is_recording
from ..recording._record import record_effect

__all__ = [
    "Reporter",
    "report",
    "report_scope",
    "get_current_reporter",
    "Summary",
    "DictSummary",
    "ObserverError",
]


class ObserverError(FnetError, KeyError):
    """Values were reported for an observer that the reporter does not know (a ``KeyError``, as
    in Chainer), or an evaluation reported nothing under the observers it registered."""

    def __str__(self) -> str:  # the message, not KeyError's quoted repr of it
        return str(self.args[0]) if self.args else ""


def _describe_observer(observer) -> str:
    """An observer as named in messages: its type, and its name when it is a function."""
    name = getattr(observer, "__qualname__", None)
    return f"function {name!r}" if callable(observer) and name else f"{type(observer).__name__} object"


_local = threading.local()


def _stack() -> list:
    stack = getattr(_local, "reporters", None)
    if stack is None:
        stack = _local.reporters = []
    return stack


class Reporter:
    """Collects reported values into the current observation, named after their observers."""

    def __init__(self):
        self._observer_names: dict[int, str] = {}
        self.observation: dict = {}

    def __enter__(self):
        _stack().append(self)
        return self

    def __exit__(self, *exc):
        _stack().pop()

    @contextlib.contextmanager
    def scope(self, observation: dict):
        """Within the block, this reporter is current and reports go into ``observation``."""
        old = self.observation
        self.observation = observation
        self.__enter__()
        try:
            yield
        finally:
            self.__exit__()
            self.observation = old

    def add_observer(self, name: str, observer) -> None:
        """Register ``observer`` under ``name``: its values are reported as ``name/key``."""
        self._observer_names[id(observer)] = name

    def add_observers(self, prefix: str, observers) -> None:
        """Register each ``(name, observer)`` pair under ``prefix + name``."""
        for name, observer in observers:
            self._observer_names[id(observer)] = prefix + name

    def report(self, values: dict, observer=None) -> None:
        """Write ``values`` into the observation, prefixed with ``observer``'s name if given."""
        values = {key: self._detach(value) for key, value in values.items()}
        if observer is not None:
            name = self._observer_names.get(id(observer))
            if name is None:
                raise ObserverError(
                    f"Reporter.report: the given observer ({_describe_observer(observer)}) is not "
                    f"registered to the reporter; registered: {sorted(self._observer_names.values())}\n"
                    "  hint: report with an observer registered by reporter.add_observer(name, observer): "
                    "the trainer registers each optimizer's target link, an Evaluator its targets"
                )
            values = {f"{name}/{key}": value for key, value in values.items()}
        self.observation.update(values)

    def _detach(self, value):
        """The value as kept in an observation: without its graph."""
        return unbox_all(value)


def get_current_reporter() -> Reporter:
    """The innermost current reporter."""
    stack = _stack()
    if not stack:
        raise RuntimeError("get_current_reporter: no reporter is current\n  hint: use `with reporter:`")
    return stack[-1]


def report(values: dict, observer=None) -> None:
    """Report ``values`` to the current reporter (nothing happens when none is current).

    Inside a step being captured (``fnet.capture``) the report is recorded as an op of its own:
    each replay reports the values it computes, to the reporter current then."""
    if is_recording():
        # a value that presents an array (a Chainer Variable) is made again around each replay's
        wrappers = {k: type(v) for k, v in values.items() if hasattr(v, "array") and not backend.is_array(v)}
        arrays = {key: _value(v) for key, v in values.items()}
        record_effect(_report_replayed, (arrays, wrappers, observer), {})
        return
    _report_now(values, observer)


def _report_replayed(arrays: dict, wrappers: dict, observer) -> None:
    _report_now({k: wrappers[k](v) if k in wrappers else v for k, v in arrays.items()}, observer)


def _report_now(values: dict, observer) -> None:
    stack = _stack()
    if stack:
        stack[-1].report(values, observer)


@contextlib.contextmanager
def report_scope(observation: dict):
    """Within the block, the current reporter writes into ``observation``."""
    with get_current_reporter().scope(observation):
        yield


def _value(x):
    x = getattr(x, "array", x)
    return unbox_all(x)


class Summary:
    """A running weighted mean and standard deviation of scalar values."""

    def __init__(self):
        self._x = 0.0
        self._x2 = 0.0
        self._n = 0

    def add(self, value, weight=1) -> None:
        """Add ``value`` (a number, a 0-dim array or Variable) with ``weight``; float values are
        summed in float64 (as Chainer's sums come out on NumPy 1.x, whatever NumPy runs here)."""
        value, weight = _value(value), _value(weight)
        if getattr(value, "dtype", None) is not None and value.dtype.kind == "f":
            value = value.astype(numpy.float64)
        self._x += weight * value
        self._x2 += weight * value * value
        self._n += weight

    def compute_mean(self):
        """The weighted mean of the values added so far."""
        return self._x / self._n

    def make_statistics(self) -> tuple:
        """``(mean, std)`` of the values added so far."""
        mean = self._x / self._n
        var = self._x2 / self._n - mean * mean
        xp = backend.xp(var) if backend.is_array(var) else numpy
        return mean, xp.sqrt(xp.maximum(var, 0.0))

    def serialize(self, serializer) -> None:
        """Save or load the running sums (keys ``_x``, ``_x2``, ``_n``). A snapshot without them
        (one of Chainer before v5) is loaded with a warning, keeping the sums as they are."""
        try:
            self._x = serializer("_x", self._x)
            self._x2 = serializer("_x2", self._x2)
            self._n = serializer("_n", self._n)
        except KeyError:
            warnings.warn(
                "Summary.serialize: the snapshot holds no sums (_x, _x2, _n): the statistics start anew",
                UserWarning,
                stacklevel=2,
            )


class DictSummary:
    """A ``Summary`` per name, for dicts of reported scalars (other values are skipped)."""

    def __init__(self):
        self._summaries: dict[str, Summary] = defaultdict(Summary)

    def add(self, d: dict) -> None:
        """Add each scalar of ``d``; a value ``(v, w)`` is ``v`` with weight ``w``."""
        for key, value in d.items():
            weight = 1
            if isinstance(value, tuple):
                value, weight = value
                weight = _value(weight)
                if not (numpy.isscalar(weight) or getattr(weight, "ndim", -1) == 0):
                    raise ValueError(
                        f"DictSummary.add: the weight given to {key} must be a scalar, got {weight!r}"
                    )
            value = _value(value)
            if numpy.isscalar(value) or getattr(value, "ndim", -1) == 0:
                self._summaries[key].add(value, weight)

    def compute_mean(self) -> dict:
        """The mean of each name."""
        return {key: s.compute_mean() for key, s in self._summaries.items()}

    def make_statistics(self) -> dict:
        """The mean of each name, and its standard deviation as ``name + '.std'``."""
        stats = {}
        for key, s in self._summaries.items():
            stats[key], stats[key + ".std"] = s.make_statistics()
        return stats

    def serialize(self, serializer) -> None:
        """Save or load every summary in Chainer's layout: the names as a JSON list under
        ``_names``, summary ``i`` under ``_summaries/i``. Loading replaces the summaries; a
        snapshot without names (one of Chainer before v5) leaves none, with a warning."""
        try:
            # a saver gives the names back; a loader, the saved ones
            names = json.loads(str(serializer("_names", json.dumps(list(self._summaries)))))
        except KeyError:
            self._summaries.clear()
            warnings.warn(
                "DictSummary.serialize: the snapshot holds no names of statistics (_names): they start anew",
                UserWarning,
                stacklevel=2,
            )
            return
        kept = self._summaries
        self._summaries = defaultdict(Summary, {name: kept.get(name) or Summary() for name in names})
        for index, name in enumerate(names):
            self._summaries[name].serialize(serializer["_summaries"][str(index)])
