"""Queries built from a task's instruction alone.

``build_query(instruction)`` returns the instruction itself plus sub-queries: the named things
it mentions (quoted strings, CamelCase / ACRONYM / digit-bearing / snake_case words: model and
dataset names) and the command-line spellings of the hyper-parameters it talks about
("learning rate 0.01" -> ``lr --lr learning_rate 0.01``). Nothing but the instruction is read,
so no other task field can leak into retrieval.
"""

from __future__ import annotations

import re

from ragcode.retrieval.base import Query

# natural-language parameter phrase -> spellings scripts commonly use for it
ARGUMENT_SPELLINGS: dict[str, tuple[str, ...]] = {
    r"learning[\s-]*rate": ("lr", "--lr", "learning_rate", "--learning_rate"),
    r"batch[\s-]*size": ("batch_size", "--batch_size", "--batch-size", "bs"),
    r"epochs?": ("epochs", "--epochs", "n_epochs", "--n_epochs", "num_epochs", "max_epoch"),
    r"image[\s-]*size|img[\s-]*size|resolution": ("img_size", "--img_size", "image_size"),
    r"\bgpus?\b|\bcuda\b": ("gpu", "--gpu", "device", "cuda"),
    r"weight[\s-]*decay": ("weight_decay", "--weight_decay", "wd"),
    r"dropout": ("dropout", "--dropout"),
    r"hidden[\s-]*(?:size|dim|units|layer)": ("hidden", "hidden_size", "--hidden", "n_hidden"),
    r"(?:number of |num )?layers": ("num_layers", "n_layers", "--num_layers", "--n-layers"),
    r"latent[\s-]*(?:dim|dimension|size)": ("latent_dim", "--latent_dim"),
    r"sample[\s-]*interval": ("sample_interval", "--sample_interval"),
    r"channels?": ("channels", "--channels"),
    r"seed": ("seed", "--seed"),
    r"dataset|data set": ("dataset", "--dataset", "data"),
    r"checkpoint|pretrained weights": ("checkpoint", "ckpt", "init_checkpoint", "--checkpoint"),
    r"output[\s-]*(?:dir|directory|folder)": ("output_dir", "--output_dir"),
    r"sequence length|seq(?:uence)?[\s-]*len": ("max_seq_length", "seq_len", "--seq_len"),
    r"warm[\s-]*up": ("warmup", "warmup_steps", "--warmup"),
    r"momentum": ("momentum", "--momentum"),
    r"optimi[sz]er": ("optimizer", "--optimizer", "opt"),
    r"workers": ("num_workers", "--workers", "--num_workers"),
    r"steps|iterations": ("steps", "num_train_steps", "iterations", "--steps"),
    r"prompt": ("prompt", "--prompt"),
    r"threshold": ("threshold", "--threshold"),
}

_QUOTED = re.compile(
    r"(?<!\w)[\"'`\u2018\u201c]([^\"'`\u2019\u201d\n]{1,80}?)[\"'`\u2019\u201d](?!\w)")
_NAMED = re.compile(
    r"(?<![\w-])(?:"
    r"[A-Za-z0-9]*[A-Z][a-z0-9]*[A-Z][\w\-\.]*"   # CamelCase / ACRONYMs: StarGAN, GCN, ogbn
    r"|[A-Za-z][\w\-\.]*\d[\w\-\.]*"                # digit-bearing: blip2_t5, IF-I-L-v1.0
    r"|[A-Za-z]+_[\w\-\.]+"                         # snake_case: albef_classification
    r"|[A-Za-z]+-[A-Za-z][\w\-]*"                   # hyphenated: ogbn-products
    r"|\.{0,2}/[\w\-\./]+"                           # paths: ./data/image.jpg
    r")")


def named_phrases(instruction: str) -> list[str]:
    """Model, dataset, file and identifier names the instruction spells out."""
    found: list[str] = []
    for m in _QUOTED.finditer(instruction):
        found.append(m.group(1).strip())
    for m in _NAMED.finditer(instruction):
        word = m.group(0).rstrip(".-,")
        if len(word) > 1:
            found.append(word)
    # capitalised words that are not sentence starts (dataset names such as Citeseer, Amazon)
    for m in re.finditer(r"(?<=[a-z,;] )([A-Z][a-z]{2,})\b", instruction):
        found.append(m.group(1))
    return list(dict.fromkeys(f for f in found if f))


_CODE_LIKE = re.compile(r"[_\./\d-]")


# a relative path the user writes whole (data/0550-test_mean_score=0.969.ckpt): a README that
# shows it shows the command that takes it
_RELATIVE_PATH = re.compile(r"(?<![\w./=-])[A-Za-z0-9_][\w.=-]*(?:/[\w.=-]+)+")


def identifiers(instruction: str) -> list[str]:
    """The code-like names among ``named_phrases``, lower-cased, as they would be spelled in a
    repository: script and file names, model ids, paths (a relative path whole too, besides its
    parts). Plain words and names shorter than four characters are left out: they match too
    much to single a passage out. A leading ``./`` or ``/`` is dropped."""
    out: list[str] = []
    paths = [p for p in (m.group().rstrip(".") for m in _RELATIVE_PATH.finditer(instruction))
             if re.search(r"[_\d=]|\.\w", p)]  # not prose: and/or, up/down-sampling
    for phrase in named_phrases(instruction) + paths:
        for word in phrase.split():
            word = word.strip("'\"`.,;:()[]{}")
            acronym = sum(c.isupper() for c in word) >= 2  # APPNP, GraphSAGE: a model's name
            word = re.sub(r"^\.?/", "", word.lower())  # ./data/x and /data/x match data/x
            if len(word) >= 4 and (acronym or _CODE_LIKE.search(word)):
                out.append(word)
    return list(dict.fromkeys(out))


def argument_phrases(instruction: str) -> list[str]:
    """Command-line spellings of the hyper-parameters named, each with the value that follows."""
    out: list[str] = []
    lower = instruction.lower()
    for pattern, spellings in ARGUMENT_SPELLINGS.items():
        for m in re.finditer(pattern, lower):
            tail = lower[m.end(): m.end() + 40]
            value = re.search(r"-?\d[\d\.e\-]*", tail)
            parts = list(spellings) + ([value.group(0).rstrip(".")] if value else [])
            out.append(" ".join(parts))
            break
    return out


def build_query(instruction: str, multi: bool = True) -> Query:
    """The retrieval query for a task instruction (and nothing else)."""
    text = " ".join(instruction.split())
    if not multi:
        return Query(text=text)
    subs: list[str] = []
    names = named_phrases(text)
    if names:
        subs.append(" ".join(names))
    args = argument_phrases(text)
    if args:
        subs.append(" ".join(args))
    return Query(text=text, sub_queries=tuple(subs))


def strip_filler(text: str, phrases: list[str] | tuple[str, ...]) -> str:
    """``text`` without the request wording that says nothing about the repository ("could
    you", "I need assistance", "kindly", "write the code"): whole words, case-insensitive."""
    if not phrases:
        return text
    pattern = r"\b(?:" + "|".join(re.escape(p) for p in sorted(phrases, key=len, reverse=True)) + r")\b"
    out = " ".join(re.sub(pattern, " ", text, flags=re.IGNORECASE).split())
    return out or text
