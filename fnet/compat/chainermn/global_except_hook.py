"""``chainermn.global_except_hook``: an uncaught exception on one rank aborts every rank.

``add_hook()`` installs ``fnet.distributed.abort_on_exception``; ``import chainermn`` does it
when the environment variable ``CHAINERMN_FORCE_ABORT_ON_EXCEPTION`` is set and not empty.
"""

from __future__ import annotations

import os
import warnings

from ...distributed import failure

__all__ = ["add_hook"]


def add_hook() -> None:
    """Abort the MPI job (``MPI_Abort``) when any rank has an uncaught exception."""
    if not failure.abort_on_exception():
        warnings.warn(
            "chainermn.global_except_hook.add_hook() was called more than once; ignored", stacklevel=2
        )


def _add_hook_if_enabled() -> None:
    # the code of ChainerMN reads the name without the S, its documentation with it
    if os.environ.get("CHAINERMN_FORCE_ABORT_ON_EXCEPTION") or os.environ.get(
        "CHAINERMN_FORCE_ABORT_ON_EXCEPTIONS"
    ):
        add_hook()
