"""PrintReport: the table layout (Chainer's, see also test_golden.py), its log report, serialization."""

from __future__ import annotations

import io

import pytest

from fnet.compat.serializers import DictionarySerializer, NpzDeserializer
from fnet.training.extensions import LogReport, PrintReport


def _printed(out):
    return out.getvalue().replace("\033[J", "")


def test_header_once_then_one_row_per_new_entry(make_trainer):
    trainer = make_trainer()
    trainer.extend(LogReport(trigger=(2, "iteration"), filename=None), "LogReport", trigger=(1, "iteration"))
    out = io.StringIO()
    trainer.extend(
        PrintReport(["iteration", "main/loss", "missing", "a_long_column_name"], out=out),
        "p",
        (1, "iteration"),
    )
    for i in range(1, 5):
        trainer.step({"main/loss": 1.0 / i, "a_long_column_name": 12345678.0})
    lines = _printed(out).split("\n")
    assert lines[0] == "iteration   main/loss   missing     a_long_column_name"
    assert lines[1] == "2           0.75                    1.23457e+07         "
    assert lines[2].startswith("4           0.291667    ")
    assert lines[3] == ""
    assert "\033" not in out.getvalue()  # not a terminal: no escape codes


def test_on_a_terminal_each_row_erases_what_a_progress_bar_drew(make_trainer):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    trainer = make_trainer()
    trainer.extend(LogReport(trigger=(2, "iteration"), filename=None), "LogReport", trigger=(1, "iteration"))
    out = Terminal()
    trainer.extend(PrintReport(["iteration"], out=out), "p", (1, "iteration"))
    for _ in range(4):
        trainer.step({})
    assert out.getvalue() == "iteration \n\033[J2           \n\033[J4           \n"


def test_own_log_report_is_driven_and_serialized(make_trainer):
    trainer = make_trainer()
    out = io.StringIO()
    printer = PrintReport(
        ["epoch", "x"], log_report=LogReport(trigger=(1, "iteration"), filename=None), out=out
    )
    trainer.extend(printer, "p", (1, "iteration"))
    trainer.step({"x": 3.0})
    assert _printed(out).splitlines()[1].split() == ["0", "3"]
    serializer = DictionarySerializer()
    printer.serialize(serializer)
    assert "_log_report/_log" in serializer.target
    fresh = PrintReport(["x"], log_report=LogReport(filename=None), out=io.StringIO())
    fresh.serialize(NpzDeserializer(serializer.target))
    assert fresh._log_report.log[0]["x"] == 3.0


def test_a_wrong_log_report_is_a_type_error(make_trainer):
    printer = PrintReport(["x"], log_report=42, out=io.StringIO())
    with pytest.raises(TypeError, match="PrintReport: log_report must be the name of a LogReport"):
        printer(make_trainer())


def test_an_unregistered_name_is_the_trainers_error(make_trainer):
    with pytest.raises(KeyError):
        PrintReport(["x"], out=io.StringIO())(make_trainer())
