"""The main module of the processes that multiprocessing starts (spawn, forkserver) for a
program run by ``python -m fnet.compat``.

Such a process imports its parent's main module again, as ``__mp_main__``, so that the
functions and classes pickled by reference to ``__main__`` are found. The program imports
``chainer``, so the launcher names this module instead (see ``fnet.compat.__main__``): it
installs the alias, then runs the program (``$FNET_COMPAT_MAIN``: ``path:SCRIPT`` or
``module:NAME``) as ``__mp_main__``. Imported under any other name, it does nothing.
"""

from __future__ import annotations

import os
import runpy

from ._alias import install_alias

__all__: list[str] = []

ENVIRONMENT = "FNET_COMPAT_MAIN"

if __name__ == "__mp_main__":
    install_alias()
    _kind, _, _target = os.environ[ENVIRONMENT].partition(":")
    if _kind == "module":
        globals().update(runpy.run_module(_target, run_name="__mp_main__"))
    else:
        globals().update(runpy.run_path(_target, run_name="__mp_main__"))
