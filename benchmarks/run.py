#!/usr/bin/env python
"""Benchmark fnet against Chainer and PyTorch, interleaved, in one run.

    python benchmarks/run.py [--threads 1] [--rounds N] [--cases a,b] [--quick]

One persistent worker process per framework (benchmarks/worker.py): fnet
runs in this interpreter's environment, Chainer and PyTorch in the virtual
environments made by benchmarks/setup_peers.sh, and "compat" runs Chainer's
own case code unchanged on fnet.compat (here too); "numpy" is no framework
but the work itself written by hand in NumPy, for the cases where that shows
a floor (cases_numpy.py).  Each worker builds every
case once from the same numpy arrays (benchmarks/shared.py) and warms up;
then, round after round, the runner asks each framework in turn (the order
rotates every round) to time one batch of repetitions of each case.  The
table gives the median time per repetition over all rounds, and the ratios
fnet/Chainer, fnet/PyTorch and fnet/NumPy-by-hand (above 1: fnet is
slower), and fnet.compat's to pure fnet and to Chainer.
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
    # Chainer's case code run unchanged on fnet's Chainer layer (cases_compat.py)
    "compat": ("fnet.compat", sys.executable, [REPO]),
    # no framework: the work itself, written by hand for some cases (cases_numpy.py)
    "numpy": ("NumPy by hand", sys.executable, []),
}
PEERS = ("chainer", "torch")
# whose time fnet's is divided by, in the table
RATIO_PEERS = PEERS + ("numpy",)


class WorkerError(Exception):
    pass


class Worker:
    """A worker subprocess spoken to in JSON lines."""

    def __init__(self, name, threads, logdir):
        self.name = name
        label, python, paths = FRAMEWORKS[name]
        self.label = label
        env = dict(os.environ)
        for var in THREAD_VARS:
            env[var] = str(threads)
        env["PYTHONPATH"] = os.pathsep.join(
            [HERE] + paths + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])
        )
        self.log_path = os.path.join(logdir, name + ".log")
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen(
            [python, "-u", os.path.join(HERE, "worker.py"), name, "--threads", str(threads)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            bufsize=1,
            env=env,
            cwd=HERE,
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
        type=int,
        default=1,
        help="threads per framework (OMP/OpenBLAS/MKL and torch.set_num_threads); default 1",
    )
    ap.add_argument("--rounds", type=int, default=None, help="interleaved rounds (default 20, --quick 3)")
    ap.add_argument(
        "--cases",
        default=",".join(shared.CASES),
        help=f"comma-separated subset of: {', '.join(shared.CASES)}",
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
        help="idle seconds before each timed batch, so that the "
        "previous worker's spinning BLAS/OpenMP threads go "
        "to sleep (default 0 with 1 thread, else 0.3)",
    )
    ap.add_argument("--json", metavar="PATH", help="also write all timings to PATH as JSON")
    ap.add_argument("-v", "--verbose", action="store_true", help="also print min and spread per measurement")
    args = ap.parse_args(argv)
    quick = args.quick
    if args.rounds is None:
        args.rounds = 3 if quick else 20
    if args.batch_time is None:
        args.batch_time = 0.05 if quick else 0.3
    if args.warmup is None:
        args.warmup = 0.1 if quick else 0.5
    if args.settle is None:
        args.settle = 0.0 if args.threads == 1 else 0.3
    args.cases = [c for c in args.cases.split(",") if c]
    args.frameworks = [f for f in args.frameworks.split(",") if f]
    for c in args.cases:
        if c not in shared.CASES:
            ap.error(f"unknown case {c!r} (choose from {', '.join(shared.CASES)})")
    for f in args.frameworks:
        if f not in FRAMEWORKS:
            ap.error(f"unknown framework {f!r} (choose from {', '.join(FRAMEWORKS)})")
    if args.threads < 1 or args.rounds < 1:
        ap.error("--threads and --rounds must be at least 1")
    return args


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def main(argv=None):
    args = parse_args(argv)
    t_start = time.perf_counter()
    print(f"fnet benchmarks: {time.strftime('%Y-%m-%d %H:%M')}")
    print(f"machine: {cpu_name()}, {os.cpu_count() or 0} cores; {platform.system()} {platform.machine()}")
    print(f"threads per framework: {args.threads} ({'/'.join(THREAD_VARS[:3])}, torch.set_num_threads)")
    quick = " (--quick: smoke test, not a measurement)" if args.quick else ""
    print(
        f"rounds: {args.rounds}, batch ~{args.batch_time:.2g} s, warm-up {args.warmup:.2g} s, "
        f"settle {args.settle:.2g} s{quick}"
    )

    tmp = tempfile.TemporaryDirectory(prefix="fnet-bench-")
    data = {}
    for case in args.cases:
        data[case] = os.path.join(tmp.name, case + ".npz")
        np.savez(data[case], **shared.make_data(case))

    notes = []
    workers = {}
    for name in args.frameworks:
        python = FRAMEWORKS[name][1]
        if name in PEERS and not os.path.exists(python):
            notes.append(f"{name}: not set up, run benchmarks/setup_peers.sh")
            continue
        try:
            workers[name] = Worker(name, args.threads, tmp.name)
        except OSError as e:
            notes.append(f"{name}: cannot start {python}: {e}")
    for name, w in list(workers.items()):
        try:
            info = w.wait_ready(timeout=300)
            print(f"  {name + ':':<8} {info['version']}, Python {info['python']}")
        except WorkerError as e:
            hint = " (run benchmarks/setup_peers.sh)" if name in PEERS else ""
            notes.append(f"{name}: failed to start{hint}:\n  " + str(e).replace("\n", "\n  "))
            w.close()
            del workers[name]
    for n in notes:
        print(n)
    sys.stdout.flush()

    # Build and warm up every case in every worker.
    setup = {}  # (case, fw) -> setup reply
    reps = {}  # (case, fw) -> repetitions per batch
    times = {}  # (case, fw) -> [seconds per rep]
    errors = {}  # (case, fw) -> message
    for case in args.cases:
        for name, w in workers.items():
            if case not in w.info["cases"]:
                continue
            log(f"setup {case} / {name}")
            time.sleep(args.settle)
            try:
                r = w.request(timeout=600, cmd="setup", case=case, data=data[case], warmup=args.warmup)
            except WorkerError as e:
                errors[case, name] = str(e)
                continue
            setup[case, name] = r
            reps[case, name] = int(min(100000, max(1, round(args.batch_time / max(r["est"], 1e-9)))))
            times[case, name] = []

    # Interleaved rounds.
    names = list(workers)
    for rnd in range(args.rounds):
        log(f"round {rnd + 1}/{args.rounds}")
        order = names[rnd % len(names) :] + names[: rnd % len(names)] if names else []
        for case in args.cases:
            for name in order:
                if (case, name) not in reps or (case, name) in errors:
                    continue
                timeout = 60 + 20 * args.batch_time + 20 * reps[case, name] * setup[case, name]["est"]
                if args.settle:
                    time.sleep(args.settle)
                try:
                    r = workers[name].request(timeout=timeout, cmd="time", case=case, reps=reps[case, name])
                except WorkerError as e:
                    errors[case, name] = str(e)
                    continue
                times[case, name].extend(r["times"])
    for w in workers.values():
        w.close()
    tmp.cleanup()

    # Report.
    def med(case, name):
        t = times.get((case, name))
        if not t or (case, name) in errors:
            return None
        return median(t) * shared.CASES[case][1]

    headers = ["case", "unit"] + [FRAMEWORKS[n][0] for n in FRAMEWORKS if n in args.frameworks]
    ratio_peers = [p for p in RATIO_PEERS if p in args.frameworks]
    headers += [f"fnet/{FRAMEWORKS[p][0]}" for p in ratio_peers]
    compat_peers = [p for p in ("fnet", "chainer") if p in args.frameworks]
    if "compat" in args.frameworks:
        headers += [f"fnet.compat/{FRAMEWORKS[p][0]}" for p in compat_peers]
    rows = []
    for case in args.cases:
        row = [case, shared.CASES[case][0]]
        row += [
            "error"
            if (case, n) in errors
            else "n/a"
            if n not in workers or case not in workers[n].info["cases"]
            else fmt_time(med(case, n))
            for n in FRAMEWORKS
            if n in args.frameworks
        ]
        f = med(case, "fnet")
        for p in ratio_peers:
            m = med(case, p)
            row.append(f"{f / m:.2f}x" if f and m else "-")
        if "compat" in args.frameworks:
            c = med(case, "compat")
            for p in compat_peers:
                m = med(case, p)
                row.append(f"{c / m:.2f}x" if c and m else "-")
        rows.append(row)
    print()
    print("median time per repetition (ratio > 1: fnet is slower)")
    print(table(headers, rows))

    # Same work everywhere?  Compare what the first two repetitions returned
    # (per_op: sum of the input gradient; steps: the loss before each update).
    print()
    print(
        "agreement (the first two results of each case, and their largest "
        "relative difference from fnet's, else from the first framework's):"
    )
    for case in args.cases:
        probes = {n: setup[case, n] for n in workers if (case, n) in setup}
        if not probes:
            continue
        ref = "fnet" if "fnet" in probes else next(iter(probes))
        parts = []
        for n, r in probes.items():
            s = f"{n} " + ", ".join(f"{v:.6g}" for v in r["probe"])
            if n != ref:
                s += f" (rel diff {rel_diff(probes[ref]['probe'], r['probe']):.1e})"
            if r["dtype"] != "float32":
                s += f" [dtype {r['dtype']}, expected float32]"
            parts.append(s)
        print(f"  {case:<13} " + "; ".join(parts))

    if args.verbose:
        print()
        vrows = []
        for case in args.cases:
            for n in workers:
                t = times.get((case, n))
                if not t or (case, n) in errors:
                    continue
                s = sorted(t)
                q1, q3 = s[len(s) // 4], s[(3 * len(s)) // 4]
                vrows.append(
                    [
                        case,
                        n,
                        len(s),
                        reps[case, n],
                        fmt_time(s[0] * shared.CASES[case][1]),
                        fmt_time(median(s) * shared.CASES[case][1]),
                        f"{100 * (q3 - q1) / median(s):.1f}%",
                    ]
                )
        print(table(["case", "framework", "reps", "per batch", "min", "median", "IQR/median"], vrows))

    if errors:
        print()
        for (case, name), msg in errors.items():
            print(f"ERROR {case} / {name}:\n  " + msg.replace("\n", "\n  "))

    if args.json:
        with open(args.json, "w") as f:
            json.dump(
                {
                    "date": time.strftime("%Y-%m-%d %H:%M"),
                    "machine": cpu_name(),
                    "cores": os.cpu_count(),
                    "threads": args.threads,
                    "rounds": args.rounds,
                    "versions": {n: w.info for n, w in workers.items()},
                    "units": {c: shared.CASES[c][0] for c in args.cases},
                    "median": {c: {n: med(c, n) for n in workers} for c in args.cases},
                    "times_s": {f"{c}/{n}": v for (c, n), v in times.items()},
                    "errors": {f"{c}/{n}": v for (c, n), v in errors.items()},
                },
                f,
                indent=1,
            )
    print()
    print(f"total {time.perf_counter() - t_start:.0f} s")
    return 1 if errors or not workers else 0


if __name__ == "__main__":
    sys.exit(main())
