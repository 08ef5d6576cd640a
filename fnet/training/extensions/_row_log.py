"""The CSV and JSON-lines files of ``LogReport``: one row per log entry, appended and flushed.

A row file is rewritten whole (atomically, from the entries the ``LogReport`` holds) the first
time it is written in a process, and when a CSV row brings a key that the header lacks; after
that each new entry is appended as a row and flushed. Since a resumed ``LogReport`` holds the
entries of its snapshot, the rows written after the snapshot by the run that stopped are
dropped by that first rewrite, and the resumed run appends its own: no row is lost or repeated,
and a row torn by a crash in the middle of an append is repaired. A fresh run replaces the file
of an earlier run in the same place, as the JSON log is replaced.
"""

from __future__ import annotations

import csv
import json
import os

from .snapshot_writers import write_atomically


def _columns(entries: list[dict]) -> list[str]:
    """Every key of ``entries``, in the order of first appearance."""
    return list(dict.fromkeys(key for entry in entries for key in entry))


def _csv_rows(f, entries: list[dict], columns: list[str]) -> None:
    writer = csv.writer(f)
    for entry in entries:
        writer.writerow([entry.get(column, "") for column in columns])


def _jsonl_rows(f, entries: list[dict], columns: list[str]) -> None:
    for entry in entries:
        f.write(json.dumps(entry) + "\n")


class RowFile:
    """One row file of a log: ``'csv'`` (a header of the columns, then a row per entry, with an
    empty cell for a key that an entry lacks) or ``'jsonl'`` (a JSON object per line)."""

    def __init__(self, filename: str, kind: str):
        self.filename = filename
        self._rows = _csv_rows if kind == "csv" else _jsonl_rows
        self._header = kind == "csv"
        self._written: int | None = None  # entries in the file (None: not written in this process)
        self._columns: list[str] = []

    def write(self, outdir: str, log: list[dict]) -> None:
        """Bring the file in ``outdir`` up to date with ``log``: append the new entries, or
        rewrite the file when it has not been written in this process or the header grows."""
        new = log[self._written :] if self._written is not None else log
        if self._header and any(key not in self._columns for entry in new for key in entry):
            self._written = None  # a new column: the header and every row change
        if self._written is None:
            self._columns = _columns(log) if self._header else []
            write_atomically(self.filename, outdir, log, self._rewrite)
        else:
            with open(os.path.join(outdir, self.filename), "a", newline="", encoding="utf-8") as f:
                self._rows(f, new, self._columns)
                f.flush()
        self._written = len(log)

    def forget(self) -> None:
        """Rewrite the file at the next write (the log was replaced, e.g. loaded from a snapshot)."""
        self._written = None

    def _rewrite(self, path: str, log: list[dict]) -> None:
        with open(path, "w", newline="", encoding="utf-8") as f:
            if self._header:
                csv.writer(f).writerow(self._columns)
            self._rows(f, log, self._columns)
