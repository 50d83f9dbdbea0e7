"""``generation.llm.repack=false``: llama.cpp loads the model without its extra CPU buffer types
(where AMX kernels crash a VM that reports AMX without granting it)."""

from __future__ import annotations

import pytest

from ragcode.config import load_config
from ragcode.generation.backends.llamacpp import repacking


def test_repack_is_on_by_default_and_settable() -> None:
    assert load_config().generation.llm.repack is True
    assert load_config(overrides=["generation.llm.repack=false"]).generation.llm.repack is False


def test_repacking_off_clears_extra_buffers_only_while_the_model_loads() -> None:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python not installed: pip install 'ragcode[llamacpp]'")
    import llama_cpp.llama as module

    defaults = module.llama_cpp.llama_model_default_params
    assert defaults().use_extra_bufts is True
    with repacking(False):
        assert module.llama_cpp.llama_model_default_params().use_extra_bufts is False
    assert module.llama_cpp.llama_model_default_params is defaults
    with repacking(True):
        assert module.llama_cpp.llama_model_default_params is defaults
