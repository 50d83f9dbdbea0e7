"""Backend choice by name, the `auto` default, and the scripted backend."""

from __future__ import annotations

import importlib.util

import pytest

from ragcode.config import Config
from ragcode.errors import ConfigError, UnknownNameError
from ragcode.generation.llm import LLM, LLMS, Sampling, choose_local_backend, load_llm


def test_registered_backends():
    assert LLMS.names() == ["llamacpp", "openai", "scripted", "transformers", "vllm"]


@pytest.mark.parametrize("installed, expected", [(True, "llamacpp"), (False, "transformers")])
def test_auto_prefers_llamacpp_when_installed(monkeypatch, installed, expected):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: (object() if installed else None) if name == "llama_cpp" else real(name, *a))
    assert choose_local_backend() == expected


def test_load_llm_overrides_and_protocol():
    cfg = Config()
    llm = load_llm(cfg, backend="scripted", scripted_answers=["a", "b"])
    assert isinstance(llm, LLM)
    assert llm.generate([{"role": "user", "content": "x"}], 3, Sampling()) == ["a", "b", "a"]
    assert cfg.generation.llm.backend == "auto"  # the caller's config is not changed


def test_scripted_without_answers_says_what_to_set():
    with pytest.raises(ConfigError, match="generation.llm.scripted_answers"):
        load_llm(Config(), backend="scripted")


def test_unknown_backend_suggests_the_nearest():
    with pytest.raises(UnknownNameError, match="Did you mean 'llamacpp'"):
        load_llm(Config(), backend="llamacp")
