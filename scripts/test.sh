#!/usr/bin/env bash
# Install ragcode with its test extras into .venv (torch pinned to the CPU build first), then run pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PY" -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q "torch==2.13.0"
python -m pip install -q -e ".[dev,rerank,bench,docker,ablation,llamaindex,hf,transformers,qwen05b]"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
python -m pytest -q "$@"
