"""``python -m fnet.compat SCRIPT [ARGS]``: run an unchanged Chainer program on fnet.

The alias of ``fnet.compat.install_alias()`` is installed first, so the program's ``import
chainer`` (and ``chainer.functions``, ``from chainer.training import extensions``...) give
fnet's modules; then the program runs as ``python SCRIPT [ARGS]`` would run it: as the module
``__main__``, with ``sys.argv`` set to ``[SCRIPT, *ARGS]`` and the script's folder first on
``sys.path``. ``python -m fnet.compat -m MODULE [ARGS]`` runs a module the same way. The exit
status is the program's, and an error in it shows the program's own traceback. Processes that
multiprocessing starts with spawn or forkserver (macOS's default, and Linux's from Python 3.14)
get the alias too before they import the program again (``fnet.compat._mp_main``).
"""

from __future__ import annotations

import multiprocessing.spawn
import os
import runpy
import sys
import types

from . import _mp_main
from ._alias import install_alias

__all__ = ["main"]

USAGE = """\
usage: python -m fnet.compat SCRIPT [ARGS ...]
       python -m fnet.compat -m MODULE [ARGS ...]

Run a Chainer program unchanged on fnet: `chainer` and every `chainer.*` module
resolve to fnet.compat (see fnet.compat.install_alias), then SCRIPT runs as
`python SCRIPT ARGS` runs it (as __main__, with sys.argv = [SCRIPT, *ARGS] and
the script's folder first on sys.path). With -m, the module MODULE runs as
`python -m MODULE ARGS` runs it. The exit status is the program's.

options:
  -h, --help  show this message and exit
"""


def _program_frames(tb: types.TracebackType | None) -> types.TracebackType | None:
    """``tb`` without its first frames, those of this launcher and of runpy."""
    own = (globals(), vars(runpy))
    while tb is not None and any(tb.tb_frame.f_globals is namespace for namespace in own):
        tb = tb.tb_next
    return tb


def _children_import_through_the_alias(key: str, value: str) -> None:
    """Make the processes that multiprocessing spawns import the program (``key`` is
    ``init_main_from_path`` or ``init_main_from_name`` in their preparation data, ``value`` the
    script or the module) through ``fnet.compat._mp_main``, which installs the alias first."""
    os.environ[_mp_main.ENVIRONMENT] = ("path:" if key == "init_main_from_path" else "module:") + value
    prepare = multiprocessing.spawn.get_preparation_data

    def get_preparation_data(name):
        data = prepare(name)
        if data.get(key) == value:
            del data[key]
            data["init_main_from_name"] = _mp_main.__name__
        return data

    multiprocessing.spawn.get_preparation_data = get_preparation_data


def _run(target: str, args: list[str], as_module: bool) -> None:
    """Run the script (or module) ``target`` as ``__main__`` with the arguments ``args``."""
    if as_module:
        sys.argv = [target, *args]  # runpy puts the module's file in sys.argv[0]
        _children_import_through_the_alias("init_main_from_name", target)
        runpy.run_module(target, run_name="__main__", alter_sys=True)
        return
    if not os.path.exists(target):
        print(
            f"python -m fnet.compat: can't open file {os.path.abspath(target)!r}: no such file",
            file=sys.stderr,
        )
        raise SystemExit(2)
    sys.argv = [target, *args]
    if not sys.flags.safe_path:  # `python SCRIPT` puts the script's folder where -m put the cwd
        if os.path.isfile(target):
            sys.path[0] = os.path.dirname(os.path.abspath(target))
        else:
            del sys.path[0]  # a folder or zip archive: runpy puts it there itself
    _children_import_through_the_alias("init_main_from_path", os.path.normpath(os.path.abspath(target)))
    runpy.run_path(target, run_name="__main__")


def main(argv: list[str] | None = None) -> int:
    """Run the program that ``argv`` (``sys.argv[1:]`` by default) names; return the exit
    status for an error in it (its traceback printed as Python prints it), 0 when it ends."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, end="", file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    as_module = argv[0] == "-m"
    if as_module:
        argv = argv[1:]
        if not argv:
            print("python -m fnet.compat: -m needs the name of a module\n\n" + USAGE, end="", file=sys.stderr)
            return 2
    elif argv[0].startswith("-"):
        print(f"python -m fnet.compat: unknown option {argv[0]!r}\n\n" + USAGE, end="", file=sys.stderr)
        return 2
    install_alias()
    try:
        _run(argv[0], argv[1:], as_module)
    except (SystemExit, KeyboardInterrupt):
        raise  # the program's exit status, and Python's own way out on Ctrl-C
    except BaseException as error:
        tb = _program_frames(error.__traceback__)
        sys.excepthook(type(error), error.with_traceback(tb), tb)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
