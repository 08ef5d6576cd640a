"""``TextDataset``: the lines of one text file, or of several files side by side, read on access."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from ...errors import message
from .dataset_mixin import DatasetMixin

__all__ = ["TextDataset"]


def _per_file(name: str, value, n: int) -> list:
    """An option given once for all files (a str or None), or one per file, as a list."""
    if value is None or isinstance(value, str):
        return [value] * n
    value = list(value)
    if len(value) != n:
        raise ValueError(
            message(
                "TextDataset",
                f"{name} has {len(value)} entries for {n} text files",
                hint="give one value for all files, or one value per file",
            )
        )
    return value


class TextDataset(DatasetMixin):
    """Line ``i`` of the text file ``paths`` (a str, newline included), or the tuple of the
    ``i``-th lines of several files (a list of paths, all with the same number of lines).

    ``encoding``, ``errors`` and ``newline`` are ``open``'s, given once or per file.
    ``filter_func(*lines)`` keeps the lines for which it returns true. The positions of the
    lines are found once, in the constructor; examples are then read by seeking, so the files
    must not change. A pickled dataset reopens its files and keeps those positions.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), 'lines.txt')
    >>> with open(path, 'w') as f:
    ...     _ = f.write('first\\nsecond\\nthird\\n')
    >>> ds = TextDataset(path, filter_func=lambda line: line != 'second\\n')
    >>> len(ds), ds[1]
    (2, 'third\\n')
    >>> ds.close()
    """

    def __init__(
        self,
        paths: str | Sequence[str],
        encoding: str | Sequence[str] | None = None,
        errors: str | Sequence[str] | None = None,
        newline: str | Sequence[str] | None = None,
        filter_func: Callable[..., bool] | None = None,
    ):
        if isinstance(paths, str):
            paths = [paths]
        elif not paths:
            raise ValueError(
                message("TextDataset", "at least one text file must be specified", hint="pass a path")
            )
        paths = list(paths)
        self._paths = paths
        self._encoding = _per_file("encoding", encoding, len(paths))
        self._errors = _per_file("errors", errors, len(paths))
        self._newline = _per_file("newline", newline, len(paths))
        self._open()
        # bounds[k][n] is where line n of file k starts; lines lists the line numbers kept.
        bounds = tuple([0] for _ in self._fps)
        lines = []
        linenum = 0
        while True:
            data = [fp.readline() for fp in self._fps]
            if not all(data):
                if any(data):
                    self.close()
                    raise ValueError(
                        message(
                            "TextDataset",
                            f"the files {paths} do not have the same number of lines "
                            f"(one ends after line {linenum})",
                        )
                    )
                break
            for k, fp in enumerate(self._fps):
                bounds[k].append(fp.tell())
            if filter_func is None or filter_func(*data):
                lines.append(linenum)
            linenum += 1
        self._bounds = bounds
        self._lines = lines
        self._lock = threading.Lock()

    def _open(self) -> None:
        self._fps = [
            open(path, encoding=encoding, errors=errors, newline=newline)
            for path, encoding, errors, newline in zip(
                self._paths, self._encoding, self._errors, self._newline
            )
        ]

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        del state["_fps"], state["_lock"]
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__ = state
        self._open()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._lines)

    def close(self) -> None:
        """Close the files (done anyway when the dataset is garbage-collected)."""
        failure = None
        for fp in self._fps:
            try:
                fp.close()
            except Exception as e:  # close every file before raising
                failure = e
        if failure is not None:
            raise failure

    def get_example(self, idx: int) -> str | tuple[str, ...]:
        if not 0 <= idx < len(self._lines):
            raise IndexError(f"TextDataset: index {idx} is out of range for length {len(self._lines)}")
        linenum = self._lines[idx]
        with self._lock:
            for k, fp in enumerate(self._fps):
                fp.seek(self._bounds[k][linenum])
            lines = tuple(fp.readline() for fp in self._fps)
        return lines[0] if len(lines) == 1 else lines
