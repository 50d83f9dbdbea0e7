"""Where local models run: generation.llm.device / dtype / n_gpu_layers, and the vllm backend.

No GPU is needed: torch's view of the machine is replaced where a test needs a GPU to be there,
and vllm by a stand-in module that records what the backend asks of it. Without a GPU (this
machine) every GPU path is a one-line ModelUnavailableError."""

from __future__ import annotations

import sys
import types

import pytest
import torch

from ragcode.config import LLMConfig, load_config
from ragcode.errors import ConfigError, ModelUnavailableError
from ragcode.generation.backends import devices
from ragcode.generation.backends.llamacpp import gpu_kwargs
from ragcode.generation.llm import Sampling, load_llm


def fake_gpus(monkeypatch, count: int = 2, bf16: bool = True) -> None:
    monkeypatch.setattr(torch.cuda, "is_available", lambda: count > 0)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: count)
    monkeypatch.setattr(torch.cuda, "is_bf16_supported", lambda *a, **k: bf16)


def test_auto_is_the_cpu_without_a_gpu_and_the_first_gpu_with_one(monkeypatch):
    fake_gpus(monkeypatch, 0)
    assert devices.pick_device("auto") == "cpu" and devices.pick_device("cpu") == "cpu"
    fake_gpus(monkeypatch, 2)
    assert devices.pick_device("auto") == "cuda:0"
    assert devices.pick_device("cuda") == "cuda:0" and devices.pick_device("cuda:1") == "cuda:1"
    assert devices.pick_device("cpu") == "cpu"


def test_asking_for_a_gpu_where_there_is_none_names_what_torch_sees(monkeypatch):
    fake_gpus(monkeypatch, 0)
    with pytest.raises(ModelUnavailableError) as err:
        devices.pick_device("cuda", "the transformers backend")
    msg = str(err.value)
    assert "device='cuda'" in msg and "no usable GPU" in msg and "0 GPU(s) visible" in msg
    assert "device=cpu" in msg and "\n" not in msg
    fake_gpus(monkeypatch, 2)
    with pytest.raises(ModelUnavailableError, match=r"cuda:2.*only 2 GPU\(s\).*cuda:0..cuda:1"):
        devices.pick_device("cuda:2")


def test_dtype_auto_follows_the_chip(monkeypatch):
    fake_gpus(monkeypatch, 1, bf16=True)
    assert devices.pick_dtype("auto", "cuda:0") == "bfloat16"
    fake_gpus(monkeypatch, 1, bf16=False)
    assert devices.pick_dtype("auto", "cuda:0") == "float16"
    assert devices.pick_dtype("auto", "cpu") == "float32"  # as before: the CPU's answers are unchanged
    assert devices.pick_dtype("bfloat16", "cpu") == "bfloat16"
    assert devices.pick_dtype("float16", "cpu") == "float16" and devices.pick_dtype("int8", "cpu") == "int8"
    with pytest.raises(ModelUnavailableError, match="dtype=int8 is for the CPU"):
        devices.pick_dtype("int8", "cuda:0")


def test_bad_device_and_dtype_settings_are_config_errors():
    with pytest.raises(ConfigError, match="generation.llm.device"):
        load_config(overrides=["generation.llm.device=gpu0"])
    with pytest.raises(ConfigError, match="generation.llm.dtype"):
        load_config(overrides=["generation.llm.dtype=fp8"])
    with pytest.raises(ConfigError, match="generation.llm.n_gpu_layers"):
        load_config(overrides=["generation.llm.n_gpu_layers=-2"])
    assert load_config(overrides=["generation.llm.device=cuda:3"]).generation.llm.device == "cuda:3"


def test_transformers_backend_refuses_a_missing_gpu_before_loading_anything(monkeypatch, tmp_path):
    pytest.importorskip("transformers")
    fake_gpus(monkeypatch, 0)
    cfg = load_config(overrides=["generation.llm.backend=transformers", "generation.llm.device=cuda",
                                 f"index.cache_dir={tmp_path}", "generation.llm.model=/nonexistent"])
    with pytest.raises(ModelUnavailableError, match="the transformers backend finds no usable GPU"):
        load_llm(cfg)


def test_llamacpp_offloads_every_layer_when_the_build_can_and_none_otherwise():
    cfg = LLMConfig()
    assert gpu_kwargs(cfg, offload=True) == {"n_gpu_layers": -1}  # default: all when there is a GPU
    assert gpu_kwargs(cfg, offload=False) == {"n_gpu_layers": 0}
    assert gpu_kwargs(LLMConfig(device="cpu"), offload=True) == {"n_gpu_layers": 0}
    assert gpu_kwargs(LLMConfig(device="cuda:1", n_gpu_layers=20), offload=True) == {"n_gpu_layers": 20, "main_gpu": 1}
    for cfg in (LLMConfig(device="cuda"), LLMConfig(n_gpu_layers=12)):
        with pytest.raises(ModelUnavailableError, match="built without GPU offload.*GGML_CUDA=on"):
            gpu_kwargs(cfg, offload=False)


def test_llamacpp_on_this_build_asks_llama_cpp_whether_it_can_offload():
    llama_cpp = pytest.importorskip("llama_cpp")
    can = bool(llama_cpp.llama_supports_gpu_offload())
    assert gpu_kwargs(LLMConfig()) == {"n_gpu_layers": -1 if can else 0}


def test_vllm_missing_is_one_clear_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", None)  # import vllm -> ImportError
    with pytest.raises(ModelUnavailableError) as err:
        load_llm(load_config(overrides=["generation.llm.backend=vllm"]))
    msg = str(err.value)
    assert "pip install 'ragcode[vllm]'" in msg and "--llm transformers or llamacpp" in msg
    assert "vllm serve" in msg and "\n" not in msg


class _FakeVLLM(types.ModuleType):
    """Records the engine's arguments and answers chat() with n numbered completions."""

    def __init__(self):
        super().__init__("vllm")
        fake = self
        self.engines: list[dict] = []

        class SamplingParams:
            def __init__(self, **kw):
                self.kw = kw

        class LLM:
            def __init__(self, **kw):
                fake.engines.append(kw)
                self.calls = []

            def get_tokenizer(self):
                return types.SimpleNamespace(encode=lambda text, add_special_tokens=False: text.split())

            def chat(self, conversations, params, use_tqdm=True):
                self.calls.append((conversations, params.kw))
                outs = [types.SimpleNamespace(text=f"```bash\npython train.py --i {i}\n```")
                        for i in range(params.kw["n"])]
                return [types.SimpleNamespace(outputs=outs)]

        self.LLM, self.SamplingParams = LLM, SamplingParams


def test_vllm_without_a_gpu_is_refused_with_the_alternatives(monkeypatch):
    monkeypatch.setitem(sys.modules, "vllm", _FakeVLLM())
    fake_gpus(monkeypatch, 0)
    with pytest.raises(ModelUnavailableError, match="runs on a GPU and no GPU is usable here.*transformers or llamacpp"):
        load_llm(load_config(overrides=["generation.llm.backend=vllm"]))


def test_vllm_backend_maps_settings_and_samples_onto_vllm(monkeypatch, tmp_path):
    fake = _FakeVLLM()
    monkeypatch.setitem(sys.modules, "vllm", fake)
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    fake_gpus(monkeypatch, 2, bf16=True)
    cfg = load_config(overrides=["generation.llm.backend=vllm", "generation.llm.model=org/coder-7b",
                                 "generation.llm.device=cuda:1", "generation.llm.n_ctx=8192",
                                 "generation.llm.seed=7", f"index.cache_dir={tmp_path}"])
    llm = load_llm(cfg)
    assert fake.engines == [{"model": "org/coder-7b", "dtype": "bfloat16", "seed": 7, "max_model_len": 8192}]
    import os

    assert os.environ.get("CUDA_VISIBLE_DEVICES") == "1"
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    msgs = [{"role": "user", "content": "run train.py"}]
    out = llm.generate(msgs, 3, Sampling(temperature=0.7, top_p=0.9, max_tokens=50, seed=4, stop=("```\n\n",)))
    assert len(out) == 3 and out[2].endswith("--i 2\n```")
    conversations, params = llm.engine.calls[0]
    assert conversations == [msgs]
    assert params == {"n": 3, "temperature": 0.7, "top_p": 0.9, "max_tokens": 50, "seed": 4, "stop": ["```\n\n"]}
    assert llm.count_tokens("a b c") == 3 and llm.model_id == "vllm:org/coder-7b"
