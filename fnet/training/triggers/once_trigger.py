"""``OnceTrigger``: fire at the first call only (and again after a resume, if asked).

>>> trigger = OnceTrigger()
>>> trigger(None), trigger(None), trigger.finished
(True, False, True)
"""

from __future__ import annotations

import warnings

__all__ = ["OnceTrigger"]


class OnceTrigger:
    """Fires at its first call; with ``call_on_resume=True``, also at the first call after the
    trainer is loaded from a snapshot.

    Attributes:
        finished: True when the trigger will not fire again.
    """

    def __init__(self, call_on_resume: bool = False):
        self._flag_first = True
        self._flag_resumed = call_on_resume

    @property
    def finished(self) -> bool:
        """Whether the trigger will not fire again."""
        return not (self._flag_first or self._flag_resumed)

    def __call__(self, trainer) -> bool:
        """True at the first call (after construction, or after a resume with ``call_on_resume``)."""
        fire = not self.finished
        self._flag_first = self._flag_resumed = False
        return fire

    def serialize(self, serializer) -> None:
        """Save or load whether the first call is still to come (``_flag_first``)."""
        try:
            self._flag_first = serializer("_flag_first", self._flag_first)
        except KeyError:
            warnings.warn(
                "OnceTrigger: the snapshot has no _flag_first; the trigger is taken to have fired "
                "already, which is wrong if the snapshot was taken before its first call",
                stacklevel=2,
            )
            self._flag_first = False
