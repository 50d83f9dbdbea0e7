#!/usr/bin/env bash
# Create .venv if missing and install ragcode with the given extras (comma-separated).
# torch is pinned to the CPU build and installed first: an unpinned torch pulls a CUDA build.
# Source it (". scripts/install.sh EXTRAS") so the venv stays active in the caller.
set -euo pipefail
PY=${PYTHON:-python3}
# Executed answers run in bubblewrap; without it ragcode refuses to execute them.
if ! command -v bwrap >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "installing bubblewrap (the sandbox for executed answers)" >&2
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap >/dev/null; } \
            || echo "warning: could not install bubblewrap; executed answers will be refused" >&2
    else
        echo "warning: bubblewrap (bwrap) is missing and this script cannot install it (needs root and apt):" \
             "executed answers will be refused until it is installed, or use execution.executor=docker" >&2
    fi
fi
[ -x .venv/bin/python ] || "$PY" -m venv .venv
. .venv/bin/activate
python -m pip install -q --upgrade pip
python -m pip install -q "torch==2.13.0"
python -m pip install -q -e ".[$1]"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
