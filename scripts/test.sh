#!/usr/bin/env bash
# Install ragcode with its test extras into .venv, then run pytest (arguments pass through).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/install.sh "dev,rerank,bench,docker,ablation,llamaindex,mcp,hf,transformers,qwen05b,ray,onnx"
python -m pytest -q "$@"
