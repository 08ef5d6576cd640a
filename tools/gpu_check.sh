#!/usr/bin/env bash
# The GPU check: run from the repository root on a machine with an NVIDIA GPU and CuPy, with
# $OUT an output folder. fnet is not installed there: PYTHONPATH=. imports it (and .gpu-deps,
# made by tools/gpu_deps.sh, supplies attrs/msgpack/toolz where the machine lacks them).
#
#   1. the machine: nvidia-smi, Python, NumPy, CuPy, PyTorch           -> stdout, $OUT/env.txt
#   2. every test marked gpu, on @cupy:0                               -> $OUT/gpu-tests.{log,xml}
#   3. the GPU benchmarks, short: fnet and PyTorch CUDA                -> $OUT/bench-gpu.txt
#
# Each step has its own time limit (about 7.5 minutes in all) and a failing step does not stop
# the next one. The exit status is that of the tests.
set -u
OUT=${OUT:-/tmp/fnet-gpu-check}
PY=${PYTHON:-python3}
TEST_LIMIT=${TEST_LIMIT:-230}   # seconds for all the tests
BENCH_LIMIT=${BENCH_LIMIT:-210} # seconds for the benchmarks (resnet50_step: batch 32)
mkdir -p "$OUT"
export PYTHONPATH=".${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONDONTWRITEBYTECODE=1

echo "== machine"
{
    nvidia-smi || echo "nvidia-smi failed"
    "$PY" - <<'PYEOF'
import importlib, platform, sys
print("python", sys.version.split()[0], platform.platform())
for name in ("numpy", "scipy", "cupy", "torch", "pytest", "pytest_timeout", "attrs", "msgpack", "toolz"):
    try:
        module = importlib.import_module(name)
        print(f"{name:15} {getattr(module, '__version__', '?')}")
    except Exception as error:
        print(f"{name:15} missing ({type(error).__name__}: {error})")
try:
    import cupy
    print("cupy devices", cupy.cuda.runtime.getDeviceCount(), "CUDA runtime", cupy.cuda.runtime.runtimeGetVersion())
except Exception as error:
    print("cupy cannot reach a device:", type(error).__name__, error)
PYEOF
} 2>&1 | tee "$OUT/env.txt"

if ! "$PY" -c "import attrs, msgpack, toolz" 2>/dev/null; then
    if [ -d .gpu-deps ]; then
        echo "== attrs/msgpack/toolz missing here: using .gpu-deps"
        export PYTHONPATH="$PYTHONPATH:$PWD/.gpu-deps"
    else
        echo "== attrs/msgpack/toolz missing and no .gpu-deps (make it with tools/gpu_deps.sh)"
    fi
fi
"$PY" -c "import fnet, fnet.backend as b; print('fnet', fnet.__version__, 'cupy usable:', b.cupy_available(), b.cupy_problem())" 2>&1 | tee -a "$OUT/env.txt"

echo "== gpu tests (limit ${TEST_LIMIT} s)"
TIMEOUT_OPT=()
if "$PY" -c "import pytest_timeout" 2>/dev/null; then
    TIMEOUT_OPT=(--timeout=60)
    # pytest-timeout >= 2.3 can end the session itself, which still writes the junit XML
    if "$PY" -m pytest --help -p no:cacheprovider 2>/dev/null | grep -q -- --session-timeout; then
        TIMEOUT_OPT+=(--session-timeout=$((TEST_LIMIT - 20)))
    fi
fi
mapfile -t FILES < <(grep -rl --include='*.py' "mark.gpu" tests | sort)
# CuPy compiles each new kernel on the CPU the first time: workers (pytest-xdist) share that out
WORKERS=${GPU_TEST_WORKERS:-8}
if [ "$WORKERS" -gt 1 ] && "$PY" -c "import xdist" 2>/dev/null; then
    TIMEOUT_OPT+=(-n "$WORKERS")
fi
timeout -k 10 "$TEST_LIMIT" "$PY" -m pytest -m gpu -q -p no:cacheprovider --gpu-device=@cupy:0 \
    --junitxml="$OUT/gpu-tests.xml" "${TIMEOUT_OPT[@]}" -rfEs --durations=15 \
    --continue-on-collection-errors "${FILES[@]}" 2>&1 | tee "$OUT/gpu-tests.log"
TESTS_STATUS=${PIPESTATUS[0]}
echo "== gpu tests: exit status $TESTS_STATUS (124: stopped at the time limit)"

echo "== gpu benchmarks (limit ${BENCH_LIMIT} s)"
timeout -k 10 "$BENCH_LIMIT" "$PY" benchmarks/run.py --device @cupy:0 --frameworks fnet,captured,torch \
    --cases per_op,mlp_step,cnn_step,lstm_lm_step,normal_elbo,resnet50_infer,resnet50_step --rounds "${BENCH_ROUNDS:-5}" --batch-time 0.1 --warmup 0.5 \
    > "$OUT/bench-gpu.txt" 2>&1
echo "== gpu benchmarks: exit status $? (124: stopped at the time limit)" | tee -a "$OUT/bench-gpu.txt"
cat "$OUT/bench-gpu.txt"
exit "$TESTS_STATUS"
