"""``chainer.utils.nondeterministic``: the warning of code whose results may vary between runs."""

from __future__ import annotations

import warnings

from .. import configuration

__all__ = ["nondeterministic"]


def nondeterministic(f_name: str) -> None:
    """Warn that ``f_name`` may not give the same result twice (GPU atomic adds...), when
    ``chainer.config.warn_nondeterministic`` is set."""
    if configuration.config.warn_nondeterministic:
        warnings.warn(
            f"{f_name}: potentially non-deterministic code is running while "
            "config.warn_nondeterministic is set",
            stacklevel=2,
        )
