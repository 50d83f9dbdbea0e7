"""Models served in-process by vLLM on a GPU (optional extra ``vllm``, a CUDA machine).

vLLM batches the ``n`` samples of a prompt (one prefill, shared KV blocks) and keeps prefixes
cached between prompts. ``generation.llm.model`` is a local model folder, a hub id already in the
Hugging Face cache, or a GGUF file (vLLM reads GGUF weights; the tokenizer then comes from the
file, which is slow to load: a model folder is the better choice). ``dtype``: auto (bfloat16 where
the GPU computes in it, else float16), bfloat16, float16 or float32; ``device``: auto or cuda is
the first GPU, ``cuda:N`` GPU N (through ``CUDA_VISIBLE_DEVICES``, set before vLLM starts);
``n_ctx`` is vLLM's ``max_model_len``. Sample ``i`` of a call draws from seed ``seed`` (vLLM
seeds the request; its n samples differ).

vllm is imported only when this backend is chosen. Without vllm, or without a GPU, loading is a
one-line ``ModelUnavailableError`` that names the alternatives: ``transformers`` or ``llamacpp``
here, or a vLLM server reached through the ``openai`` backend.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

from ragcode.errors import ModelUnavailableError
from ragcode.generation.backends.devices import pick_device, pick_dtype, torch_summary
from ragcode.generation.llm import LLMError, Message, Sampling
from ragcode.generation.models import resolve_model

log = logging.getLogger(__name__)

SERVER_HINT = ("or serve the model with `vllm serve MODEL` on a GPU machine and use --llm openai "
               "--set generation.llm.base_url=http://HOST:8000/v1")


class VLLMLLM:
    def __init__(self, llm_config: Any, cache_dir: str | Path = ""):
        try:
            import vllm
        except ImportError:
            raise ModelUnavailableError(
                "the 'vllm' backend needs vllm and an NVIDIA GPU: pip install 'ragcode[vllm]' on a CUDA "
                f"machine; here choose --llm transformers or llamacpp, {SERVER_HINT}") from None
        import torch

        if llm_config.device == "cpu" or not torch.cuda.is_available():
            why = "generation.llm.device=cpu" if llm_config.device == "cpu" else f"no GPU is usable here ({torch_summary(torch)})"
            raise ModelUnavailableError(f"the 'vllm' backend runs on a GPU and {why}; choose --llm "
                                        f"transformers or llamacpp, {SERVER_HINT}")
        device = pick_device("cuda" if llm_config.device == "auto" else llm_config.device, "vllm")
        self.dtype = pick_dtype(llm_config.dtype, device)
        if ":" in device and "CUDA_VISIBLE_DEVICES" not in os.environ:
            os.environ["CUDA_VISIBLE_DEVICES"] = device.split(":", 1)[1]
        path = resolve_model(llm_config.model, cache_dir)
        try:
            self.engine = vllm.LLM(model=path, dtype=self.dtype, seed=llm_config.seed,
                                   max_model_len=llm_config.n_ctx)
        except (OSError, ValueError, RuntimeError) as exc:
            first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
            raise ModelUnavailableError(f"vllm could not load {llm_config.model!r} (resolved to {path!r}): {first}") from exc
        self._vllm = vllm
        self.tokenizer = self.engine.get_tokenizer()
        self.device = device
        self.model_id = f"vllm:{Path(path).name if Path(path).exists() else path}"

    def generate(self, messages: list[Message], n: int, sampling: Sampling) -> list[str]:
        params = self._vllm.SamplingParams(n=n, temperature=sampling.temperature, top_p=sampling.top_p,
                                           max_tokens=sampling.max_tokens, seed=sampling.seed,
                                           stop=list(sampling.stop) or None)
        try:
            outs = self.engine.chat([messages], params, use_tqdm=False)
        except ValueError as exc:  # e.g. a prompt longer than max_model_len
            raise LLMError(f"vllm could not complete the prompt: {exc}; lower generation.context_tokens "
                           "or raise generation.llm.n_ctx") from exc
        return [o.text for o in outs[0].outputs][:n]

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer.encode(text, add_special_tokens=False))
