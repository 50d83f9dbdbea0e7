#!/usr/bin/env bash
# Lint and type-check: ruff over src/ and tests/, mypy over src/ragcode (settings in pyproject.toml).
# scripts/test.sh runs this before pytest, so CI fails on a lint or type error as on a test.
set -euo pipefail
cd "$(dirname "$0")/.."
python -m ruff check src tests
python -m mypy
