"""The transformers backend end to end on a tiny causal LM built in the test (random weights, a
word-level tokenizer with a chat template; nothing downloaded): on the CPU everywhere, and on the
first GPU where torch sees one (``device: auto`` must pick it, in bfloat16).

What could break: the prompt's kept KV cache (a prefix shared with the last prompt is not
evaluated again) must give the answers a fresh backend gives; ``n`` sampled answers decode in one
batch from copies of that cache and repeat for the same seed; greedy answers repeat.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

if importlib.util.find_spec("transformers") is None:
    pytest.skip("transformers not installed: pip install 'ragcode[transformers]'", allow_module_level=True)

import torch

from ragcode.config import Config
from ragcode.generation.backends.transformers_hf import TransformersLLM
from ragcode.generation.llm import Sampling

WORDS = "python train.py --lr 0.01 --epochs 3 bash run the script with a of and to user assistant : write".split()
CHAT = ("{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} {% endfor %}"
        "{% if add_generation_prompt %}assistant :{% endif %}")
FIRST = [{"role": "system", "content": "write the script"}, {"role": "user", "content": "run train.py --lr 0.01"}]
SECOND = [{"role": "system", "content": "write the script"}, {"role": "user", "content": "run train.py --epochs 3"}]


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    folder = tmp_path_factory.mktemp("tiny-lm")
    vocab = {w: i for i, w in enumerate(["<pad>", "<eos>", "<unk>", *dict.fromkeys(WORDS)])}
    words = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    words.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=words, unk_token="<unk>", pad_token="<pad>",
                                        eos_token="<eos>")
    tokenizer.chat_template = CHAT
    tokenizer.save_pretrained(folder)
    config = Qwen2Config(vocab_size=len(vocab), hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=128,
                         pad_token_id=0, eos_token_id=1, bos_token_id=1)
    torch.manual_seed(0)
    Qwen2ForCausalLM(config).save_pretrained(folder)
    return folder


DEVICES = ["cpu", pytest.param("auto", marks=pytest.mark.skipif(not torch.cuda.is_available(),
                                                                 reason="no GPU visible to torch"))]


def _llm(folder: Path, device: str, tmp_path: Path) -> TransformersLLM:
    cfg = Config().generation.llm.model_copy(update={"backend": "transformers", "model": str(folder),
                                                     "device": device, "n_threads": 1})
    return TransformersLLM(cfg, cache_dir=tmp_path)


@pytest.mark.parametrize("device", DEVICES)
def test_answers_with_a_kept_prompt_cache_are_a_fresh_backends(tiny_model, device, tmp_path):
    llm = _llm(tiny_model, device, tmp_path)
    if device == "auto":
        assert llm.device == "cuda:0" and llm.dtype == "bfloat16"
        assert next(llm.model.parameters()).device.type == "cuda"
    greedy = Sampling(temperature=0.0, max_tokens=8)
    first = llm.generate(FIRST, 2, greedy)
    assert len(first) == 2 and first[0] == first[1] and first[0].strip()
    second = llm.generate(SECOND, 1, greedy)  # shares the system part with FIRST: evaluated from the cache
    fresh = _llm(tiny_model, device, tmp_path)
    assert fresh.generate(SECOND, 1, greedy) == second
    assert llm.generate(FIRST, 1, greedy) == first[:1]  # back to the first prompt: the cache is cropped


@pytest.mark.parametrize("device", DEVICES)
def test_sampled_answers_decode_together_and_repeat_for_a_seed(tiny_model, device, tmp_path):
    llm = _llm(tiny_model, device, tmp_path)
    sampling = Sampling(temperature=1.5, top_p=1.0, max_tokens=8, seed=7)
    batch = llm.generate(FIRST, 4, sampling)
    assert len(batch) == 4 and len(set(batch)) > 1  # hot sampling over random weights: not all alike
    assert llm.generate(FIRST, 4, sampling) == batch
    assert 0 < llm.count_tokens("python train.py --lr 0.01") <= len("python train.py --lr 0.01")


def test_the_kept_conversion_is_announced_with_its_size_and_place_before_it_is_written(tiny_model, tmp_path,
                                                                                       monkeypatch):
    import shutil

    from transformers import AutoModelForCausalLM, AutoTokenizer

    from ragcode.generation.backends import transformers_hf as hf
    from ragcode.generation.models import human_size

    model, tok = AutoModelForCausalLM.from_pretrained(tiny_model), AutoTokenizer.from_pretrained(tiny_model)
    target = tmp_path / "models" / "transformers" / "tiny"
    said: list[tuple[str, list[str]]] = []
    monkeypatch.setattr(hf, "notice", lambda m: said.append((m, sorted(p.name for p in target.parent.iterdir()))))
    hf._save_converted(model, tok, target)
    (first, there), (last, _) = said
    size = hf.weights_size(model)
    assert f"({human_size(size)}, float32 safetensors) to {target}" in first and there == []  # said first
    written = sum(p.stat().st_size for p in target.glob("*.safetensors"))
    assert abs(written - size) < 0.05 * size  # the size announced is the size written
    assert last.startswith("kept the converted model")
    # too little room: said, and nothing written (the next load converts again)
    said.clear()
    other = tmp_path / "models" / "transformers" / "tiny2"
    monkeypatch.setattr(shutil, "disk_usage", lambda _p: shutil._ntuple_diskusage(10**9, 10**9 - 10, 10))
    hf._save_converted(model, tok, other)
    assert len(said) == 1 and "not keeping the converted model" in said[0][0] and not other.exists()
