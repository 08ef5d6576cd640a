"""``python -m fnet.compat SCRIPT [ARGS]`` runs a program as ``python SCRIPT [ARGS]`` would,
with ``chainer`` resolved to fnet.compat (the training example is in tests/examples)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _launch(*args: str, cwd: pathlib.Path) -> subprocess.CompletedProcess:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    return subprocess.run(
        [sys.executable, "-m", "fnet.compat", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _write(path: pathlib.Path, source: str) -> pathlib.Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(source))
    return path


PROBE = """\
    import sys
    import chainer
    import chainer.functions as F
    from chainer.training import extensions
    import fnet.compat
    import helper  # a module beside the script: its folder is first on sys.path

    assert chainer is fnet.compat and F is fnet.compat.functions
    assert extensions is fnet.compat.training.extensions
    print("name", __name__)
    print("argv", sys.argv)
    print("path0", sys.path[0])
    print("helper", helper.VALUE)
    print("relu", F.relu(chainer.Variable(fnet.compat.backend.numpy.array([-1.0, 2.0]))).array.tolist())
"""


def test_runs_a_script_as_main_with_its_arguments(tmp_path):
    script = _write(tmp_path / "prog" / "probe.py", PROBE)
    _write(tmp_path / "prog" / "helper.py", "VALUE = 42\n")
    result = _launch("prog/probe.py", "--epoch", "3", "x y", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines == [
        "name __main__",
        "argv ['prog/probe.py', '--epoch', '3', 'x y']",
        f"path0 {script.parent}",
        "helper 42",
        "relu [0.0, 2.0]",
    ]


def test_runs_a_module_with_dash_m(tmp_path):
    _write(tmp_path / "pkg" / "__init__.py", "")
    _write(
        tmp_path / "pkg" / "tool.py", "import sys, chainer\nprint(__name__, sys.argv[1:], chainer.__name__)\n"
    )
    result = _launch("-m", "pkg.tool", "a", "--b", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "__main__ ['a', '--b'] fnet.compat\n"


@pytest.mark.parametrize(
    "code, status, stderr",
    [("sys.exit(3)", 3, ""), ("sys.exit(0)", 0, ""), ("pass", 0, ""), ("sys.exit('bye')", 1, "bye\n")],
)
def test_the_exit_status_is_the_programs(tmp_path, code, status, stderr):
    _write(tmp_path / "exits.py", f"import sys, chainer\n{code}\n")
    result = _launch("exits.py", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (status, stderr)


def test_an_error_shows_the_programs_own_traceback(tmp_path):
    _write(
        tmp_path / "fails.py",
        """\
        import chainer

        def train():
            raise ValueError("boom")

        train()
        """,
    )
    result = _launch("fails.py", cwd=tmp_path)
    assert result.returncode == 1
    # Python 3.13 underlines the failing expression (a line of ~ and ^): not a frame
    lines = [line for line in result.stderr.splitlines() if line.strip(" ~^")]
    assert lines == [
        "Traceback (most recent call last):",
        '  File "fails.py", line 6, in <module>',
        "    train()",
        '  File "fails.py", line 4, in train',
        '    raise ValueError("boom")',
        "ValueError: boom",
    ]


def test_a_syntax_error_is_reported_as_python_reports_it(tmp_path):
    _write(tmp_path / "broken.py", "import chainer\nx = (\n")
    result = _launch("broken.py", cwd=tmp_path)
    assert result.returncode == 1
    assert "runpy" not in result.stderr and "fnet" not in result.stderr
    assert 'File "broken.py", line 2' in result.stderr and "SyntaxError" in result.stderr


def test_help_and_usage_errors(tmp_path):
    for flag in ("-h", "--help"):
        result = _launch(flag, cwd=tmp_path)
        assert result.returncode == 0 and result.stdout.startswith(
            "usage: python -m fnet.compat SCRIPT [ARGS ...]"
        )
    result = _launch(cwd=tmp_path)
    assert result.returncode == 2 and result.stderr.startswith("usage:")
    result = _launch("missing.py", cwd=tmp_path)
    assert result.returncode == 2
    assert f"can't open file {str(tmp_path / 'missing.py')!r}" in result.stderr
    result = _launch("-m", cwd=tmp_path)
    assert result.returncode == 2 and "-m needs the name of a module" in result.stderr
    result = _launch("--fast", "x.py", cwd=tmp_path)
    assert result.returncode == 2 and "unknown option '--fast'" in result.stderr


def test_importing_the_launcher_runs_nothing():
    import fnet.compat.__main__ as launcher

    assert callable(launcher.main) and launcher.__all__ == ["main"]


POOL = """\
    import concurrent.futures
    import multiprocessing
    import sys

    import numpy

    import chainer
    import chainer.functions as F


    def relu_sum(values):
        return float(F.relu(chainer.Variable(numpy.array(values, numpy.float32))).array.sum())


    if __name__ == "__main__":
        for method in sys.argv[1:]:
            context = multiprocessing.get_context(method)  # a worker that fails to start fails the map
            with concurrent.futures.ProcessPoolExecutor(2, mp_context=context) as pool:
                print(method, list(pool.map(relu_sum, [[-1.0, 2.0], [3.0, -4.0, 5.0]])))
"""


@pytest.mark.parametrize("as_module", [False, True], ids=["script", "module"])
def test_processes_that_multiprocessing_starts_import_chainer_too(tmp_path, as_module):
    """spawn and forkserver import the program again in the new process: it finds chainer there."""
    import multiprocessing

    methods = [m for m in ("spawn", "forkserver", "fork") if m in multiprocessing.get_all_start_methods()]
    _write(tmp_path / "pool_prog.py", POOL)
    target = ["-m", "pool_prog"] if as_module else ["pool_prog.py"]
    result = _launch(*target, *methods, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [f"{method} [2.0, 8.0]" for method in methods]
