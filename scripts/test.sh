#!/usr/bin/env bash
# Install ragcode with its test extras into .venv, lint and type-check (scripts/lint.sh), then run
# pytest (arguments pass through). A lint, type or test failure fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/install.sh "dev,rerank,bench,docker,ablation,llamaindex,mcp,hf,transformers,qwen05b,ray,onnx,parsers"
bash scripts/lint.sh
python -m pytest -q "$@"
