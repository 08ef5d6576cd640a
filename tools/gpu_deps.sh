#!/usr/bin/env bash
# Copy the pure-Python packages that fnet and its GPU tests import (attrs, msgpack, toolz,
# pytest-timeout) from this checkout's venv into .gpu-deps/, for a GPU machine without network
# that lacks them. tools/gpu_check.sh puts .gpu-deps on PYTHONPATH only where an import fails.
# msgpack's C extension is built for this venv's Python; elsewhere msgpack falls back to its
# pure-Python implementation by itself.
set -eu
cd "$(dirname "$0")/.."
PY=${PYTHON:-.venv/bin/python}
SITE=$("$PY" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
DEST=.gpu-deps
rm -rf "$DEST.tmp" && mkdir -p "$DEST.tmp"
for name in attr attrs msgpack toolz tlz pytest_timeout.py; do
    cp -r "$SITE/$name" "$DEST.tmp/"
done
find "$DEST.tmp" -name __pycache__ -prune -exec rm -rf {} +
rm -rf "$DEST" && mv "$DEST.tmp" "$DEST"
du -sh "$DEST"
