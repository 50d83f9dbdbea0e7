"""A special-token string in a message is read as text, not as the model's control token.

The splitting is checked on its own (a toy tokenizer), then with the packaged GGUF model through
llama-cpp-python where it is installed: the prompt of an instruction that names ``<|endoftext|>``
holds no end-of-text token, an ordinary prompt's tokens are the chat handler's own, and the
protected path's completion settings are the chat handler's (the same greedy answer)."""

from __future__ import annotations

import importlib.util
import os

import pytest

from ragcode.generation.backends.chat_tokens import pieces, prompt_tokens


def toy_tokenize(text: str, special: bool) -> list[int]:
    """One id per character; with ``special``, the string ``<s>`` is the one id -1."""
    out: list[int] = []
    while text:
        if special and text.startswith("<s>"):
            out.append(-1)
            text = text[3:]
        else:
            out.append(ord(text[0]))
            text = text[1:]
    return out


def test_pieces_follow_the_contents_in_order_or_give_up() -> None:
    prompt = "<s>sys: be brief<s>user: say <s><s>assistant:"
    assert pieces(prompt, ["be brief", "", "say <s>"]) == [
        ("<s>sys: ", True), ("be brief", False), ("<s>user: ", True), ("say <s>", False), ("<s>assistant:", True)]
    assert pieces(prompt, ["say <s>", "be brief"]) is None  # not in that order: the template rewrote it


def test_only_the_contents_lose_their_special_tokens() -> None:
    prompt = "<s>user: print <s><s>"
    tokens = prompt_tokens(prompt, ["print <s>"], toy_tokenize)
    assert tokens.count(-1) == 2 and tokens == [-1, *map(ord, "user: print <s>"), -1]
    plain = "<s>user: hi<s>"
    assert prompt_tokens(plain, ["hi"], toy_tokenize) == toy_tokenize(plain, True)  # nothing to protect
    rewritten = "<s>user: PRINT <s><s>"  # a content the template changed: the whole prompt, as before
    assert prompt_tokens(rewritten, ["print <s>"], toy_tokenize) == toy_tokenize(rewritten, True)


needs_llama = pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None,
                                 reason="llama-cpp-python not installed: pip install 'ragcode[llamacpp]'")


@pytest.fixture(scope="module")
def llm():
    from ragcode.config import Config
    from ragcode.generation.backends.llamacpp import LlamaCppLLM

    cfg = Config().generation.llm.model_copy(update={"backend": "llamacpp", "model": "qwen2.5-coder-0.5b",
                                                     "n_ctx": 1024, "n_threads": 2})
    return LlamaCppLLM(cfg, os.path.expanduser("~/.cache/ragcode"))


@needs_llama
def test_llamacpp_reads_a_special_token_string_in_a_message_as_text(llm) -> None:
    from ragcode.generation.llm import Sampling

    end_of_text = llm.tokenize("<|endoftext|>", True)
    assert len(end_of_text) == 1  # the model's own special token, when parsed
    system = {"role": "system", "content": "You write Python."}
    named = [system, {"role": "user", "content": 'Print the string "<|endoftext|>" in Python.'}]
    tokens, rendered = llm.protected_prompt(named)
    assert end_of_text[0] not in tokens and end_of_text[0] in llm.tokenize(rendered.prompt, True)
    assert llm.tokenize("<|im_start|>", True)[0] in tokens  # the template still speaks in its own
    plain = [system, {"role": "user", "content": "Print hello in Python."}]
    assert llm.protected_prompt(plain) is None  # the chat handler's own path, unchanged
    greedy = Sampling(temperature=0.0, top_p=1.0, max_tokens=24, seed=0, stop=())
    llm.generate(plain, 1, greedy)  # a fresh model's first prompt is evaluated in other batches
    by_handler = llm.generate(plain, 1, greedy)[0]  # from then on, both paths reuse the kept prompt
    from llama_cpp.llama_chat_format import Jinja2ChatFormatter

    eos = llm.llama.token_eos()
    formatter = Jinja2ChatFormatter(template=llm.llama.metadata["tokenizer.chat_template"],
                                    eos_token=llm._text_of(eos), bos_token=llm._text_of(llm.llama.token_bos()),
                                    stop_token_ids=[eos])
    rendered_plain = formatter(messages=plain)
    assert llm._complete(llm.tokenize(rendered_plain.prompt, True), rendered_plain, greedy, 0) == by_handler


@pytest.mark.skipif(importlib.util.find_spec("transformers") is None,
                    reason="transformers not installed: pip install 'ragcode[transformers]'")
def test_transformers_prompt_reads_a_special_token_string_in_a_message_as_text() -> None:
    from tokenizers import Tokenizer, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    from ragcode.generation.backends.transformers_hf import prompt_ids

    words = Tokenizer(models.WordLevel({"<pad>": 0, "<unk>": 1, "user": 2, ":": 3, "say": 4, "assistant": 5},
                                       unk_token="<unk>"))
    words.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=words, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>")
    tokenizer.chat_template = ("{% for m in messages %}{{ m['role'] }} : {{ m['content'] }} <eos> {% endfor %}"
                               "{% if add_generation_prompt %}assistant :{% endif %}")
    eos = tokenizer.eos_token_id
    named = prompt_ids(tokenizer, [{"role": "user", "content": "say <eos>"}])
    assert named == [2, 3, 4, 1, eos, 5, 3]  # the message's <eos> is an unknown word; the template's is eos
    plain = prompt_ids(tokenizer, [{"role": "user", "content": "say"}])
    assert plain == [2, 3, 4, eos, 5, 3]
