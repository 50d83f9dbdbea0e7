#!/usr/bin/env bash
# Create .venv if missing and install ragcode with the given extras (comma-separated).
# torch is pinned to the CPU build and installed first: an unpinned torch pulls a CUDA build.
# Source it (". scripts/install.sh EXTRAS") so the venv stays active in the caller.
set -euo pipefail
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q "torch==2.13.0"
python -m pip install -q -e ".[$1]"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
