"""``LogReport``: average the observations over an interval and append them to a JSON log file.

The log is a JSON list with one dict per interval: the mean of every reported value, then
``epoch``, ``iteration`` and ``elapsed_time`` (seconds since training started), written with
an indent of 4 as Chainer writes it, so tools that read Chainer's ``result/log`` read it too.

The same entries can also go to a CSV file and a JSON-lines file, one row per entry, appended
and flushed as each entry is made (``csv_filename='log.csv'``, ``jsonl_filename='log.jsonl'``),
which other tools can follow while the training runs. The CSV header lists every key seen, in
the order of first appearance: an entry that brings a new key (``validation/main/loss`` after
the first evaluation) rewrites the file with the wider header, the earlier rows getting empty
cells. After a resume the files hold each entry once: the first write of a run rewrites them
(atomically) from the entries of the snapshot.
"""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from ...serialization import Serializer
from .. import reporter as _reporter
from ..extension import Extension
from ..triggers.interval import get_trigger
from . import _util
from ._row_log import RowFile
from .snapshot_writers import Writer, write_atomically

__all__ = ["LogReport"]


def _write_json(path: str, log: list) -> None:
    """The save function of the log: ``log`` as indented JSON."""
    with open(path, "w") as f:
        json.dump(log, f, indent=4)


class LogReport(Extension):
    """Accumulate the observations and, each time ``trigger`` fires, append their means to the log.

    The extension itself runs every iteration (to see every observation); ``trigger`` decides
    when an entry is made (and when the log file is rewritten). An entry is also made when the
    extension is called before training.

    Args:
        keys: the names of the values to log (all reported values when None).
        trigger: when to make an entry: a trigger or a ``(period, unit)`` pair.
        postprocess: ``postprocess(entry)`` may edit each entry (a dict) before it is logged.
        filename: the log file under ``trainer.out``, formatted with the entry (e.g.
            ``'log_{iteration}'``); None writes no file (as documented by Chainer, whose code
            writes ``'log'`` instead). ``log_name`` is its old name.
        writer: a snapshot writer to write the file with (e.g. ``ThreadWriter()``); the file is
            written atomically in the calling thread when None.
        csv_filename: a CSV file under ``trainer.out`` that gets a row per entry (None: none).
        jsonl_filename: a JSON-lines file under ``trainer.out`` that gets a line per entry
            (None: none). Both are written in the calling thread.

    >>> class Updater:
    ...     epoch, iteration = 0, 0
    >>> class Trainer:  # what LogReport reads from the trainer
    ...     updater, observation, elapsed_time, is_before_training, out = Updater(), {}, 0.5, False, "."
    >>> trainer, log_report = Trainer(), LogReport(trigger=(2, "iteration"), filename=None)
    >>> for i, loss in enumerate([4.0, 2.0, 1.0, 3.0], 1):
    ...     trainer.updater.iteration, trainer.observation = i, {"main/loss": loss}
    ...     log_report(trainer)
    >>> for entry in log_report.log:
    ...     print(entry)
    {'main/loss': 3.0, 'epoch': 0, 'iteration': 2, 'elapsed_time': 0.5}
    {'main/loss': 2.0, 'epoch': 0, 'iteration': 4, 'elapsed_time': 0.5}
    """

    def __init__(
        self,
        keys: Iterable[str] | None = None,
        trigger: Any = (1, "epoch"),
        postprocess: Callable[[dict], None] | None = None,
        filename: str | None = "log",
        writer: Writer | None = None,
        *,
        csv_filename: str | None = None,
        jsonl_filename: str | None = None,
        **kwargs: Any,
    ):
        if "log_name" in kwargs:
            filename = kwargs.pop("log_name")
        if kwargs:
            raise TypeError(
                f"LogReport() got unexpected keyword argument(s) {', '.join(map(repr, kwargs))}\n"
                "  hint: the arguments are keys, trigger, postprocess, filename (or log_name), writer, "
                "csv_filename, jsonl_filename"
            )
        self._keys = keys
        self._trigger = get_trigger(trigger)
        self._postprocess = postprocess
        self._log_name = filename
        self._writer = writer
        self._log: list[dict] = []
        self._summary = _reporter.DictSummary()
        self._row_files = [
            RowFile(name, kind) for name, kind in ((csv_filename, "csv"), (jsonl_filename, "jsonl")) if name
        ]

    def __call__(self, trainer) -> None:
        """Add the current observation; make an entry (and write the file) if the trigger fires."""
        _util.accumulate(self._summary, trainer.observation, self._keys)
        if not (trainer.is_before_training or self._trigger(trainer)):
            return
        entry = _util.host_means(self._summary, trainer.updater)
        entry["elapsed_time"] = trainer.elapsed_time
        if self._postprocess is not None:
            self._postprocess(entry)
        self._log.append(entry)
        if self._log_name is not None:
            log_name = self._log_name.format(**entry)
            if self._writer is None:
                write_atomically(log_name, trainer.out, self._log, _write_json)
            else:
                self._writer(log_name, trainer.out, list(self._log), savefun=_write_json)
        for row_file in self._row_files:
            row_file.write(trainer.out, self._log)
        self._summary = _reporter.DictSummary()

    @property
    def log(self) -> list[dict]:
        """The entries made so far (a list of dicts)."""
        return self._log

    def serialize(self, serializer) -> None:
        """Save or load the trigger (``_trigger/``), the pending sums (``_summary/``) and the log,
        as JSON text (``_log``)."""
        if hasattr(self._trigger, "serialize"):
            self._trigger.serialize(serializer["_trigger"])
        try:
            self._summary.serialize(serializer["_summary"])
        except KeyError:
            warnings.warn("The statistics are not saved.", stacklevel=2)
        if isinstance(serializer, Serializer):
            serializer("_log", json.dumps(self._log))
        else:
            self._log = json.loads(str(serializer("_log", "")))
            for row_file in self._row_files:
                row_file.forget()
