#!/usr/bin/env python
"""Benchmark fnet against Chainer and PyTorch, interleaved, in one run.

    python benchmarks/run.py [--threads N|default] [--rounds N] [--cases a,b] [--quick]

One persistent worker process per framework and thread setting
(benchmarks/worker.py): fnet runs in this interpreter's environment, Chainer
and PyTorch in the virtual environments made by benchmarks/setup_peers.sh,
and "compat" runs Chainer's own case code unchanged on fnet.compat (here
too); "numpy" is no framework but the work itself written by hand in NumPy,
for the cases where that shows a floor (cases_numpy.py).  Each worker builds
every case once from the same numpy arrays (benchmarks/shared.py) and warms
up; then, round after round, the runner asks each worker in turn (the order
rotates every round) to time one batch of repetitions of each case.  The
table gives the median time per repetition over all rounds, and the ratios
fnet/Chainer, fnet/PyTorch and fnet/NumPy-by-hand (above 1: fnet is
slower), and fnet.compat's to pure fnet and to Chainer.

By default every framework runs twice, interleaved: once with 1 thread (the
thread variables set to 1) and once with the machine's default threads (the
thread variables unset in the worker, as a user who pins nothing runs it).
There is a table for each, then each framework's time at default threads
over its time at 1 thread, with fnet's and fnet.compat's flagged where it is
more than 10% above.  ``--threads N`` (or ``--threads default``) runs only
that setting.

``--device @cupy:0`` runs fnet (its arrays on that GPU, through CuPy) and PyTorch (on the CUDA
device of the same number) on a GPU, each repetition timed until the device has finished its
work; the frameworks that have no GPU path here are listed as not run, with the reason.

``--baseline DIR`` adds fnet and fnet.compat as they stand in another checkout DIR (e.g. a
``git worktree`` of the commit before a change) to the same interleaved run, each with that
checkout's own case code, and ends with a table of this checkout's time over the baseline's:
an A/B comparison of two commits under the same load.
"""

import argparse
import json
import os
import platform
import queue
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
VENVS = os.path.join(HERE, ".venvs")
sys.path.insert(0, HERE)

import shared  # noqa: E402
from worker import THREAD_VARS, median  # noqa: E402  (imports no framework)

# name -> (label, python interpreter, extra sys.path entries)
FRAMEWORKS = {
    "fnet": ("fnet", sys.executable, [REPO]),
    "chainer": ("Chainer", os.path.join(VENVS, "chainer", "bin", "python"), []),
    "torch": ("PyTorch", os.path.join(VENVS, "torch", "bin", "python"), []),
    # each step one jax.jit-compiled XLA program, on the CPU (cases_jax.py)
    "jax": ("JAX jit", os.path.join(VENVS, "jax", "bin", "python"), []),
    # Chainer's case code run unchanged on fnet's Chainer layer (cases_compat.py)
    "compat": ("fnet.compat", sys.executable, [REPO]),
    # fnet's cases, each update recorded once by fnet.capture and replayed (cases_captured.py)
    "captured": ("fnet-captured", sys.executable, [REPO]),
    # no framework: the work itself, written by hand for some cases (cases_numpy.py)
    "numpy": ("NumPy by hand", sys.executable, []),
}
PEERS = ("chainer", "torch", "jax")
# the frameworks that do not run on a GPU here, and why (--device @cupy:N)
NOT_ON_GPU = {
    "chainer": "Chainer 7.8.1 needs NumPy < 2 and a CuPy of its time (cupy-cuda 7.x); it does not "
    "import next to this machine's NumPy 2 and CuPy 14",
    "numpy": "NumPy by hand is the CPU floor: it has no GPU path",
    "jax": "the JAX venv holds the CPU build of jaxlib",
    "compat": "Chainer's case code (cases_chainer.py) keeps its links on the CPU; fnet.compat on a "
    "GPU is checked by the gpu tests, not timed",
}
# whose time fnet's is divided by, in the table
RATIO_PEERS = PEERS + ("numpy",)
# None: the machine's default threads (the thread variables unset)
DEFAULT = None
# at default threads, a time per step more than this over the 1-thread time is flagged
# (for these frameworks)
SLOWER_LIMIT = 1.10
FLAGGED = ("fnet", "compat", "captured")


# A framework "NAME@base" (with --baseline) is NAME as it stands in the baseline checkout: its
# case code comes from there too. name -> that checkout's benchmarks folder.
HOMES: dict = {}


def add_baseline(directory):
    """Add fnet and fnet.compat of the checkout ``directory`` as frameworks "fnet@base" and
    "compat@base"; return their names."""
    directory = os.path.abspath(directory)
    added = []
    for name in ("fnet", "compat"):
        label, python, _ = FRAMEWORKS[name]
        FRAMEWORKS[f"{name}@base"] = (f"{label} (base)", python, [directory])
        HOMES[f"{name}@base"] = os.path.join(directory, "benchmarks")
        added.append(f"{name}@base")
    return added


class WorkerError(Exception):
    pass


class Worker:
    """A worker subprocess spoken to in JSON lines."""

    def __init__(self, name, threads, logdir, device="@numpy", keep_heap=False):
        self.name = name
        self.threads = threads
        label, python, paths = FRAMEWORKS[name]
        self.label = label
        home = HOMES.get(name, HERE)
        env = worker_env(os.environ, threads, keep_heap)
        env["PYTHONPATH"] = os.pathsep.join(
            [home] + paths + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
        )
        self.log_path = os.path.join(logdir, f"{name}-{setting_key(threads)}.log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [
                python,
                "-u",
                os.path.join(home, "worker.py"),
                name.partition("@")[0],
                "--threads",
                setting_key(threads),
            ]
            + ([] if device == "@numpy" else ["--device", device]),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            bufsize=1,
            env=env,
            cwd=home,
        )
        self.replies = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.info = None

    def _read(self):
        for line in self.proc.stdout:
            self.replies.put(line)
        self.replies.put(None)

    def _get(self, timeout):
        try:
            line = self.replies.get(timeout=timeout)
        except queue.Empty:
            raise WorkerError(f"no reply within {timeout:.0f} s") from None
        if line is None:
            raise WorkerError(f"worker exited (code {self.proc.wait()}){self.log_tail()}")
        reply = json.loads(line)
        if not reply.get("ok"):
            raise WorkerError(reply.get("error", "failed").rstrip())
        return reply

    def wait_ready(self, timeout):
        self.info = self._get(timeout)["info"]
        return self.info

    def request(self, timeout, **req):
        try:
            self.proc.stdin.write(json.dumps(req) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise WorkerError(f"worker is gone{self.log_tail()}") from None
        return self._get(timeout)

    def log_tail(self, n=15):
        self.log.flush()
        try:
            with open(self.log_path) as f:
                lines = f.read().splitlines()[-n:]
        except OSError:
            return ""
        return ("\n  " + "\n  ".join(lines)) if lines else ""

    def close(self):
        try:
            self.proc.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        self.log.close()


# --keep-heap: glibc's malloc keeps the memory of freed large blocks for the next ones, in every
# worker, whatever its framework: the thresholds of fnet.backend.tune_host_allocator() (no mmap
# per block up to 32 MiB, no trimming of the heap below 256 MiB of free memory at its top)
KEEP_HEAP = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=268435456"


def worker_env(environ, threads, keep_heap=False):
    """The environment of a worker: the thread variables set to ``threads``, or, for the
    machine's default threads (``threads is None``), removed; with ``keep_heap``, glibc's
    tunables that keep freed memory (KEEP_HEAP)."""
    env = {k: v for k, v in environ.items() if k not in THREAD_VARS}
    if threads is not DEFAULT:
        env.update({var: str(threads) for var in THREAD_VARS})
    if keep_heap:
        env["GLIBC_TUNABLES"] = ":".join(filter(None, (environ.get("GLIBC_TUNABLES"), KEEP_HEAP)))
    return env


def setting_key(threads):
    """``threads`` as the worker's --threads argument and the JSON keys: "1", "2"..., "default"."""
    return "default" if threads is DEFAULT else str(threads)


def setting_label(threads):
    return "default threads" if threads is DEFAULT else f"{threads} thread{'s' * (threads != 1)}"


def usable_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 0


def slower_at_default(one, default, limit=SLOWER_LIMIT):
    """The time at default threads over the time at 1 thread, and whether it is above ``limit``
    (None and False when either is missing)."""
    if not one or not default:
        return None, False
    ratio = default / one
    return ratio, ratio > limit


def pools_text(pools):
    """One line for a worker's thread pools: ``libscipy_openblas64_ (blas, 2 threads), ...``."""
    if not pools:
        return "none seen"
    parts = []
    for p in pools:
        name = p["library"].split("-")[0].removesuffix(".so")
        threads = p["threads"] and f"{p['threads']} thread{'s' * (p['threads'] != 1)}"
        detail = ", ".join(x for x in (p["api"], threads) if x)
        parts.append(f"{name} ({detail})" if detail else name)
    return ", ".join(parts)


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def fmt_time(v):
    if v is None:
        return "-"
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def rel_diff(a, b):
    return max(abs(x - y) / max(abs(x), abs(y)) if x != y else 0.0 for x, y in zip(a, b))


def table(headers, rows):
    widths = [max(len(str(r[i])) for r in [headers] + rows) for i in range(len(headers))]
    out = [
        "| " + " | ".join(h.ljust(w) for h, w in zip(headers, widths)) + " |",
        "|" + "|".join("-" * (w + 2) for w in widths) + "|",
    ]
    for r in rows:
        out.append(
            "| "
            + " | ".join(
                str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))
            )
            + " |"
        )
    return "\n".join(out)


def parse_args(argv):
    ap = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument(
        "--threads",
        default=None,
        help="run only this setting: N threads per framework (OMP/OpenBLAS/MKL variables and "
        "torch.set_num_threads), or 'default' (the variables unset); by default both 1 and "
        "the machine's default threads",
    )
    ap.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 20, --quick 3)")
    ap.add_argument(
        "--cases",
        default=None,
        help=f"comma-separated subset of: {', '.join(shared.CASES)} (default: all of them on a GPU; "
        f"on the CPU all but {', '.join(shared.ONLY_WHEN_ASKED_ON_CPU)}, whose steps take seconds there)",
    )
    ap.add_argument(
        "--frameworks",
        default=",".join(FRAMEWORKS),
        help=f"comma-separated subset of: {', '.join(FRAMEWORKS)}",
    )
    ap.add_argument("--quick", action="store_true", help="few short rounds: a smoke test, not a measurement")
    ap.add_argument(
        "--batch-time",
        type=float,
        default=None,
        help="target seconds per timed batch (default 0.3, --quick 0.05)",
    )
    ap.add_argument(
        "--warmup", type=float, default=None, help="warm-up seconds per case (default 0.5, --quick 0.1)"
    )
    ap.add_argument(
        "--settle",
        type=float,
        default=None,
        help="idle seconds after each timed batch of a worker with more than one thread, "
        "so that its spinning BLAS/OpenMP threads go to sleep before the next worker runs "
        "(default 0.3)",
    )
    ap.add_argument(
        "--baseline",
        metavar="DIR",
        help="also run fnet and fnet.compat of the checkout DIR, interleaved, and compare",
    )
    ap.add_argument("--json", metavar="PATH", help="also write all timings to PATH as JSON")
    ap.add_argument(
        "--keep-heap",
        action="store_true",
        help="run every worker with glibc's malloc keeping freed memory (GLIBC_TUNABLES: "
        "mmap_threshold 32 MiB, trim_threshold 256 MiB, as fnet.backend.tune_host_allocator() sets "
        "them), so that large arrays do not page-fault their memory in anew on every step",
    )
    ap.add_argument(
        "--device",
        default="@numpy",
        help="'@numpy' (the CPU, the default) or a GPU, '@cupy:N': fnet's arrays on CuPy device N, "
        "PyTorch on cuda:N; frameworks without a GPU path are listed as not run",
    )
    ap.add_argument(
        "--memory",
        action="store_true",
        help="also measure each case's peak memory (one step under tracemalloc, after the timing)",
    )
    ap.add_argument(
        "-v", "--verbose", action="store_true", help="also print min and spread per measurement, and --memory"
    )
    args = ap.parse_args(argv)
    quick = args.quick
    if args.rounds is None:
        args.rounds = 3 if quick else 20
    if args.batch_time is None:
        args.batch_time = 0.05 if quick else 0.3
    if args.warmup is None:
        args.warmup = 0.1 if quick else 0.5
    if args.settle is None:
        args.settle = 0.3
    gpu = args.device != "@numpy"
    if gpu and not (args.device == "@cupy" or args.device.startswith("@cupy:") and args.device[6:].isdigit()):
        ap.error(f"--device must be '@numpy' or '@cupy:N', got {args.device!r}")
    if args.threads is None and gpu:
        args.settings = [1]  # the host side of a GPU step is one Python thread
    elif args.threads is None:
        args.settings = [1, DEFAULT]
    elif args.threads == "default":
        args.settings = [DEFAULT]
    elif args.threads.isdigit() and int(args.threads) >= 1:
        args.settings = [int(args.threads)]
    else:
        ap.error(f"--threads must be a number of at least 1 or 'default', got {args.threads!r}")
    if args.cases is None:
        args.cases = shared.default_cases(args.device)
    else:
        args.cases = [c for c in args.cases.split(",") if c]
    args.frameworks = [f for f in args.frameworks.split(",") if f]
    if args.baseline:
        if not os.path.isfile(os.path.join(args.baseline, "benchmarks", "worker.py")):
            ap.error(f"--baseline {args.baseline!r} is not an fnet checkout (no benchmarks/worker.py)")
        args.frameworks += [f"{n}@base" for n in ("fnet", "compat") if n in args.frameworks]
        add_baseline(args.baseline)
    for c in args.cases:
        if c not in shared.CASES:
            ap.error(f"unknown case {c!r} (choose from {', '.join(shared.CASES)})")
    for f in args.frameworks:
        if f not in FRAMEWORKS:
            ap.error(f"unknown framework {f!r} (choose from {', '.join(FRAMEWORKS)})")
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    return args


def against_baseline(args, med):
    """With --baseline: each case's time here over the baseline's, per setting, worst first."""
    pairs = [n for n in ("fnet", "compat") if f"{n}@base" in args.frameworks]
    if not pairs:
        return
    print()
    print(f"this checkout over the baseline {args.baseline} (ratio > 1: slower here)")
    worst = []
    for threads in args.settings:
        rows = []
        for case in args.cases:
            row = [case]
            for n in pairs:
                new, old = med(case, n, threads), med(case, f"{n}@base", threads)
                row.append(f"{new / old:.3f}" if new and old else "-")
                if new and old:
                    worst.append((new / old, case, FRAMEWORKS[n][0], setting_label(threads)))
            rows.append(row)
        print(setting_label(threads) + ":")
        print(table(["case"] + [FRAMEWORKS[n][0] for n in pairs], rows))
    if worst:
        ratio, case, label, setting = max(worst)
        print(f"largest: {case} / {label} / {setting}: {ratio:.3f}")


def fmt_bytes(value):
    """Bytes as MB with 3 significant digits; a reason (a string) as n/a."""
    return "n/a" if isinstance(value, str) else f"{value / 1e6:.3g}"


def print_memory(args, names, memory):
    """The table of peak memory per case and framework, one column per framework and setting,
    and the reason for each n/a."""
    threads = args.settings[0]
    columns = [n for n in names if any(k[1:] == (n, threads) for k in memory)]
    headers = ["case"] + [FRAMEWORKS[n][0] for n in columns]
    rows = [
        [case]
        + [fmt_bytes(memory[case, n, threads]) if (case, n, threads) in memory else "-" for n in columns]
        for case in args.cases
    ]
    print()
    print(
        f"peak memory of one step at {setting_label(threads)}, MB above what the worker held before it "
        "(tracemalloc: Python objects and NumPy arrays)"
    )
    print(table(headers, rows))
    reasons = {FRAMEWORKS[n][0]: v for (_, n, _), v in memory.items() if isinstance(v, str)}
    for label, why in reasons.items():
        print(f"  n/a for {label}: {why}")


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def main(argv=None):
    args = parse_args(argv)
    t_start = time.perf_counter()
    print(f"fnet benchmarks: {time.strftime('%Y-%m-%d %H:%M')}")
    cores = usable_cores()
    print(
        f"machine: {cpu_name()}, {os.cpu_count() or 0} cores ({cores} usable); "
        f"{platform.system()} {platform.machine()}"
    )
    for threads in args.settings:
        if threads is DEFAULT:
            print(
                f"default threads: {'/'.join(THREAD_VARS[:3])} unset and PyTorch's own setting: "
                f"each library's default, about one thread per usable core here ({cores}); "
                "each worker's thread pools are listed below"
            )
        else:
            print(
                f"{setting_label(threads)} per framework: {'/'.join(THREAD_VARS[:3])}={threads}, "
                f"torch.set_num_threads({threads})"
            )
    print(f"device: {args.device}")
    if args.keep_heap:
        print(f"--keep-heap: every worker runs with GLIBC_TUNABLES={KEEP_HEAP}")
    quick = " (--quick: smoke test, not a measurement)" if args.quick else ""
    print(
        f"rounds: {args.rounds}, batch ~{args.batch_time:.2g} s, warm-up {args.warmup:.2g} s, "
        f"settle {args.settle:.2g} s after a batch with several threads{quick}"
    )

    tmp = tempfile.TemporaryDirectory(prefix="fnet-bench-")
    data = {}
    for case in args.cases:
        data[case] = os.path.join(tmp.name, case + ".npz")
        np.savez(data[case], **shared.make_data(case, args.device))

    # One worker per framework and setting, keyed (name, threads).
    notes = []
    workers = {}
    if args.device != "@numpy":
        for name in [n for n in args.frameworks if n.partition("@")[0] in NOT_ON_GPU]:
            notes.append(f"{name}: not run on {args.device}: {NOT_ON_GPU[name.partition('@')[0]]}")
            args.frameworks.remove(name)
        if "torch" in args.frameworks and not os.path.exists(FRAMEWORKS["torch"][1]):
            # a GPU machine has its CUDA build of PyTorch beside fnet, not in a CPU-only venv
            label, _, paths = FRAMEWORKS["torch"]
            FRAMEWORKS["torch"] = (label, sys.executable, paths)
    for threads in args.settings:
        for name in args.frameworks:
            python = FRAMEWORKS[name][1]
            if name in PEERS and not os.path.exists(python):
                if threads == args.settings[0]:
                    notes.append(f"{name}: not set up, run benchmarks/setup_peers.sh")
                continue
            try:
                workers[name, threads] = Worker(name, threads, tmp.name, args.device, args.keep_heap)
            except OSError as e:
                notes.append(f"{name} ({setting_label(threads)}): cannot start {python}: {e}")
    for (name, threads), w in list(workers.items()):
        try:
            info = w.wait_ready(timeout=300)
            if threads == args.settings[0]:
                on = f"; {info['device']}" if "device" in info else ""
                print(f"  {name + ':':<8} {info['version']}, Python {info['python']}{on}")
                if info.get("unavailable"):
                    notes.append(f"{name}: not available: {info['unavailable']}")
        except WorkerError as e:
            hint = " (run benchmarks/setup_peers.sh)" if name in PEERS else ""
            notes.append(
                f"{name} ({setting_label(threads)}): failed to start{hint}:\n  "
                + str(e).replace("\n", "\n  ")
            )
            w.close()
            del workers[name, threads]
    for n in notes:
        print(n)
    sys.stdout.flush()

    # A worker with several threads leaves them spinning for a while after its batch: the
    # next one waits for them to sleep (--settle).
    last = {"spinning": False}

    def settle(w):
        if last["spinning"] and args.settle:
            time.sleep(args.settle)
        last["spinning"] = w.threads != 1

    # Build and warm up every case in every worker.
    setup = {}  # (case, name, threads) -> setup reply
    reps = {}  # (case, name, threads) -> repetitions per batch
    times = {}  # (case, name, threads) -> [seconds per rep]
    faults = {}  # (case, name, threads) -> [minor page faults per batch, repetitions in it]
    errors = {}  # (case, name, threads) -> message
    pools = {}  # (name, threads) -> the thread pools loaded after its last setup
    for case in args.cases:
        for (name, threads), w in workers.items():
            if case not in w.info["cases"]:
                continue
            key = case, name, threads
            log(f"setup {case} / {name} / {setting_label(threads)}")
            settle(w)
            try:
                r = w.request(timeout=600, cmd="setup", case=case, data=data[case], warmup=args.warmup)
            except WorkerError as e:
                errors[key] = str(e)
                continue
            setup[key] = r
            pools[name, threads] = r["pools"]
            reps[key] = int(min(100000, max(1, round(args.batch_time / max(r["est"], 1e-9)))))
            times[key] = []
    print()
    print("thread pools loaded by each worker after its cases' warm-up:")
    for (name, threads), p in pools.items():
        n_blas = sum(1 for x in p if x["api"] == "blas")
        extra = f"  [{n_blas} BLAS libraries, each with its own thread pool]" if n_blas > 1 else ""
        own = workers[name, threads].info.get("torch_threads")  # PyTorch's intra-op threads
        own = f"; torch.get_num_threads() {own}" if own else ""
        print(f"  {name + ',':<8} {setting_label(threads) + ':':<16} {pools_text(p)}{own}{extra}")
    sys.stdout.flush()

    # Interleaved rounds.
    keys = list(workers)
    for rnd in range(args.rounds):
        log(f"round {rnd + 1}/{args.rounds}")
        order = keys[rnd % len(keys) :] + keys[: rnd % len(keys)] if keys else []
        for case in args.cases:
            for name, threads in order:
                key = case, name, threads
                if key not in reps or key in errors:
                    continue
                timeout = 60 + 20 * args.batch_time + 20 * reps[key] * setup[key]["est"]
                w = workers[name, threads]
                settle(w)
                try:
                    r = w.request(timeout=timeout, cmd="time", case=case, reps=reps[key])
                except WorkerError as e:
                    errors[key] = str(e)
                    continue
                times[key].extend(r["times"])
                if r.get("faults") is not None:
                    done = faults.setdefault(key, [0, 0])
                    done[0] += r["faults"]
                    done[1] += len(r["times"])
    # Peak memory of one step per case and worker, after the timing (tracemalloc slows it down).
    memory = {}  # (case, name, threads) -> bytes, or the reason there is none
    if args.memory or args.verbose:
        log("peak memory")
        for key in times:
            case, name, threads = key
            if key in errors or threads != args.settings[0]:  # one setting: the memory is the same
                continue
            try:
                r = workers[name, threads].request(timeout=600, cmd="memory", case=case)
            except WorkerError as e:
                memory[key] = f"error: {e}"
                continue
            memory[key] = r["why"] if r["peak"] is None else r["peak"]
    for w in workers.values():
        w.close()
    tmp.cleanup()

    # Report.
    def med(case, name, threads):
        t = times.get((case, name, threads))
        if not t or (case, name, threads) in errors:
            return None
        return median(t) * shared.CASES[case][1]

    def cell(case, name, threads):
        if (case, name, threads) in errors:
            return "error"
        w = workers.get((name, threads))
        if w is None or case not in w.info["cases"]:
            return "n/a"
        return fmt_time(med(case, name, threads))

    names = [n for n in FRAMEWORKS if n in args.frameworks]
    ratio_peers = [p for p in RATIO_PEERS if p in args.frameworks]
    compat_peers = [p for p in ("fnet", "chainer") if p in args.frameworks]
    # the fnet-captured ratio columns, where it ran (not before fnet.capture exists)
    captured = any(n == "captured" and t for (_, n, _), t in times.items())
    for threads in args.settings:
        headers = ["case", "unit"] + [FRAMEWORKS[n][0] for n in names]
        headers += [f"fnet/{FRAMEWORKS[p][0]}" for p in ratio_peers]
        if captured:
            headers += [f"fnet-captured/{FRAMEWORKS[p][0]}" for p in ["fnet"] + ratio_peers]
        if "compat" in args.frameworks:
            headers += [f"fnet.compat/{FRAMEWORKS[p][0]}" for p in compat_peers]
        rows = []
        for case in args.cases:
            row = [case, shared.CASES[case][0]] + [cell(case, n, threads) for n in names]
            f = med(case, "fnet", threads)
            for p in ratio_peers:
                m = med(case, p, threads)
                row.append(f"{f / m:.2f}x" if f and m else "-")
            if captured:
                c = med(case, "captured", threads)
                for p in ["fnet"] + ratio_peers:
                    m = med(case, p, threads)
                    row.append(f"{c / m:.2f}x" if c and m else "-")
            if "compat" in args.frameworks:
                c = med(case, "compat", threads)
                for p in compat_peers:
                    m = med(case, p, threads)
                    row.append(f"{c / m:.2f}x" if c and m else "-")
            rows.append(row)
        what = (
            f"default threads (the thread variables unset: each library's default, {cores} usable cores)"
            if threads is DEFAULT
            else f"{setting_label(threads)} per framework"
        )
        print()
        print(f"{what}: median time per repetition (ratio > 1: fnet is slower)")
        print(table(headers, rows))

    against_baseline(args, med)

    flagged = []
    if 1 in args.settings and DEFAULT in args.settings:
        headers = ["case"] + [f"{FRAMEWORKS[n][0]} default/1" for n in names]
        rows = []
        for case in args.cases:
            row = [case]
            for n in names:
                ratio, slower = slower_at_default(med(case, n, 1), med(case, n, DEFAULT))
                mark = slower and n in FLAGGED
                if mark:
                    flagged.append(f"{case} / {FRAMEWORKS[n][0]}: {ratio:.2f}x")
                row.append("-" if ratio is None else f"{ratio:.2f}x" + (" !" if mark else ""))
            rows.append(row)
        print()
        print(
            "default threads over 1 thread (time per repetition; ! marks fnet or fnet.compat more than "
            f"{100 * (SLOWER_LIMIT - 1):.0f}% slower at default threads)"
        )
        print(table(headers, rows))
        if flagged:
            print("slower at default threads than at 1 thread: " + "; ".join(flagged))

    # Same work everywhere?  Compare what the first two repetitions returned
    # (per_op: sum of the input gradient; steps: the loss before each update).
    print()
    print(
        "agreement (the first two results of each case, and their largest relative difference "
        "from fnet's at the first setting, else from the first worker's):"
    )
    first = args.settings[0]
    for case in args.cases:
        probes = {(n, t): setup[case, n, t] for n, t in workers if (case, n, t) in setup}
        if not probes:
            continue
        ref = ("fnet", first) if ("fnet", first) in probes else next(iter(probes))
        parts = []
        for (n, t), r in probes.items():
            s = n if len(args.settings) == 1 else f"{n} ({setting_key(t)})"
            s += " " + ", ".join(f"{v:.6g}" for v in r["probe"])
            if (n, t) != ref:
                s += f" (rel diff {rel_diff(probes[ref]['probe'], r['probe']):.1e})"
            if r["dtype"] != "float32":
                s += f" [dtype {r['dtype']}, expected float32]"
            parts.append(s)
        print(f"  {case:<13} " + "; ".join(parts))

    if args.verbose:
        print()
        vrows = []
        for case in args.cases:
            for name, threads in workers:
                key = case, name, threads
                t = times.get(key)
                if not t or key in errors:
                    continue
                s = sorted(t)
                q1, q3 = s[len(s) // 4], s[(3 * len(s)) // 4]
                vrows.append(
                    [
                        case,
                        name,
                        setting_key(threads),
                        len(s),
                        reps[key],
                        fmt_time(s[0] * shared.CASES[case][1]),
                        fmt_time(median(s) * shared.CASES[case][1]),
                        f"{100 * (q3 - q1) / median(s):.1f}%",
                        f"{faults[key][0] / faults[key][1]:.0f}" if key in faults else "-",
                    ]
                )
        headers = ["case", "framework", "threads", "reps", "per batch", "min", "median", "IQR/median"]
        print(table(headers + ["page faults/rep"], vrows))

    if memory:
        print_memory(args, names, memory)

    if errors:
        print()
        for (case, name, threads), msg in errors.items():
            print(f"ERROR {case} / {name} / {setting_label(threads)}:\n  " + msg.replace("\n", "\n  "))

    if args.json:
        keys = [setting_key(t) for t in args.settings]
        with open(args.json, "w") as f:
            json.dump(
                {
                    "date": time.strftime("%Y-%m-%d %H:%M"),
                    "machine": cpu_name(),
                    "cores": os.cpu_count(),
                    "usable_cores": cores,
                    "threads": keys,
                    "rounds": args.rounds,
                    "versions": {n: w.info for (n, t), w in workers.items() if t == first},
                    "pools": {f"{n}/{setting_key(t)}": p for (n, t), p in pools.items()},
                    "units": {c: shared.CASES[c][0] for c in args.cases},
                    "median": {
                        setting_key(t): {
                            c: {n: med(c, n, t) for n, tt in workers if tt == t} for c in args.cases
                        }
                        for t in args.settings
                    },
                    "slower_at_default": flagged,
                    "peak_memory_bytes": {f"{c}/{n}/{setting_key(t)}": v for (c, n, t), v in memory.items()},
                    "times_s": {f"{c}/{n}/{setting_key(t)}": v for (c, n, t), v in times.items()},
                    "page_faults_per_rep": {
                        f"{c}/{n}/{setting_key(t)}": v[0] / v[1] for (c, n, t), v in faults.items()
                    },
                    "keep_heap": args.keep_heap,
                    "errors": {f"{c}/{n}/{setting_key(t)}": v for (c, n, t), v in errors.items()},
                },
                f,
                indent=1,
            )
    print()
    print(f"total {time.perf_counter() - t_start:.0f} s")
    return 1 if errors or not workers else 0


if __name__ == "__main__":
    sys.exit(main())
