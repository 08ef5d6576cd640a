"""``chainer.warnings``: Chainer's own warning classes."""

from __future__ import annotations

__all__ = ["PerformanceWarning"]


class PerformanceWarning(RuntimeWarning):
    """A computation runs, but slower than it could (for example, without an accelerated path)."""
