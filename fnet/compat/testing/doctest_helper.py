"""``chainer.testing.doctest_helper``: conditions for skipping the examples of documentation.

Each returns whether to skip: never in a Read the Docs build (``READTHEDOCS=True``), where a
skipped example would vanish from the pages.
"""

from __future__ import annotations

import importlib.metadata
import os
import re

__all__ = ["skipif", "skipif_requires_satisfied", "skipif_not_enough_cuda_devices"]


def skipif(condition: bool) -> bool:
    """``condition``, except in a Read the Docs build (False there)."""
    if os.environ.get("READTHEDOCS") == "True":
        return False
    return bool(condition)


def _satisfied(requirement: str) -> bool:
    """Whether an installed distribution meets ``requirement`` (``'name'`` or ``'name>=1.0'``)."""
    name = re.split(r"[<>=!~;\[ ]", requirement.strip(), maxsplit=1)[0]
    try:
        version = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return False
    if name == requirement.strip():
        return True
    try:
        from packaging.requirements import Requirement
    except ImportError as error:
        raise ImportError(
            f"skipif_requires_satisfied: checking the version in {requirement!r} needs the "
            "'packaging' package\n  hint: pip install packaging, or give the name alone"
        ) from error
    return Requirement(requirement).specifier.contains(version, prereleases=True)


def skipif_requires_satisfied(*requirements: str) -> bool:
    """Skip when every requirement (``'name'``, ``'name>=1.0'``) is met by what is installed."""
    return skipif(all(_satisfied(r) for r in requirements))


def skipif_not_enough_cuda_devices(device_count: int) -> bool:
    """Skip when ``CHAINER_TEST_GPU_LIMIT`` (if set, >= 0) allows fewer GPUs than ``device_count``."""
    limit = int(os.getenv("CHAINER_TEST_GPU_LIMIT", "-1"))
    return skipif(0 <= limit < device_count)
