"""The extensions give what Chainer 7.8.1 gives for the same fake trainer (make_extensions.py).

Compared: LogReport's JSON log files (byte for byte) and PrintReport's table, the progress bar
(without its timing line), the values set by every shift extension and the state each one
serializes, MicroAverage's and ParameterStatistics' reports, Evaluator's report for a
Classifier, and the entries LogReport, PrintReport and DumpGraph serialize.
"""

from __future__ import annotations

import json
import re

import numpy
import pytest

import fnet.compat as chainer
import fnet.compat.datasets  # noqa: F401 - chainer.datasets
import fnet.compat.iterators  # noqa: F401 - chainer.iterators
import fnet.compat.training  # noqa: F401 - chainer.training (with its extensions)

from ..._scripts import GOLDEN, load_golden

MAKER = load_golden("make_extensions")
EXPECTED = json.loads((GOLDEN / "extensions.json").read_text())


def _close(actual, expected, path="") -> None:
    """Equal structures; floats equal to 1e-6 relative (the float32 sums may round differently)."""
    if isinstance(expected, float) and isinstance(actual, (int, float)):
        assert type(actual) is type(expected) or isinstance(actual, float), path
        assert actual == pytest.approx(expected, rel=1e-6, abs=1e-12), path
    elif isinstance(expected, dict):
        assert isinstance(actual, dict) and sorted(actual) == sorted(expected), path
        for key in expected:
            _close(actual[key], expected[key], f"{path}/{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), path
        for i, (a, e) in enumerate(zip(actual, expected)):
            _close(a, e, f"{path}/{i}")
    else:
        assert actual == expected, path


def _rounded_floats(text: str) -> str:
    """``text`` with every float literal rounded to 6 significant digits."""
    return re.sub(r"-?\d+\.\d+(e-?\d+)?", lambda m: f"{float(m.group()):.6g}", text)


def test_log_files_are_chainers():
    """Same files, same layout (indent, key order, ints as ints), same values.

    The means match to float32 precision: the reporter's sums follow NumPy's casting rules,
    under which Chainer (on NumPy 1.26) sums float32 values in float64 (see the report of the
    reporter's Summary)."""
    got = MAKER.log_and_print(chainer)
    expected = EXPECTED["log_and_print"]["files"]
    assert list(got["files"]) == list(expected)
    for name, text in expected.items():
        assert _rounded_floats(got["files"][name]) == _rounded_floats(text), name
        _close(json.loads(got["files"][name]), json.loads(text), name)
    _close(got["log"], EXPECTED["log_and_print"]["log"])


@pytest.mark.skipif(
    numpy.lib.NumpyVersion(numpy.__version__) >= "2.0.0",
    reason="under NumPy 2, fnet.training.reporter.Summary sums float32 values in float32 (a Python "
    "float is weak under NEP 50) where Chainer on NumPy 1.26 sums them in float64",
)
def test_log_files_are_chainers_byte_for_byte():
    assert MAKER.log_and_print(chainer)["files"] == EXPECTED["log_and_print"]["files"]


def test_print_report_table_is_chainers():
    got = MAKER.log_and_print(chainer)
    assert got["printed"] == EXPECTED["log_and_print"]["printed"]
    assert got["own"] == EXPECTED["log_and_print"]["own"]


def test_progress_bar_layout_is_chainers():
    assert MAKER.progress_bar(chainer) == EXPECTED["progress_bar"]


@pytest.mark.parametrize("case", sorted(EXPECTED["shifts"]))
def test_shift_values_and_state(case):
    got = MAKER.shifts(chainer)[case]
    expected = EXPECTED["shifts"][case]
    assert got["values"] == pytest.approx(expected["values"], rel=1e-12)
    _close(got["state"], expected["state"])


def test_micro_average():
    assert MAKER.micro_average(chainer) == EXPECTED["micro_average"]


def test_parameter_statistics():
    got = MAKER.parameter_statistics(chainer)
    assert sorted(got) == sorted(EXPECTED["parameter_statistics"])
    for key, value in EXPECTED["parameter_statistics"].items():
        assert got[key] == pytest.approx(value, rel=1e-5, abs=1e-6), key


def test_evaluator_reports_validation_main_names():
    got = MAKER.evaluator(chainer)
    _close(
        {k: v for k, v in got.items() if k != "first"},
        {k: v for k, v in EXPECTED["evaluator"].items() if k != "first"},
    )
    for key, value in EXPECTED["evaluator"]["first"].items():
        assert got["first"][key] == pytest.approx(value, rel=1e-5), key


def test_serialized_entries():
    _close(MAKER.serialized(chainer), EXPECTED["serialized"])


def test_chainers_serialized_log_report_loads():
    """The entries Chainer wrote for a LogReport load into fnet's and give back its log."""
    saved = {key: numpy.asarray(value) for key, value in EXPECTED["serialized"]["log"].items()}
    log = chainer.training.extensions.LogReport(trigger=(2, "iteration"))
    log.serialize(chainer.serializers.NpzDeserializer(saved))
    assert log.log == json.loads(EXPECTED["serialized"]["log"]["_log"])
    assert log._summary.compute_mean() == {"main/loss": 3.0, "n": 6.0}
