"""Prompt tokens in which only the chat template speaks in special tokens.

A backend renders the chat template to text and tokenizes it with special tokens parsed, so the
template's ``<|im_start|>`` markers become the model's control tokens. But the messages inside it
are text written by the user and by the repository: an instruction or a README that shows
``<|endoftext|>`` (a tokenizer's docs do) would reach the model as its end-of-text token, so it
can neither read nor write that string, and ``<|im_end|><|im_start|>system`` in a retrieved file
would open a turn of its own. ``prompt_tokens`` splits the rendered prompt into the template's
text and each message's content (found verbatim, in order), tokenizes the template's text with
special tokens parsed and the contents as plain text. Where no content holds such a string the
prompt's tokens are the whole prompt's, parsed as before (nothing changes for ordinary prompts);
a template that rewrites a content (it is not found verbatim) falls back to the same.

Hand-written: llama-cpp-python's chat handlers and transformers' ``apply_chat_template`` both
tokenize the rendered prompt in one piece; neither offers a per-message setting.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

# tokenize(text, special): token ids of ``text``, special-token strings parsed or not
Tokenize = Callable[[str, bool], list[int]]


def pieces(prompt: str, contents: Sequence[str]) -> list[tuple[str, bool]] | None:
    """``prompt`` as ``(text, special)`` pieces: the template's text (``True``) and each non-empty
    content (``False``), in order; None when a content is not found verbatim after the last."""
    out: list[tuple[str, bool]] = []
    at = 0
    for content in contents:
        if not content:
            continue
        start = prompt.find(content, at)
        if start < 0:
            return None
        if start > at:
            out.append((prompt[at:start], True))
        out.append((content, False))
        at = start + len(content)
    if at < len(prompt):
        out.append((prompt[at:], True))
    return out


def holds_special(text: str, tokenize: Tokenize) -> bool:
    """Whether ``text`` tokenizes differently with special-token strings parsed."""
    return tokenize(text, True) != tokenize(text, False)


def prompt_tokens(prompt: str, contents: Sequence[str], tokenize: Tokenize) -> list[int]:
    """The tokens of the rendered ``prompt`` with the messages' ``contents`` read as plain text
    (see the module doc)."""
    split = pieces(prompt, contents) if any(holds_special(c, tokenize) for c in contents if c) else None
    if split is None:
        return tokenize(prompt, True)
    return [token for text, special in split for token in tokenize(text, special)]
