"""Run Chainer 7.8.1's own unit tests, unchanged, against ``fnet.compat`` and print a table per area.

    python tools/chainer_conformance.py PATH/TO/chainer/tests/chainer_tests
    python tools/chainer_conformance.py PATH --target chainer --python CHAINER_VENV/bin/python \
        --out ref/                       # the same selection against real Chainer (NumPy 1.26)
    python tools/chainer_conformance.py PATH --reference ref/   # fnet, with Chainer's counts beside

It fetches nothing: PATH is the ``tests/chainer_tests`` folder of a Chainer 7.8.1 checkout. Each area
(a test folder, a ``functions_tests``/``links_tests`` subfolder, or a top-level ``test_*.py``) runs
in its own pytest process, so that one crash costs one area. The selection is Chainer's CPU tests:
``-m "not gpu and not cudnn and not slow and not chainerx and not ideep"`` (``--marks EXPR`` for
another). ``--gpu-standin`` runs Chainer's GPU tests instead (``-m "gpu and not cudnn and not
multi_gpu and not slow and not ideep"``) with the test suite's stand-in CuPy
(``tests/_device_double.py``) as ``chainer.backends.cuda.cupy``: fnet.compat's GPU paths, checked on
a machine without a GPU. Every outcome is kept
in ``OUT/<area>.jsonl`` (one JSON record per test), and ``OUT/summary.json`` holds the counts.
"""

from __future__ import annotations

import argparse
import collections
import concurrent.futures
import json
import os
import pathlib
import subprocess
import sys
import tempfile

MARKERS = "not gpu and not cudnn and not slow and not chainerx and not ideep"
GPU_MARKERS = "gpu and not cudnn and not multi_gpu and not slow and not ideep"
_SPLIT = ("functions_tests", "links_tests")  # folders big enough to report per subfolder
_HERE = pathlib.Path(__file__).resolve().parent


def areas(tests: pathlib.Path) -> dict[str, list[pathlib.Path]]:
    """Area name -> the test paths it runs."""
    found: dict[str, list[pathlib.Path]] = {}
    for entry in sorted(tests.iterdir()):
        if entry.is_dir() and entry.name.endswith("_tests"):
            if entry.name in _SPLIT:
                loose = sorted(entry.glob("test_*.py"))
                if loose:
                    found[entry.name] = loose
                for sub in sorted(p for p in entry.iterdir() if p.is_dir() and p.name.endswith("_tests")):
                    found[f"{entry.name}/{sub.name}"] = [sub]
            else:
                found[entry.name] = [entry]
        elif entry.is_file() and entry.name.startswith("test_") and entry.suffix == ".py":
            found[entry.stem] = [entry]
    return found


def run_area(name, paths, args, out: pathlib.Path) -> dict:
    """Run one area's tests in a fresh pytest process; its counts."""
    log = out / (name.replace("/", "__") + ".jsonl")
    log.unlink(missing_ok=True)
    env = dict(os.environ)
    env["FNET_CONFORMANCE_OUT"] = str(log)
    env["FNET_CONFORMANCE_TARGET"] = args.target
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(_HERE), env.get("PYTHONPATH", "")]))
    if args.gpu_standin:
        env["FNET_CONFORMANCE_GPU_STANDIN"] = str(_HERE.parent)  # the repository, for tests/
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    if args.pairwise:
        env["CHAINER_TEST_PAIRWISE_PARAMETERIZATION"] = "always"
    command = [
        args.python,
        "-m",
        "pytest",
        "-p",
        "_conformance_plugin",
        "-q",
        "-p",
        "no:cacheprovider",
        "--continue-on-collection-errors",
        "--tb=short",
        "-rN",
        "-m",
        args.marks,
        *([f"--timeout={args.timeout}"] if args.timeout else []),
        *map(str, paths),
    ]
    # Chainer's tests import their helpers as ``chainer_tests.*``: run from the folder above.
    result = subprocess.run(
        command, cwd=args.tests.parent, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    counts = collections.Counter()
    bad_files = set()
    if log.exists():
        for line in log.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            counts[record["outcome"]] += 1
            if record["when"] == "collect":
                bad_files.add(record["id"])
    if result.returncode not in (0, 1, 5) and not counts:
        counts["crashed"] += 1
        (out / (name.replace("/", "__") + ".crash.txt")).write_text(result.stdout[-20000:])
    return {"counts": dict(counts), "files_not_imported": sorted(bad_files)}


def _table(summary: dict, reference: dict | None) -> str:
    rows = [("area", "passed", "failed", "error", "skipped", "no-import", "chainer", "ratio")]
    total = collections.Counter()
    ref_total = 0
    for name, area in sorted(summary.items()):
        c = area["counts"]
        total.update(c)
        ref = reference.get(name, {}).get("counts", {}).get("passed") if reference else None
        ref_total += ref or 0
        ratio = f"{c.get('passed', 0) / ref:.0%}" if ref else "-"
        rows.append(
            (
                name,
                c.get("passed", 0),
                c.get("failed", 0),
                c.get("error", 0),
                c.get("skipped", 0),
                len(area["files_not_imported"]),
                "-" if ref is None else ref,
                ratio,
            )
        )
    files_not_imported = sum(len(a["files_not_imported"]) for a in summary.values())
    rows.append(
        (
            "TOTAL",
            total["passed"],
            total["failed"],
            total["error"],
            total["skipped"],
            files_not_imported,
            ref_total if reference else "-",
            f"{total['passed'] / ref_total:.1%}" if reference and ref_total else "-",
        )
    )
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    return "\n".join(
        "  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w) for i, (v, w) in enumerate(zip(row, widths)))
        for row in rows
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tests", type=pathlib.Path, help="a Chainer 7.8.1 checkout's tests/chainer_tests")
    parser.add_argument("areas", nargs="*", help="only these areas (default: all)")
    parser.add_argument(
        "--target",
        choices=("fnet", "chainer"),
        default="fnet",
        help="fnet: `chainer` resolves to fnet.compat; chainer: the real package",
    )
    parser.add_argument("--python", default=sys.executable, help="the interpreter that runs pytest")
    parser.add_argument("--out", type=pathlib.Path, help="folder for the per-test records")
    parser.add_argument("--reference", type=pathlib.Path, help="an --out folder of a --target chainer run")
    parser.add_argument("--jobs", type=int, default=1, help="areas run at once")
    parser.add_argument("--timeout", type=int, default=0, help="seconds per test (needs pytest-timeout)")
    parser.add_argument(
        "--gpu-standin",
        action="store_true",
        help="Chainer's GPU tests, on the stand-in CuPy of tests/_device_double.py (fnet only)",
    )
    parser.add_argument(
        "--marks",
        default=None,
        help="pytest's -m expression (default: Chainer's CPU tests; the ChainerX variants: "
        "'chainerx and not gpu and not cuda and not cudnn and not ideep and not slow')",
    )
    parser.add_argument(
        "--pairwise", action="store_true", help="Chainer's pairwise parameterization (far fewer cases)"
    )
    args = parser.parse_args(argv)
    if args.gpu_standin and args.target != "fnet":
        parser.error("--gpu-standin runs fnet.compat only (real Chainer needs a real GPU)")
    if args.marks is None:
        args.marks = GPU_MARKERS if args.gpu_standin else MARKERS
    args.tests = args.tests.resolve()
    args.python = os.path.abspath(args.python) if os.sep in args.python else args.python
    if not (args.tests / "conftest.py").exists():
        parser.error(f"{args.tests} is not a Chainer checkout's tests/chainer_tests folder")
    out = args.out or pathlib.Path(tempfile.mkdtemp(prefix="chainer-conformance-"))
    out.mkdir(parents=True, exist_ok=True)
    chosen = {
        k: v
        for k, v in areas(args.tests).items()
        if not args.areas or any(k == a or k.startswith(a + "/") for a in args.areas)
    }
    summary = {}
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = {pool.submit(run_area, name, paths, args, out): name for name, paths in chosen.items()}
        for future in concurrent.futures.as_completed(futures):
            name = futures[future]
            summary[name] = future.result()
            print(f"{name}: {summary[name]['counts']}", file=sys.stderr, flush=True)
    (out / "summary.json").write_text(json.dumps(summary, indent=1, sort_keys=True))
    reference = None
    if args.reference:
        reference = json.loads((args.reference / "summary.json").read_text())
    print(_table(summary, reference))
    print(f"records: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
