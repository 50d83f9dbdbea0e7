"""Causal LMs through Hugging Face transformers: a local folder, a hub id (offline: only what is
already in the HF cache), or a GGUF file (dequantised on load through transformers' GGUF support,
which needs the ``gguf`` and ``accelerate`` packages). A GGUF file's conversion (tokenizer rebuild
and dequantisation, the slow part) is done once and kept as safetensors under
``<cache_dir>/models/transformers/``; later loads read that copy.

The chat template comes from the tokenizer (for GGUF files: the template stored in the file).
The prompt is evaluated once: its KV cache is kept, and the next prompt evaluates only what
follows the longest token prefix it shares with the last one (the template's system part, a
repair round's conversation so far), as llama.cpp does. ``n`` samples are then decoded together
in one batch from copies of that cache, seeded with ``sampling.seed``. With ``temperature == 0``
one greedy answer is computed and repeated ``n`` times.

``generation.llm.device`` / ``dtype`` (``ragcode.generation.backends.devices``): a GPU when there
is one (bfloat16 there), else the CPU in float32; ``int8`` (CPU only) replaces the linear layers
by int8 ones (per-channel weights, dynamic activations): about 2x faster decoding on a CPU,
answers a little different from float32's. CPU threads: ``n_threads``, else half the logical
CPUs, as llama.cpp. Figures: docs/results.md.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import logging
import os
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

from ragcode.errors import ModelUnavailableError
from ragcode.generation.backends.chat_tokens import prompt_tokens
from ragcode.generation.backends.devices import pick_device, pick_dtype
from ragcode.generation.llm import Message, Sampling
from ragcode.generation.models import human_size, is_gguf, notice, resolve_model

log = logging.getLogger(__name__)


class TransformersLLM:
    def __init__(self, llm_config: Any, cache_dir: str | Path = ""):
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        # CPU threads while generating: n_threads, else half the logical CPUs (llama-cpp-python's
        # rule). torch's default, one per core, stalls every step on a busy machine: each op
        # waits for its slowest thread (4-10x slower decoding measured on 2 shared cores)
        self.threads = llm_config.n_threads or max(1, (os.cpu_count() or 2) // 2)
        self.device = pick_device(llm_config.device, "the transformers backend")
        self.dtype = pick_dtype(llm_config.dtype, self.device)
        load_dtype = torch.float32 if self.dtype == "int8" else getattr(torch, self.dtype)
        where = resolve_model(llm_config.model, cache_dir)  # after the device: a missing GPU is said first
        kwargs: dict[str, Any] = {}
        source = where
        converted = None
        if is_gguf(where):
            converted = _converted_dir(Path(where), cache_dir)
            if (converted / _DONE).is_file():
                source = str(converted)  # dequantised once before: plain safetensors, fast to load
            else:
                source, kwargs["gguf_file"] = str(Path(where).parent), Path(where).name
                notice(f"converting {Path(where).name} ({human_size(Path(where).stat().st_size)}) for "
                       f"transformers into {converted} - first use only, may take minutes")
                load_dtype = torch.float32  # the kept copy is float32, whatever this run uses
        try:
            self.tokenizer = AutoTokenizer.from_pretrained(source, **kwargs)
            self.model = AutoModelForCausalLM.from_pretrained(source, dtype=load_dtype, **kwargs)
        except (OSError, ValueError, ImportError) as exc:
            raise ModelUnavailableError(
                f"transformers could not load {llm_config.model!r} (resolved to {where!r}): {exc}. "
                "Give a local model folder, a .gguf file, a packaged alias, or a hub id that is "
                "already in the local Hugging Face cache"
            ) from exc
        self.model.eval()
        if converted is not None and "gguf_file" in kwargs and cache_dir:
            _save_converted(self.model, self.tokenizer, converted)
        self.model = _to_dtype(self.model, self.dtype).to(self.device)
        self.model_id = f"transformers:{Path(where).name if Path(where).exists() else where}"
        params = inspect.signature(self.model.forward).parameters
        self._cache_kw = "cache" if "cache" in params else "past_key_values"  # transformers 5 / 4
        self._kv: tuple[Any, list[int]] | None = None  # the last prompt's cache and its tokens
        log.info("transformers: %s on %s as %s", self.model_id, self.device, self.dtype)

    def generate(self, messages: list[Message], n: int, sampling: Sampling) -> list[str]:
        import torch

        ids = prompt_ids(self.tokenizer, messages)
        greedy = sampling.temperature <= 0
        rows = 1 if greedy else n
        input_ids = torch.tensor([ids] * rows, device=self.device)
        gen_kwargs: dict[str, Any] = {
            "max_new_tokens": sampling.max_tokens,
            "do_sample": not greedy,
            "pad_token_id": self.tokenizer.pad_token_id or self.tokenizer.eos_token_id,
            "attention_mask": torch.ones_like(input_ids),
        }
        if not greedy:
            gen_kwargs.update(temperature=sampling.temperature, top_p=sampling.top_p)
        if sampling.stop:
            gen_kwargs.update(stop_strings=list(sampling.stop), tokenizer=self.tokenizer)
        with torch.inference_mode(), _threads(self.threads if self.device == "cpu" else 0):
            if len(ids) > 1:  # all but the last prompt token come from the kept cache
                cache = copy.deepcopy(self._prefill(ids[:-1]))
                if rows > 1:
                    cache.batch_repeat_interleave(rows)
                gen_kwargs[self._cache_kw] = cache
            torch.manual_seed(sampling.seed)
            out = self.model.generate(input_ids=input_ids, **gen_kwargs)
        start = len(ids)
        texts = [cast(str, self.tokenizer.decode(seq[start:], skip_special_tokens=True)) for seq in out]
        if greedy:
            texts = texts * n
        return [_cut_at_stop(t, sampling.stop) for t in texts]

    def count_tokens(self, text: str) -> int:
        return len(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _prefill(self, ids: list[int]) -> Any:
        """The KV cache of ``ids`` (one row), evaluating only what follows the longest prefix
        shared with the previous prompt; kept for the next call."""
        import torch
        from transformers import DynamicCache

        cache, held = self._kv if self._kv is not None else (None, [])
        same = 0
        for a, b in zip(held, ids):
            if a != b:
                break
            same += 1
        if cache is None or same == 0:
            cache, same = DynamicCache(), 0
        elif same < len(held):
            # a negative count removes that many tokens: the one spelling transformers 4 (which
            # also took an absolute length) and 5 (which refuses a positive one) both read alike
            cache.crop(same - len(held))
        if same < len(ids):
            self.model(input_ids=torch.tensor([ids[same:]], device=self.device), use_cache=True,
                       **{self._cache_kw: cache})
        self._kv = (cache, list(ids))
        return cache


_DONE = "ragcode-converted.ok"


def prompt_ids(tokenizer: Any, messages: list[Message]) -> list[int]:
    """The chat prompt's token ids, its messages read as plain text: a special-token string a
    message holds (``<|endoftext|>`` in a README) is split, not the model's control token
    (``ragcode.generation.backends.chat_tokens``)."""
    prompt = tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)

    def tokenize(text: str, special: bool) -> list[int]:
        return list(tokenizer(text, add_special_tokens=False, split_special_tokens=not special)["input_ids"])

    return prompt_tokens(prompt, [str(m.get("content") or "") for m in messages], tokenize)


def _converted_dir(gguf: Path, cache_dir: str | Path) -> Path:
    """Where the dequantised copy of ``gguf`` is kept: keyed by its name, size and mtime."""
    st = gguf.stat()
    return Path(cache_dir) / "models" / "transformers" / f"{gguf.stem}-{st.st_size}-{st.st_mtime_ns}"


def weights_size(model: Any) -> int:
    """Bytes of ``model``'s tensors as safetensors writes them (a tensor shared by two names, such
    as tied embeddings, once)."""
    seen: dict[Any, int] = {}
    for tensor in model.state_dict().values():
        seen.setdefault((tensor.device.type, tensor.untyped_storage().data_ptr()),
                        tensor.untyped_storage().nbytes())
    return sum(seen.values())


def _save_converted(model: Any, tokenizer: Any, target: Path) -> None:
    """Keep the GGUF -> transformers conversion (tokenizer rebuild + dequantisation, the slow
    part of loading) as safetensors, written to a temp folder and renamed into place."""
    import shutil
    import tempfile

    tmp: Path | None = None
    size = weights_size(model)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(target.parent).free
        if free < size * 1.1:
            notice(f"not keeping the converted model ({human_size(size)}): {target.parent} has "
                   f"{human_size(free)} free; the next load converts it again")
            return
        notice(f"writing the converted model ({human_size(size)}, float32 safetensors) to {target} - "
               "once, so later loads take seconds; `ragcode cache --clear converted` frees it")
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        # the weights are already dequantised; the GGUF loader's marker would block saving
        quantizer = getattr(model, "hf_quantizer", None)
        qconfig = getattr(model.config, "quantization_config", None)
        try:
            model.hf_quantizer = None
            if qconfig is not None:
                del model.config.quantization_config
            model.save_pretrained(tmp)
        finally:
            model.hf_quantizer = quantizer
            if qconfig is not None:
                model.config.quantization_config = qconfig
        tokenizer.save_pretrained(tmp)
        (tmp / _DONE).write_text("ok\n")
        if target.exists():
            shutil.rmtree(target)
        os.replace(tmp, target)
        size = sum(p.stat().st_size for p in target.rglob("*") if p.is_file())
        notice(f"kept the converted model ({human_size(size)}) in {target}")
    except (OSError, ValueError) as exc:  # a cache is an optimisation: never fail the load for it
        log.warning("could not keep the converted model in %s: %s", target, exc)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


@contextlib.contextmanager
def _threads(n: int) -> Iterator[None]:
    """torch's intra-op threads set to ``n`` (0: left as they are) for the body."""
    import torch

    before = torch.get_num_threads()
    if n and n != before:
        torch.set_num_threads(n)
    try:
        yield
    finally:
        if n and n != before:
            torch.set_num_threads(before)


def _to_dtype(model: Any, dtype: str) -> Any:
    import torch

    if dtype != "int8":
        return model.to(getattr(torch, dtype))
    try:
        from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic
    except ImportError:
        raise ModelUnavailableError(f"generation.llm.dtype=int8 needs torch.ao.quantization, which torch "
                                    f"{torch.__version__} lacks; use dtype=bfloat16 or float32") from None
    layers = {name: per_channel_dynamic_qconfig for name, mod in model.named_modules()
              if isinstance(mod, torch.nn.Linear)}
    with warnings.catch_warnings():  # deprecated in favour of torchao, still the built-in way
        warnings.simplefilter("ignore")
        return quantize_dynamic(model, layers, dtype=torch.qint8)


def _cut_at_stop(text: str, stop: tuple[str, ...]) -> str:
    for s in stop:
        i = text.find(s)
        if i >= 0:
            text = text[:i]
    return text
