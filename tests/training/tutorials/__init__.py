"""The seeds' trainer tutorials as text, one module per tutorial (issue #7's acceptance).

Each module keeps a tutorial's code samples character for character as the seed prints them
(Chainer v7 docs, 001_a6ceb6043eab99b7.txt), with the indentation (and the spacing) that the
text dump lost put back from Chainer 7.8.1's documentation and example sources. ``programs``
runs them as whole programs with the harness of tests/compat/tutorials (``namespace``,
``run_code``). Nothing here imports fnet: the same programs run under fnet through the
``chainer`` alias (tests/training/test_tutorials.py) and under Chainer 7.8.1 itself
(tests/golden/make_training_tutorials.py).

Only a sample's settings may be shrunk (epochs, batch sizes, unit counts, intervals), through
:func:`shrink`, which names the change where it is made.
"""

from __future__ import annotations

__all__ = ["shrink"]


def shrink(source: str, *changes: tuple[str, str]) -> str:
    """``source`` with each ``(old, new)`` setting replaced; each ``old`` must occur exactly once,
    so a sample that changes cannot be shrunk silently in the wrong place."""
    for old, new in changes:
        count = source.count(old)
        if count != 1:
            raise ValueError(f"shrink: expected {old!r} once in the sample, found it {count} times")
        source = source.replace(old, new)
    return source
