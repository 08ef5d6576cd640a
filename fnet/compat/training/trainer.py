"""``chainer.training.trainer``: fnet's ``Trainer`` with Chainer's reporter (reported Variables are
kept without their graph)."""

from __future__ import annotations

from ...training import trainer as _pure
from ..reporter import Reporter

__all__ = ["Trainer"]


class Trainer(_pure.Trainer):
    """Chainer's ``Trainer``: ``fnet.training.Trainer`` whose ``reporter`` is
    ``chainer.Reporter``, so that a reported Variable (a link's loss) keeps no graph alive."""

    _reporter_type = Reporter
