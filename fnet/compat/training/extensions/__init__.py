"""``chainer.training.extensions``: the trainer extensions of ``fnet.training.extensions``, and the
two that work on the Chainer layer's Variables (``DumpGraph``, ``unchain_variables``).

Chainer's submodules (``chainer.training.extensions.snapshot_writers``, ``.log_report``...) are
the modules of ``fnet.training.extensions`` under those names too, so that importing them by
their Chainer paths gives the same classes; ``computational_graph`` and ``variable_unchain`` are
modules of this package.
"""

import importlib
import pkgutil
import sys

from ....training import extensions as _extensions
from ....training.extensions import _snapshot as _core_snapshot  # (_snapshot: the Chainer module)
from .computational_graph import DumpGraph
from .variable_unchain import unchain_variables

dump_graph = DumpGraph  # the name of DumpGraph before Chainer v7, still accepted

_FNET_ONLY = {"TensorBoardReport"}  # fnet's own extensions, which chainer.training.extensions lacks
_SHARED = [name for name in _extensions.__all__ if name not in _FNET_ONLY]
globals().update((name, getattr(_extensions, name)) for name in _SHARED)

_CHAINER_OWN = {"_snapshot"}  # modules whose Chainer names differ: declared in fnet.compat._tree

for _info in pkgutil.iter_modules(_extensions.__path__):
    if _info.name not in _CHAINER_OWN:
        _module = importlib.import_module(f"{_extensions.__name__}.{_info.name}")
        sys.modules.setdefault(f"{__name__}.{_info.name}", _module)
        globals().setdefault(_info.name, _module)  # an attribute, as after Chainer's own imports


# -- the helpers of Chainer's chainer.training.extensions._snapshot, on fnet's snapshot files ----
def _find_snapshot_files(fmt: str, path: str) -> list[tuple[int, str]]:
    """``(mtime, name)`` of the snapshot files in ``path`` (names with ``fmt``'s prefix and
    suffix), oldest first."""
    return _core_snapshot._snapshot_files(fmt, path)


def _find_latest_snapshot(fmt: str, path: str) -> str | None:
    """The name of the newest snapshot file in ``path``, or None if there is none."""
    newest = _core_snapshot._snapshots_newest_first(fmt, path)
    return newest[0] if newest else None


def _find_stale_snapshots(fmt: str, path: str, n_retains: int, **kwargs):
    """The names of the snapshot files in ``path`` older than the ``n_retains`` newest, oldest
    first (``num_retain=`` is Chainer's older spelling of ``n_retains``)."""
    n_retains = _core_snapshot._renamed_num_retain(kwargs, n_retains)
    yield from _core_snapshot._stale_snapshots(fmt, path, n_retains)


__all__ = [*_SHARED, "DumpGraph", "dump_graph", "unchain_variables"]
