"""tools/chainer_conformance.py: Chainer's tests run against fnet.compat, counted per area.

The tool is run end to end on a small test tree laid out as Chainer's ``tests/chainer_tests`` is,
so no Chainer checkout is needed.
"""

from __future__ import annotations

import importlib.util
import json
import pathlib
import sys
import textwrap

import pytest

_TOOLS = pathlib.Path(__file__).resolve().parents[2] / "tools"

pytestmark = pytest.mark.skipif(not (_TOOLS / "chainer_conformance.py").exists(), reason="needs tools/")


@pytest.fixture(scope="module")
def tool():
    spec = importlib.util.spec_from_file_location("chainer_conformance", _TOOLS / "chainer_conformance.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _write(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


@pytest.fixture
def chainer_tests(tmp_path):
    """A tree shaped as Chainer's tests/chainer_tests, whose tests import ``chainer``."""
    root = tmp_path / "tests" / "chainer_tests"
    _write(root / "__init__.py", "")
    _write(root / "conftest.py", "")
    _write(
        root / "test_variable.py",
        """
        import numpy
        import chainer

        def test_passes():
            assert chainer.Variable(numpy.ones(2, numpy.float32)).shape == (2,)

        def test_numpy1_names_are_restored():
            assert numpy.product([2, 3]) == 6  # NumPy 1's name, as Chainer's tests call it

        def test_fails():
            raise ValueError("a reason")
        """,
    )
    _write(root / "functions_tests" / "__init__.py", "")
    _write(root / "functions_tests" / "math_tests" / "__init__.py", "")
    _write(root / "functions_tests" / "math_tests" / "test_exp.py", "import chainer.functions.math.no_such\n")
    _write(root / "utils_tests" / "__init__.py", "")
    _write(
        root / "utils_tests" / "test_gpu_only.py",
        """
        import numpy
        import pytest
        from chainer.backends import cuda

        @pytest.mark.gpu
        def test_g():
            x = cuda.to_gpu(numpy.ones(2, numpy.float32))
            assert cuda.available and isinstance(x, cuda.cupy.ndarray) and (cuda.to_cpu(x * 2) == 2).all()
        """,
    )
    return root


def test_areas_are_folders_subfolders_of_the_big_ones_and_top_level_files(tool, chainer_tests):
    assert sorted(tool.areas(chainer_tests)) == ["functions_tests/math_tests", "test_variable", "utils_tests"]


def test_a_run_counts_each_area_and_keeps_a_record_per_test(tool, chainer_tests, tmp_path, capsys):
    out = tmp_path / "out"
    assert tool.main([str(chainer_tests), "--out", str(out), "--python", sys.executable]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["test_variable"]["counts"] == {"passed": 2, "failed": 1}
    assert summary["functions_tests/math_tests"]["files_not_imported"] == [
        "chainer_tests/functions_tests/math_tests/test_exp.py"
    ]
    assert summary["utils_tests"]["counts"] == {}  # the GPU test is not selected
    records = [json.loads(line) for line in (out / "test_variable.jsonl").read_text().splitlines()]
    (failed,) = [r for r in records if r["outcome"] == "failed"]
    assert failed["id"].endswith("test_fails") and "ValueError: a reason" in failed["why"]
    table = capsys.readouterr().out
    assert "TOTAL" in table and "test_variable" in table


def test_the_table_sets_the_counts_beside_the_reference(tool):
    ours = {"test_variable": {"counts": {"passed": 9, "failed": 1}, "files_not_imported": []}}
    reference = {"test_variable": {"counts": {"passed": 10}, "files_not_imported": []}}
    row = next(line for line in tool._table(ours, reference).splitlines() if line.startswith("test_variable"))
    assert row.split()[-2:] == ["10", "90%"]


def test_a_folder_that_is_not_chainers_tests_is_refused(tool, tmp_path):
    with pytest.raises(SystemExit):
        tool.main([str(tmp_path)])


def test_gpu_standin_runs_chainers_gpu_tests_on_the_stand_in_cupy(tool, chainer_tests, tmp_path):
    out = tmp_path / "out"
    argv = [str(chainer_tests), "utils_tests", "test_variable", "--gpu-standin", "--out", str(out)]
    assert tool.main([*argv, "--python", sys.executable]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["utils_tests"]["counts"] == {"passed": 1}  # only the GPU test is selected
    assert summary["test_variable"]["counts"] == {}
    with pytest.raises(SystemExit):
        tool.main([str(chainer_tests), "--gpu-standin", "--target", "chainer"])
