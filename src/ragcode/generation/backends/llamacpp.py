"""GGUF models through llama-cpp-python (optional extra ``llamacpp``).

The chat template is the one stored in the GGUF file (llama-cpp-python's default when no chat
format is forced). Samples are drawn one after another from one loaded model: llama-cpp-python
keeps the KV cache of the previous call and re-uses its longest common token prefix, so the
prompt is evaluated once and samples 2..n only decode their own tokens. Sample ``i`` uses seed
``sampling.seed + i``.

GPU: ``generation.llm.n_gpu_layers`` layers are offloaded (-1, the default: all of them when this
llama-cpp-python was built with GPU offload, none otherwise); ``device=cpu`` keeps every layer
on the CPU, ``cuda:N`` puts them on GPU N. Asking for a GPU from a CPU-only build is a one-line
error that says how to rebuild.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragcode.errors import ModelUnavailableError
from ragcode.generation.backends.chat_tokens import holds_special, prompt_tokens
from ragcode.generation.llm import LLMError, Message, Sampling
from ragcode.generation.models import check_model_path, resolve_model

log = logging.getLogger(__name__)


class LlamaCppLLM:
    def __init__(self, llm_config: Any, cache_dir: str | Path = ""):
        # a model file that does not exist is the first thing to mend, whether or not
        # llama-cpp-python is installed (cheap: nothing is assembled before the import check)
        check_model_path(llm_config.model)
        try:
            from llama_cpp import Llama
        except ImportError:
            raise ModelUnavailableError(
                "the 'llamacpp' backend needs llama-cpp-python: pip install 'ragcode[llamacpp]' "
                "(it compiles llama.cpp, ~15 minutes on 2 cores), or choose "
                "--llm transformers / --set generation.llm.backend=transformers"
            ) from None
        path = resolve_model(llm_config.model, cache_dir)
        if not Path(path).is_file():
            raise ModelUnavailableError(
                f"llamacpp needs a local GGUF file; {llm_config.model!r} is neither an existing file "
                "nor a packaged alias (qwen2.5-coder-0.5b, qwen2.5-coder-1.5b)"
            )
        kwargs: dict[str, Any] = {"n_ctx": llm_config.n_ctx, "seed": llm_config.seed, "verbose": False}
        if llm_config.n_threads:
            kwargs["n_threads"] = llm_config.n_threads
        kwargs.update(gpu_kwargs(llm_config))
        try:
            with repacking(llm_config.repack):
                self.llama = Llama(model_path=path, **kwargs)
        except (ValueError, RuntimeError) as exc:
            raise ModelUnavailableError(f"llama.cpp could not load {path}: {exc}") from exc
        self.model_id = f"llamacpp:{Path(path).name}"
        self.path = path

    def generate(self, messages: list[Message], n: int, sampling: Sampling) -> list[str]:
        protected = self.protected_prompt(messages)
        out = []
        for i in range(n):
            try:
                if protected is None:
                    reply = self.llama.create_chat_completion(
                        messages=messages, temperature=sampling.temperature, top_p=sampling.top_p,
                        max_tokens=sampling.max_tokens, seed=sampling.seed + i, stop=list(sampling.stop) or None)
                    out.append(reply["choices"][0]["message"]["content"] or "")
                else:
                    out.append(self._complete(*protected, sampling, sampling.seed + i))
            except ValueError as exc:  # e.g. prompt longer than n_ctx
                raise LLMError(f"llama.cpp could not complete the prompt: {exc}; lower "
                               "generation.context_tokens or raise generation.llm.n_ctx") from exc
        return out

    def tokenize(self, text: str, special: bool) -> list[int]:
        return list(self.llama.tokenize(text.encode("utf-8"), add_bos=False, special=special))

    def protected_prompt(self, messages: list[Message]) -> tuple[list[int], Any] | None:
        """The prompt's tokens with the messages read as plain text, and the rendered template
        (its stops), when a message holds a special-token string
        (``ragcode.generation.backends.chat_tokens``); None when none does, or the model's chat
        format is not the template stored in its file: the chat handler's own tokens are then the
        prompt's."""
        contents = [str(m.get("content") or "") for m in messages]
        if not any(holds_special(c, self.tokenize) for c in contents if c):
            return None
        template = self.llama.metadata.get("tokenizer.chat_template")
        if self.llama.chat_format != "chat_template.default" or not template:
            log.warning("a message holds a special-token string; chat format %s is used as is",
                        self.llama.chat_format)
            return None
        from llama_cpp.llama_chat_format import Jinja2ChatFormatter

        eos, bos = self.llama.token_eos(), self.llama.token_bos()
        formatter = Jinja2ChatFormatter(template=template, eos_token=self._text_of(eos),
                                        bos_token=self._text_of(bos), stop_token_ids=[eos])
        rendered = formatter(messages=messages)  # type: ignore[arg-type]  # plain role/content dicts
        return prompt_tokens(rendered.prompt, contents, self.tokenize), rendered

    def _text_of(self, token: int) -> str:
        return self.llama._model.token_get_text(token) if token >= 0 else ""

    def _complete(self, tokens: list[int], rendered: Any, sampling: Sampling, seed: int) -> str:
        """One sample from prompt ``tokens``, with the settings llama-cpp-python's chat handler
        passes from ``create_chat_completion``'s defaults (no repeat penalty; the template's end of turn
        as a stop)."""
        stops = [rendered.stop] if isinstance(rendered.stop, str) else list(rendered.stop or [])
        reply = self.llama.create_completion(
            prompt=tokens, temperature=sampling.temperature, top_p=sampling.top_p, top_k=40, min_p=0.05,
            repeat_penalty=1.0, max_tokens=sampling.max_tokens, seed=seed, stop=[*sampling.stop, *stops],
            stopping_criteria=rendered.stopping_criteria)
        return str(reply["choices"][0]["text"] or "")

    def count_tokens(self, text: str) -> int:
        return len(self.tokenize(text, False))


@contextlib.contextmanager
def repacking(on: bool) -> Iterator[None]:
    """``Llama(...)`` built inside this block repacks its weights for the CPU's extra kernels only
    when ``on``: llama-cpp-python takes no argument for llama.cpp's ``use_extra_bufts``, so the
    default model parameters it asks for are wrapped while the model loads."""
    if on:
        yield
        return
    import llama_cpp.llama as module

    original = module.llama_cpp.llama_model_default_params

    def without_extra_buffers() -> Any:
        params = original()
        params.use_extra_bufts = False
        return params

    module.llama_cpp.llama_model_default_params = without_extra_buffers
    try:
        yield
    finally:
        module.llama_cpp.llama_model_default_params = original


def gpu_kwargs(llm_config: Any, offload: bool | None = None) -> dict[str, Any]:
    """``n_gpu_layers`` (and ``main_gpu``) for ``Llama(...)``; ``offload``: whether this build can
    offload to a GPU (asked of llama_cpp when None)."""
    device, layers = llm_config.device, llm_config.n_gpu_layers
    if device == "cpu":
        return {"n_gpu_layers": 0}
    if offload is None:
        import llama_cpp

        offload = bool(llama_cpp.llama_supports_gpu_offload())
    if not offload:
        if device.startswith("cuda") or layers > 0:
            asked = f"device={device!r}" if device.startswith("cuda") else f"n_gpu_layers={layers}"
            raise ModelUnavailableError(
                f"generation.llm.{asked} but this llama-cpp-python was built without GPU offload; "
                "rebuild it with CMAKE_ARGS='-DGGML_CUDA=on' pip install --force-reinstall --no-cache-dir "
                "llama-cpp-python, or set generation.llm.device=cpu")
        return {"n_gpu_layers": 0}
    out: dict[str, Any] = {"n_gpu_layers": layers}
    if ":" in device:
        out["main_gpu"] = int(device.split(":", 1)[1])
    return out

