"""pytest plugin loaded by ``chainer_conformance.py``: records every test's outcome as JSON lines.

With ``FNET_CONFORMANCE_TARGET=fnet`` it first makes ``import chainer`` give ``fnet.compat``, and
restores the NumPy 1 names that Chainer 7.8.1's tests call (``numpy.product``...), which NumPy 2
removed: the tests themselves run unchanged. With ``FNET_CONFORMANCE_GPU_STANDIN`` (the repository's
folder) it installs the test suite's stand-in CuPy first, so that Chainer's GPU tests run.
"""

from __future__ import annotations

import json
import os

import numpy

_NUMPY1_NAMES = {
    "product": "prod",
    "cumproduct": "cumprod",
    "alltrue": "all",
    "sometrue": "any",
    "float_": "float64",
    "complex_": "complex128",
    "NaN": "nan",
    "Inf": "inf",
}

_STANDIN = []  # the stand-in CuPy, installed for the whole run (FNET_CONFORMANCE_GPU_STANDIN)

if os.environ.get("FNET_CONFORMANCE_TARGET") == "fnet":
    for _old, _new in _NUMPY1_NAMES.items():
        if not hasattr(numpy, _old):
            setattr(numpy, _old, getattr(numpy, _new))
    if os.environ.get("FNET_CONFORMANCE_GPU_STANDIN"):  # before fnet.compat binds its CuPy
        import importlib
        import sys

        sys.path.insert(0, os.environ["FNET_CONFORMANCE_GPU_STANDIN"])
        _device_double = importlib.import_module("tests._device_double")
        _device_double.lenient_outside_fnet(True)  # Chainer's tests compare device and host arrays
        _STANDIN.append(_device_double.installed())
        _STANDIN[0].__enter__()
    import fnet.compat

    fnet.compat.install_alias()

_OUT = os.environ.get("FNET_CONFORMANCE_OUT")


def _write(record: dict) -> None:
    if _OUT:
        with open(_OUT, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")


def _reason(text: str) -> str:
    """The exception lines of a failure report, short: Chainer's parameterized tests re-raise
    every error as "Parameterized test failed.", so the first exception line is kept too."""
    lines = text.strip().splitlines()
    raised = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
    if not raised:
        return (lines[-1] if lines else "")[:300]
    first = next((ln for ln in raised if "Error" in ln or "Exception" in ln), raised[0])
    last = raised[-1]
    return (first if first == last else f"{first} ... {last}")[:400]


def pytest_collectreport(report):
    if report.failed:
        _write(
            {
                "id": report.nodeid,
                "when": "collect",
                "outcome": "error",
                "why": str(report.longrepr).strip().splitlines()[-1][:300],
            }
        )


def pytest_runtest_logreport(report):
    if report.when == "call" or report.outcome != "passed":
        outcome = report.outcome
        if report.when != "call" and outcome == "failed":
            outcome = "error"
        why = ""
        if outcome in ("failed", "error") and report.longrepr is not None:
            lines = str(report.longrepr).strip().splitlines()
            why = next((ln for ln in reversed(lines) if ln.startswith("E ")), lines[-1] if lines else "")[
                :300
            ]
        _write({"id": report.nodeid, "when": report.when, "outcome": outcome, "why": why})
