#!/usr/bin/env bash
# Build the peer-framework virtual environments used by benchmarks/run.py:
#
#   benchmarks/.venvs/chainer   Python 3.11, numpy 1.26.*, chainer 7.8.1
#   benchmarks/.venvs/torch     Python 3.11, torch 2.13.0 (CPU build), numpy
#   benchmarks/.venvs/jax       Python 3.11, jax and jaxlib 0.10.x (CPU), numpy
#
# Idempotent: a venv whose framework already imports is left alone.
# Usage: bash benchmarks/setup_peers.sh [chainer] [torch] [jax]   (default: all three)
#   PYTHON=/path/to/python3.11  interpreter used to create the venvs
#   FORCE=1                     rebuild even if the venv already works
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENVS="$HERE/.venvs"
PYTHON="${PYTHON:-}"
TORCH_WHEEL_DIR="${TORCH_WHEEL_DIR:-/opt/wheels}"
TORCH_VERSION="2.13.0"
JAX_VERSION="0.10"

if [ -z "$PYTHON" ]; then
    for cand in python3.11 python3 python; do
        if command -v "$cand" >/dev/null 2>&1 &&
           "$cand" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null; then
            PYTHON="$(command -v "$cand")"
            break
        fi
    done
fi
if [ -z "$PYTHON" ]; then
    echo "setup_peers: no Python 3.11 found (set PYTHON=...)" >&2
    exit 1
fi

mkdir -p "$VENVS"
log() { echo "[setup_peers $(date +%H:%M:%S)] $*"; }

works() {  # works NAME IMPORT-CHECK
    local py="$VENVS/$1/bin/python"
    [ -x "$py" ] && "$py" -c "$2" >/dev/null 2>&1
}

make_venv() {  # make_venv NAME
    rm -rf "$VENVS/$1"
    "$PYTHON" -m venv "$VENVS/$1"
    "$VENVS/$1/bin/python" -m pip install --quiet --upgrade "pip<25" wheel
}

setup_chainer() {
    local check='import numpy, chainer; assert chainer.__version__ == "7.8.1"; assert numpy.__version__.startswith("1.26.")'
    if [ "${FORCE:-0}" != 1 ] && works chainer "$check"; then
        log "chainer: already set up, skipping"
        return
    fi
    log "chainer: creating venv"
    make_venv chainer
    local pip=("$VENVS/chainer/bin/python" -m pip install --quiet)
    "${pip[@]}" "numpy==1.26.*" "setuptools<70"
    # Chainer 7.8.1 ships only an sdist; build it against the numpy<2 above.
    log "chainer: building chainer 7.8.1 from sdist"
    "${pip[@]}" --no-build-isolation "chainer==7.8.1"
    "$VENVS/chainer/bin/python" -c "$check"
    log "chainer: ok ($("$VENVS/chainer/bin/python" -c 'import chainer, numpy; print("chainer", chainer.__version__, "numpy", numpy.__version__)'))"
}

setup_torch() {
    local check="import numpy, torch; assert torch.__version__.startswith('$TORCH_VERSION'); assert not torch.version.cuda"
    if [ "${FORCE:-0}" != 1 ] && works torch "$check"; then
        log "torch: already set up, skipping"
        return
    fi
    log "torch: creating venv"
    make_venv torch
    local pip=("$VENVS/torch/bin/python" -m pip install --quiet)
    # Prefer the local CPU wheel so pip never pulls a multi-GB CUDA build.
    local wheel
    wheel="$(ls "$TORCH_WHEEL_DIR"/torch-"$TORCH_VERSION"+cpu-cp311-*.whl 2>/dev/null | head -n1 || true)"
    if [ -n "$wheel" ]; then
        log "torch: installing $wheel"
        "${pip[@]}" "$wheel" numpy
    else
        log "torch: no local wheel in $TORCH_WHEEL_DIR, using the CPU index"
        "${pip[@]}" "torch==$TORCH_VERSION" --index-url https://download.pytorch.org/whl/cpu
        "${pip[@]}" numpy
    fi
    "$VENVS/torch/bin/python" -c "$check"
    log "torch: ok ($("$VENVS/torch/bin/python" -c 'import torch, numpy; print("torch", torch.__version__, "numpy", numpy.__version__)'))"
}

setup_jax() {
    local check="import jax; assert jax.__version__.startswith('$JAX_VERSION.'); assert jax.default_backend() == 'cpu'"
    if [ "${FORCE:-0}" != 1 ] && works jax "$check"; then
        log "jax: already set up, skipping"
        return
    fi
    log "jax: creating venv"
    make_venv jax
    "$VENVS/jax/bin/python" -m pip install --quiet "jax==$JAX_VERSION.*" "jaxlib==$JAX_VERSION.*" numpy
    "$VENVS/jax/bin/python" -c "$check"
    log "jax: ok ($("$VENVS/jax/bin/python" -c 'import jax, numpy; print("jax", jax.__version__, "numpy", numpy.__version__)'))"
}

targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(chainer torch jax)
start=$SECONDS
for t in "${targets[@]}"; do
    case "$t" in
        chainer) setup_chainer ;;
        torch) setup_torch ;;
        jax) setup_jax ;;
        *) echo "setup_peers: unknown target '$t' (chainer|torch|jax)" >&2; exit 2 ;;
    esac
done
log "done in $((SECONDS - start)) s"
