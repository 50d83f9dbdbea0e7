#!/usr/bin/env bash
# The wheel works on its own: build dist/ragcode-*.whl, install it into a fresh virtual
# environment (no system site-packages, not .venv, nothing from src/), then run `ragcode --version`
# and `ragcode index examples/tinygan` (the default embedder, from the wheel's dependencies)
# from outside the checkout. CI runs this after scripts/test.sh.
#
# The fresh venv installs torch (CPU build, pinned as scripts/install.sh does) and every other
# dependency through pip as a user would; pip reuses the wheels scripts/test.sh already
# downloaded (its cache, or the configured local index), so no second multi-GB download happens.
# Set WHEEL_CHECK_DIR to keep the venv for a look afterwards (default: a temp folder, removed).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python3}
BUILD_PY=${BUILD_PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo "$PY")}
WORK=${WHEEL_CHECK_DIR:-$(mktemp -d -t ragcode-wheel.XXXXXX)}
[ -n "${WHEEL_CHECK_DIR:-}" ] || trap 'rm -rf "$WORK"' EXIT
unset PYTHONPATH
t0=$(date +%s)
step() { echo "wheel_check: $1 ($(( $(date +%s) - t0 )) s)" >&2; }

rm -rf dist
"$BUILD_PY" -m build --wheel --outdir dist . >/dev/null
WHEEL=$(ls dist/ragcode-*.whl)
step "built $WHEEL"

"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/python" -m pip install -q "torch==2.13.0"
"$WORK/venv/bin/python" -m pip install -q "$WHEEL"
step "installed into a fresh venv at $WORK/venv"

cd "$WORK"  # outside the checkout: the installed package must answer, not src/
export RAGCODE_CACHE="$WORK/cache" HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
where=$("$WORK/venv/bin/python" -c "import ragcode; print(ragcode.__file__)")
case "$where" in "$WORK/venv/"*) ;; *) echo "wheel_check: ragcode imported from $where" >&2; exit 1;; esac
want=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$ROOT/src/ragcode/version.py")
got=$("$WORK/venv/bin/ragcode" --version)
[ "$got" = "ragcode $want" ] || { echo "wheel_check: --version printed '$got', expected 'ragcode $want'" >&2; exit 1; }
"$WORK/venv/bin/ragcode" index "$ROOT/examples/tinygan" --out "$WORK/indexes" --name tinygan --json > index.json
"$WORK/venv/bin/python" - <<'PY'
import json
s = json.load(open("index.json"))
assert s["chunks"] > 0 and s["vectors"] > 0, s
print(f"wheel_check: indexed {s['files']} files into {s['chunks']} chunks, {s['vectors']} vectors")
PY
"$WORK/venv/bin/ragcode" search tinygan "train on cifar10" -k 3 --set "index.root=$WORK/indexes" --json > hits.json
step "ragcode --version, index and search ran from the wheel"
