"""benchmarks/run.py: both thread settings by default, the thread variables of each worker, and
the flag on a case slower at default threads than at 1 thread."""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

import numpy
import pytest

RUN = pathlib.Path(__file__).resolve().parents[2] / "benchmarks" / "run.py"

pytestmark = pytest.mark.skipif(not RUN.exists(), reason="needs the repository's benchmarks/")


@pytest.fixture(scope="module")
def run():
    spec = importlib.util.spec_from_file_location("benchmarks_run", RUN)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_both_settings_by_default_and_one_with_threads(run):
    assert run.parse_args([]).settings == [1, run.DEFAULT]
    assert run.parse_args(["--threads", "2"]).settings == [2]
    assert run.parse_args(["--threads", "default"]).settings == [run.DEFAULT]
    assert run.parse_args(["--quick"]).rounds == 3


def test_resnet50_step_runs_by_default_on_a_gpu_and_when_asked_on_the_cpu(run):
    """Its steps take seconds on the CPU: a default CPU run leaves it out (every other case in)."""
    cpu = run.parse_args([]).cases
    assert "resnet50_step" not in cpu and "resnet50_infer" in cpu
    assert len(cpu) == len(run.shared.CASES) - 1
    assert run.parse_args(["--device", "@cupy:0"]).cases == list(run.shared.CASES)
    assert run.parse_args(["--cases", "resnet50_step"]).cases == ["resnet50_step"]


def test_resnet50_step_batch_is_chosen_by_device(run):
    cpu, gpu = (run.shared.make_data("resnet50_step", device) for device in ("@numpy", "@cupy:1"))
    assert cpu["x"].shape == (run.shared.RESNET_STEP_BATCH["cpu"], 3, 224, 224) == (4, 3, 224, 224)
    assert gpu["x"].shape == (32, 3, 224, 224) and gpu["t"].shape == (32,)
    # the same weights as resnet50_infer, and the GPU's batch begins with the CPU's
    infer = run.shared.make_data("resnet50_infer")
    assert all(numpy.array_equal(cpu[k], infer[k]) for k in infer if k != "x")
    assert numpy.array_equal(gpu["x"][:4], cpu["x"]) and numpy.array_equal(gpu["t"][:4], cpu["t"])


@pytest.mark.parametrize("bad", ["0", "two", "-1"])
def test_threads_must_be_a_positive_number_or_default(run, bad, capsys):
    with pytest.raises(SystemExit):
        run.parse_args(["--threads", bad])
    assert "--threads must be a number of at least 1 or 'default'" in capsys.readouterr().err


def test_default_threads_leave_the_thread_variables_unset(run):
    environ = {"PATH": "/bin", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "4"}
    env = run.worker_env(environ, run.DEFAULT)
    assert env == {"PATH": "/bin"}
    pinned = run.worker_env(environ, 3)
    assert {var: pinned[var] for var in run.THREAD_VARS} == dict.fromkeys(run.THREAD_VARS, "3")
    assert pinned["PATH"] == "/bin"


def test_a_case_more_than_ten_percent_slower_at_default_threads_is_flagged(run):
    assert run.slower_at_default(10.0, 11.5) == (1.15, True)
    assert run.slower_at_default(10.0, 10.5) == (1.05, False)
    assert run.slower_at_default(10.0, 6.0) == (0.6, False)
    assert run.slower_at_default(None, 6.0) == (None, False)


def test_a_quick_run_prints_both_tables_and_the_comparison():
    done = subprocess.run(
        [sys.executable, str(RUN), "--quick", "--frameworks", "fnet", "--cases", "per_op"]
        + ["--rounds", "1", "--batch-time", "0.01", "--warmup", "0.01", "--settle", "0"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "1 thread per framework: median time per repetition" in out
    assert "default threads (the thread variables unset" in out
    assert "default threads over 1 thread" in out
    assert "thread pools loaded by each worker" in out
    assert out.count("| per_op ") == 3  # the two tables and the comparison


def test_baseline_must_be_a_checkout(run, tmp_path, capsys):
    with pytest.raises(SystemExit):
        run.parse_args(["--baseline", str(tmp_path)])
    assert "is not an fnet checkout" in capsys.readouterr().err


def test_a_baseline_run_compares_this_checkout_with_the_other():
    # this checkout as its own baseline: the A/B machinery end to end, with both workers' results
    done = subprocess.run(
        [sys.executable, str(RUN), "--quick", "--frameworks", "fnet", "--cases", "per_op", "--threads", "1"]
        + ["--rounds", "1", "--batch-time", "0.01", "--warmup", "0.01", "--baseline", str(RUN.parents[1])],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "fnet (base)" in out
    assert "this checkout over the baseline" in out
    assert "largest: per_op / fnet / 1 thread: " in out


@pytest.fixture(scope="module")
def worker():
    spec = importlib.util.spec_from_file_location("benchmarks_worker", RUN.parent / "worker.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_peak_memory_is_what_one_step_holds_at_once(worker):
    import numpy

    kept = numpy.ones(10**6)  # held before the step: not counted

    def step():
        a = numpy.ones(10**6)  # 8 MB, then another 8 MB while the first is alive, then freed
        b = a + 1
        return float(b[0] + kept[0])

    peak = worker.peak_memory(step)
    assert 16e6 <= peak < 17e6


def test_a_run_with_memory_prints_the_peak_memory_table():
    done = subprocess.run(
        [sys.executable, str(RUN), "--quick", "--frameworks", "fnet,numpy", "--cases", "grad_penalty"]
        + ["--threads", "1", "--rounds", "1", "--batch-time", "0.01", "--warmup", "0.01", "--memory"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    out = done.stdout
    assert "peak memory of one step at 1 thread" in out
    row = next(line for line in out.splitlines() if line.startswith("| grad_penalty") and "x |" not in line)
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert all(float(c) > 0 for c in cells[-2:])  # fnet and NumPy by hand, in MB


def test_fnet_captured_is_reported_not_available_without_fnet_capture():
    import fnet

    done = subprocess.run(
        [sys.executable, str(RUN), "--quick", "--frameworks", "fnet,captured", "--cases", "per_op"]
        + ["--threads", "1", "--rounds", "1", "--batch-time", "0.01", "--warmup", "0.01"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("| per_op "))
    cells = [c.strip() for c in row.strip("|").split("|")]
    if hasattr(fnet, "capture"):
        assert "fnet-captured/fnet" in done.stdout
        assert float(cells[3]) > 0  # case, unit, fnet, fnet-captured
    else:
        assert "captured: not available: this checkout's fnet has no fnet.capture" in done.stdout
        assert cells[3] == "n/a"


def test_keep_heap_sets_glibcs_tunables_after_the_callers(run):
    env = run.worker_env({"PATH": "/bin"}, 1, keep_heap=True)
    assert env["GLIBC_TUNABLES"] == run.KEEP_HEAP
    env = run.worker_env({"GLIBC_TUNABLES": "glibc.cpu.x86_ibt=on"}, 1, keep_heap=True)
    assert env["GLIBC_TUNABLES"] == "glibc.cpu.x86_ibt=on:" + run.KEEP_HEAP
    assert "GLIBC_TUNABLES" not in run.worker_env({"PATH": "/bin"}, 1)


def test_minor_faults_count_fresh_pages(worker):
    import mmap

    pages = 256
    with mmap.mmap(-1, pages * mmap.PAGESIZE) as fresh:  # anonymous memory, not touched yet
        before = worker.minor_faults()
        for page in range(pages):
            fresh[page * mmap.PAGESIZE] = 1
        assert worker.minor_faults() - before >= pages


def test_verbose_run_reports_page_faults_per_repetition():
    done = subprocess.run(
        [sys.executable, str(RUN), "--quick", "--frameworks", "fnet", "--cases", "per_op", "--threads", "1"]
        + ["--rounds", "1", "--batch-time", "0.01", "--warmup", "0.01", "--keep-heap", "-v"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "--keep-heap: every worker runs with GLIBC_TUNABLES=" in done.stdout
    header = next(line for line in done.stdout.splitlines() if "page faults/rep" in line)
    row = done.stdout.splitlines()[done.stdout.splitlines().index(header) + 2]
    assert row.split("|")[-2].strip().isdigit()
