"""Benchmark worker: one persistent process per framework.

    python benchmarks/worker.py FRAMEWORK --threads N|default [--device SPEC]

With ``--threads N`` the thread variables (THREAD_VARS) are set to N before
anything is imported; with ``--threads default`` they are left as the
environment has them (the runner unsets them: the libraries' own defaults).
Imports ``cases_FRAMEWORK`` (and through it only that framework), then
serves JSON-line requests on stdin, one JSON reply per line on stdout:

    {"cmd": "setup", "case": C, "data": NPZ, "warmup": S}
        build case C from the arrays in NPZ, run it twice (the results are
        sent back as "probe" so the runner can check that every framework
        computes the same thing), warm up for about S seconds and reply
        with an estimate "est" of the seconds per repetition, and the
        thread pools loaded so far ("pools", see thread_pools).
    {"cmd": "time", "case": C, "reps": K}
        run K repetitions, reply {"times": [seconds per repetition, ...], "faults": F}
        (F: the minor page faults of the K repetitions, see minor_faults).
    {"cmd": "memory", "case": C}
        run one more repetition under tracemalloc and reply {"peak": bytes} (see
        peak_memory), or {"peak": null, "why": ...} for a module whose arrays tracemalloc
        does not see.
    {"cmd": "quit"}

Every reply has "ok"; a failed request replies {"ok": false, "error": ...}.
The first line a worker writes is {"ok": true, "event": "ready", "info": ..}
or {"ok": false, "error": ...} when the framework cannot be imported.

A case module provides:
    init(threads) -> dict     import-time setup (thread count, None for the
                              libraries' defaults); version info
    CASES = {name: build}     build(data: dict of numpy arrays) -> step (a module may
                              leave cases out: the runner shows them as n/a),
                              step() runs one repetition synchronously and
                              returns its result (a loss or a gradient)
    to_numpy(result) -> numpy array (moved to the host)
    UNAVAILABLE = "why"       optional: the framework cannot run here (CASES is empty); the
                              runner reports it as not available, with this reason
    use_device(spec) -> dict  optional: run the cases on device SPEC ('@cupy:0'); the
                              device's name. A module without it runs on the CPU only
    prepare(data) -> data     optional: the case's arrays sent to that device
    sync()                    optional: wait for the device's queued work; called after
                              every repetition, before the clock stops
    UNTRACED_MEMORY = "why"   optional: the arrays live outside Python's allocators
                              (tracemalloc does not see them): no peak memory is measured

This file imports no deep-learning framework itself.
"""

import argparse
import gc
import importlib
import json
import os
import re
import sys
import time
import traceback
import tracemalloc

THREAD_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMEXPR_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
)


# Shared libraries that bring a BLAS or an OpenMP thread pool, by file name (for thread_pools
# without threadpoolctl).
_POOL_LIBRARY = re.compile(r"blas|lapack|mkl|blis|omp|tbb", re.IGNORECASE)


def set_thread_env(threads):
    for var in THREAD_VARS:
        os.environ[var] = str(threads)


def thread_pools():
    """The BLAS and OpenMP libraries loaded in this process: ``[{"library", "api", "threads"}]``.

    Through threadpoolctl where it is installed (``api`` is "blas" or "openmp", ``threads`` the
    pool's size); else the matching file names among the shared objects this process has mapped
    (Linux's /proc/self/maps), with ``api`` and ``threads`` None. A library linked statically into
    another (PyTorch's MKL) is not seen.
    """
    try:
        import threadpoolctl
    except ImportError:
        threadpoolctl = None
    if threadpoolctl is not None:
        return [
            {
                "library": os.path.basename(p["filepath"]),
                "api": p["user_api"],
                "threads": p["num_threads"],
            }
            for p in threadpoolctl.threadpool_info()
        ]
    try:
        with open("/proc/self/maps") as f:
            names = {
                os.path.basename(line.split()[-1])
                for line in f
                if line.rstrip().endswith(".so") or ".so." in line
            }
    except OSError:
        return []
    names = sorted(name for name in names if _POOL_LIBRARY.search(name))
    return [{"library": name, "api": None, "threads": None} for name in names]


def minor_faults():
    """The minor page faults of this process so far: each is a page of fresh memory touched for
    the first time (a large array whose memory the C allocator had returned to the system and
    maps anew), which the kernel zeroes. None where ``resource`` is missing (not on Unix)."""
    try:
        import resource
    except ImportError:
        return None
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def _no_sync():
    pass


def time_reps(step, reps, sync=_no_sync):
    """Seconds taken by each of ``reps`` calls of ``step`` (each followed by ``sync()``, which
    waits for the work a GPU framework has only queued)."""
    clock = time.perf_counter
    times = []
    for _ in range(reps):
        t0 = clock()
        step()
        sync()
        times.append(clock() - t0)
    return times


def peak_memory(step, sync=_no_sync):
    """The most memory that one call of ``step`` holds at once above what was held before it,
    in bytes: tracemalloc's peak, which counts Python objects and NumPy's array buffers (not a
    GPU's memory), from a warmed-up step (its caches and workspaces already made)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        step()
        sync()
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def median(values):
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else 0.5 * (s[n // 2 - 1] + s[n // 2])


class Worker:
    def __init__(self, module):
        self.module = module
        self.steps = {}
        self.sync = getattr(module, "sync", _no_sync)
        self.prepare = getattr(module, "prepare", lambda arrays: arrays)

    def setup(self, case, data, warmup):
        import numpy as np

        t0 = time.perf_counter()
        with np.load(data) as f:
            arrays = {k: f[k] for k in f.files}
        step = self.module.CASES[case](self.prepare(arrays))
        probe = []
        dtype = None
        for _ in range(2):
            out = np.asarray(self.module.to_numpy(step()))
            dtype = str(out.dtype)
            probe.append(float(np.sum(out, dtype=np.float64)))
        times = []
        deadline = time.perf_counter() + warmup
        while len(times) < 3 or time.perf_counter() < deadline:
            times += time_reps(step, 1, self.sync)
        self.steps[case] = step
        # The first warm-up repetitions may still be cold: estimate from
        # the second half.
        return {
            "probe": probe,
            "dtype": dtype,
            "est": median(times[len(times) // 2 :]),
            "setup_s": time.perf_counter() - t0,
            "pools": thread_pools(),
        }

    def time(self, case, reps):
        step = self.steps[case]
        gc.collect()
        before = minor_faults()
        times = time_reps(step, reps, self.sync)
        after = minor_faults()
        return {"times": times, "faults": None if before is None else after - before}

    def memory(self, case):
        why = getattr(self.module, "UNTRACED_MEMORY", None)
        if why:
            return {"peak": None, "why": why}
        return {"peak": peak_memory(self.steps[case], self.sync)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("framework")
    ap.add_argument("--threads", default="1", help="a number, or 'default' to leave the thread variables")
    ap.add_argument("--device", default="@numpy", help="'@numpy' (the CPU) or a GPU such as '@cupy:0'")
    args = ap.parse_args()
    threads = None if args.threads == "default" else int(args.threads)

    # Thread variables must be set before numpy/BLAS is first imported.
    if threads is not None:
        set_thread_env(threads)

    # Keep the protocol channel clean: anything the framework prints (to
    # sys.stdout or straight to fd 1) goes to stderr instead.
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def reply(obj):
        proto.write(json.dumps(obj) + "\n")
        proto.flush()

    try:
        module = importlib.import_module("cases_" + args.framework)
        info = module.init(threads)
        if args.device != "@numpy":
            if not hasattr(module, "use_device"):
                raise RuntimeError(f"the {args.framework} cases run on the CPU only, not on {args.device}")
            info.update(module.use_device(args.device))
        info["python"] = sys.version.split()[0]
        info["cases"] = list(module.CASES)
        info["unavailable"] = getattr(module, "UNAVAILABLE", None)
    except BaseException:
        reply({"ok": False, "error": traceback.format_exc()})
        return 1
    reply({"ok": True, "event": "ready", "info": info})

    worker = Worker(module)
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            req = json.loads(line)
            cmd = req["cmd"]
            if cmd == "quit":
                break
            if cmd == "setup":
                res = worker.setup(req["case"], req["data"], float(req.get("warmup", 0.5)))
            elif cmd == "time":
                res = worker.time(req["case"], int(req["reps"]))
            elif cmd == "memory":
                res = worker.memory(req["case"])
            else:
                raise ValueError(f"unknown command {cmd!r}")
            res["ok"] = True
        except Exception:
            res = {"ok": False, "error": traceback.format_exc()}
        reply(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
