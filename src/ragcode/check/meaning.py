"""Values by meaning: whether an answer says an instruction's value in another form, or whether
that cannot be told, before the coverage check calls it missing.

The coverage check first looks for the value as written (``cifar10``, ``0.0001``); a value it
does not find that way is read by what it means:

- a number with its unit or a size (``128-dim``, ``3-layer``, ``512-pixel``, ``64x64``) is said
  when the answer has its numbers (``--emsize 128``, ``--img 512``); when it has not, nothing
  can be told (the unit may be the script's default), so nothing is said;
- a range (scales ``0.14-1``) is said when the answer has both its numbers, often in two
  parameters (``--min_scale 0.14 --max_scale 1.``); one of them alone does not say it;
- a name with a trailing number (``ViT-Small/8``) is said when a word of the answer holds the
  name and ends in that number (``mae_vit_base_patch16`` for ViT-Base/16) or in none while the
  number is given apart (``--arch vit_small --patch_size 8``); ``ViT-B-16`` does not say ViT-B-32;
- a percentage (``75%``) is said by 75 or 0.75;
- a name in capitals (``CNN``, ``DCGAN``) the repository's code never names, in any case or
  spelling (a string literal, a class or function, a file), is no value its parser takes:
  nothing is said;
- a value the parser gives anyway: the default of a flag of the called script that the answer
  does not set (``LSTM`` for ``--model`` whose default is ``LSTM``), a constant a script without
  a parser sets at its top (``dataset = 'openwebtext'``), or written in a configuration file the
  answer hands to the script (``config/train_gpt2.py`` names ``gpt2-124M``);
- the help text of a flag the answer sets describes it: "R1 gamma 10" is said by ``--gamma=10``,
  whose help is "Override R1 gamma"; and what the called script imports it runs anyway
  ("TensorFlow" for a script that imports ``tensorflow``, "TinyStories" for one that imports
  ``tinystories``);
- a Python answer that imports ``finetune`` says ``finetune.py``;
- a name in capitals (``BPE``) is said when a repository module the answer imports or runs spells
  it out in its docstring, or in that of a name it imports from it ("Byte pair encoding
  utilities"): the words' initials, in order;
- a colour format (``RGB``, ``RGBA``, ``grayscale``) is said by its number of channels given to a
  parameter or flag that names channels (``img_channels=3``, ``--in_chans 3``);
- a word of several parts without digits (``up/down-sampling``) is said when two or more of its
  neighbouring parts, joined, are in the answer (``--resblock_updown``);
- a number that, with the word before it, is the repository's name or a part of it ("Llama 2" in
  llama2.c, "GPT 2" in gpt-2) names the project, not a value, when it stands nowhere else in the
  instruction: nothing is said;
- the repository's own name, or one part of it (``DiT`` in the DiT repository, ``StyleGAN2`` in
  stylegan2-ada-pytorch), and a library's API name (``torch.compile``) are no values: nothing is
  said;
- a name (a word, not a path or a file) that no parameter of the answer's scripts could take is
  not left out by the answer: when every call of a bash answer runs a script whose parser is read
  and none of its parameters takes a name (switches, numbers, paths such as ``--data_dir``,
  choices without it: pytorch-cifar's ``main.py --resume --lr 0.01`` for "train ResNet18", whose
  model is chosen by editing the file), nothing is said.

``said`` returns True (said), None (cannot tell: no finding) or False (missing).
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import re
from pathlib import Path

from ragcode.check import CheckContext
from ragcode.check.args import takes_value
from ragcode.check.facts import read_text
from ragcode.check.instruction import Value
from ragcode.check.spellings import code_names
from ragcode.chunking.scripts.flags import Flag

_ACRONYM = re.compile(r"[A-Z]{2,6}")
_TRAILING_NUMBER = re.compile(r"(.*[A-Za-z].*?)[/-](\d+)")
_NAME = re.compile(r"[A-Z][A-Za-z]*[A-Z][A-Za-z]*")  # capitals, no digits or separators: LSTM, DCGAN, OpenWebText
_CONFIG_SUFFIXES = (".py", ".yaml", ".yml", ".json", ".cfg", ".toml", ".ini")
_API_NAME = re.compile(r"([a-z_][a-z0-9_]*)\.[a-z_][a-z0-9_.]*")
# a colour format by its number of channels, and a channel count given in an answer
_CHANNELS = {"rgb": 3, "bgr": 3, "rgba": 4, "grayscale": 1, "greyscale": 1}
_CHANNEL_COUNT = re.compile(r"[A-Za-z_-]*chan[A-Za-z_-]*['\"]?\s*[=:\s]\s*(\d+)\b", re.IGNORECASE)


def squash(text: str) -> str:
    """Lower case without separators: CorrectAndSmooth ~ correct_and_smooth ~ correct-and-smooth."""
    return re.sub(r"[\s_./-]+", "", text.lower())


def said(value: Value, code: str, answer_type: str, ctx: CheckContext, numbers: set[float]) -> bool | None:
    """Whether ``code`` says ``value`` by its meaning (see the module doc)."""
    if value.kind == "measure" and value.spelling.endswith("%"):
        return True if any(n in numbers for n in value.numbers) else None
    if value.kind == "measure":
        return True if all(n in numbers for n in value.numbers) else None
    if value.kind == "range":
        return all(n in numbers for n in value.numbers)
    if value.number is not None:
        return None if _names_the_project(value.spelling, ctx) else False
    v = value.spelling
    if _repository_name(v, Path(ctx.repo_dir)) or _api_name(v):
        return None
    if answer_type == "python" and _module_file(v, code):
        return True
    if _parts_joined(v, code) or _channels_given(v, code) or (
            _ACRONYM.fullmatch(v) and _spelled_out(v, code, answer_type, ctx)):
        return True
    anyway = _given_anyway(code, ctx) if answer_type == "bash" else set()
    named = _TRAILING_NUMBER.fullmatch(v)
    if named and _name_and_number(squash(named.group(1)), named.group(2), code, numbers, anyway):
        return True
    if squash(v) in anyway:
        return True
    if _NAME.fullmatch(v) and not code_names(Path(ctx.repo_dir), squash(v)):
        return None  # a name the repository's code never writes is no value its parser takes
    if answer_type == "bash" and _lands_nowhere(value, code, ctx):
        return None
    return False


def _lands_nowhere(value: Value, code: str, ctx: CheckContext) -> bool:
    """``value`` is a name (a word, not a path or a file) and every call of the bash answer runs a
    script whose parser is read, none of whose parameters could take it (``takes_name``)."""
    from ragcode.check.bash import resolved_calls

    if value.kind != "word" or _PATH_LIKE.search(value.spelling):
        return False
    steps = resolved_calls(code, ctx)
    return bool(steps) and all(s.flags is not None and not any(takes_name(f, value.spelling) for f in s.flags)
                               for s in steps)


_PATH_LIKE = re.compile(r"[/\\~]|^\.|\.[A-Za-z][A-Za-z0-9]{0,4}$")  # ./data, src.txt, ~/x
_NUMERIC_TYPE = re.compile(r"(?:optional\[)?(?:int|float)\]?")
_PATH_PARTS = frozenset({"dir", "directory", "path", "file", "folder", "root", "filename", "dirname", "filepath"})
_NAME_PARTS = frozenset({"name", "model", "arch", "id", "type", "backbone", "network", "net"})


def takes_name(flag: Flag, v: str) -> bool:
    """Whether ``flag`` could be given the name ``v``: it takes a value that is neither a number,
    a bool nor a path (``--data_dir``, ``type=Path``; ``--model_name_or_path`` takes names), and
    its ``choices``, when they are literal, hold ``v`` up to case and separators."""
    kind = str(flag.type or "").replace(" ", "").lower()
    if not takes_value(flag) or _NUMERIC_TYPE.fullmatch(kind) or "bool" in kind:
        return False
    if isinstance(flag.choices, (list, tuple)):
        return squash(v) in {squash(str(c)) for c in flag.choices}
    parts = set(re.split(r"[-_]+", str(flag.dest or flag.name).strip("-").lower()))
    return not ((parts & _PATH_PARTS or kind.endswith("path")) and not parts & _NAME_PARTS)


def _name_and_number(name: str, number: str, code: str, numbers: set[float], anyway: set[str]) -> bool:
    """``ViT-Small/8`` said: a word of the answer holds the name (``vit_small``,
    ``mae_vit_base_patch16`` for ViT-Base/16) and the number is the one that word ends in or, when
    it ends in none, one the answer (or the parser's defaults) gives apart; a word with another
    number (``ViT-B-16`` for ViT-B-32) does not say it."""
    for word in re.findall(r"[A-Za-z0-9_.-]+", code):
        low = squash(word)
        at = low.find(name)
        if at < 0:
            continue
        digits = re.findall(r"\d+", low[at + len(name):])
        if digits:
            if str(int(number)) in {str(int(d)) for d in digits}:
                return True
        elif float(number) in numbers or number in anyway:
            return True
    return False


def _squashed_words(text: str) -> set[str]:
    """The squashed words of ``text``, each whole and its parts between hyphens (``gpt2-124M``
    gives gpt2124m, gpt2 and 124m)."""
    out = set()
    for w in re.findall(r"[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*", text):
        out.add(squash(w))
        out.update(squash(p) for p in w.split("-"))
    return out


def _repository_name(v: str, repo: Path) -> bool:
    """``v`` is the repository's name or one part of it (``StyleGAN2`` in stylegan2-ada-pytorch):
    the project, not a value of it."""
    name = repo.resolve().name
    parts = {squash(p) for p in re.split(r"[-_.]+", name) if len(p) >= 4}
    return squash(v) == squash(name) or squash(v) in parts


def _names_the_project(number: str, ctx: CheckContext) -> bool:
    """Every time the instruction writes ``number`` it follows a word that, joined to it, is the
    repository's name or a part of it ("Llama 2" in llama2.c)."""
    at = list(re.finditer(rf"(?<![\w.])([A-Za-z][A-Za-z0-9]*)?[ -]?{re.escape(number)}(?![\w.])", ctx.instruction))
    return bool(at) and all(m.group(1) and _repository_name(m.group(1) + number, Path(ctx.repo_dir)) for m in at)


def _parts_joined(v: str, code: str) -> bool:
    """``up/down-sampling`` is said by ``--resblock_updown``: a run of two or more neighbouring
    parts of a word of three or more parts without digits, joined, stands in the answer."""
    parts = [p.lower() for p in re.split(r"[/-]+", v) if p]
    if len(parts) < 3 or re.search(r"\d", v):
        return False
    joined = squash(code)
    return any("".join(parts[i:j]) in joined for i in range(len(parts)) for j in range(i + 2, len(parts) + 1))


def _channels_given(v: str, code: str) -> bool:
    """``RGB`` is said by ``img_channels=3`` or ``--in_chans 3``: the colour format's number of
    channels given to a parameter or flag whose name says channels."""
    want = _CHANNELS.get(v.lower())
    return want is not None and any(int(m.group(1)) == want for m in _CHANNEL_COUNT.finditer(code))


def _spelled_out(acronym: str, code: str, answer_type: str, ctx: CheckContext) -> bool:
    """A repository module the answer imports (Python) or runs (bash) spells ``acronym`` out, its
    letters the initials of neighbouring words, in its docstring or in the docstring of a name the
    answer imports from it (``BPE``: "Byte pair encoding utilities")."""
    words = r"[\s-]+".join(rf"{c}[a-z]{{2,}}" for c in acronym.lower())
    spelled = re.compile(rf"\b{words}\b", re.IGNORECASE)
    return any(spelled.search(text) for text in _used_docstrings(code, answer_type, ctx))


def _used_docstrings(code: str, answer_type: str, ctx: CheckContext) -> list[str]:
    """The docstrings of the repository modules the answer imports or runs, and of the names it
    imports from them."""
    from ragcode.check.answer import read_answer
    from ragcode.check.bash import resolved_calls
    from ragcode.check.facts import module_file

    if answer_type == "bash":
        return [d for s in resolved_calls(code, ctx) if s.path is not None and s.path.suffix == ".py"
                for d in docstrings(s.path, ())]
    roots = ctx.import_roots
    out: list[str] = []
    for imp in read_answer(code, "python").imports:
        path = module_file(imp.module, roots)
        if path is not None and path.is_file():
            out += docstrings(path, imp.names)
    return out


@functools.lru_cache(maxsize=256)
def docstrings(path: Path, names: tuple[str, ...]) -> tuple[str, ...]:
    """The docstring of the module at ``path`` and those of its top-level ``names``."""
    tree = _parsed(path)
    if tree is None:
        return ()
    nodes = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
             and n.name in names]
    return tuple(d for d in (ast.get_docstring(tree), *(ast.get_docstring(n) for n in nodes)) if d)


def _module_file(v: str, code: str) -> bool:
    """``finetune.py`` is said by Python that imports ``finetune`` (or a module under it)."""
    from ragcode.check.answer import read_answer

    if not v.endswith(".py"):
        return False
    stem = Path(v).with_suffix("").as_posix().replace("/", ".").lstrip(".")
    return any(i.module == stem or i.module.endswith("." + stem) for i in read_answer(code, "python").imports)


def _api_name(v: str) -> bool:
    """``torch.compile``: a dotted name whose first part is an installed library (a module with a
    file, not a folder that happens to be on the path) and whose last is no file extension."""
    m = _API_NAME.fullmatch(v)
    if m is None or v.rsplit(".", 1)[-1] in _FILE_ENDS:
        return False
    try:
        spec = importlib.util.find_spec(m.group(1))
    except (ImportError, ValueError):
        return False
    return spec is not None and spec.origin not in (None, "namespace")


_FILE_ENDS = frozenset("txt json jsonl yaml yml csv tsv py sh md cfg ini toml jpg jpeg png gif pt pth pkl ckpt npy "
                       "npz wav mp3 flac mp4 zip gz tar h5 bin onnx pdb fasta".split())


def _given_anyway(code: str, ctx: CheckContext) -> set[str]:
    """The squashed text of what the answer's script calls take without saying it: their flags'
    defaults (flags the call does not set), a parser-less script's top-level constants, and the
    configuration files the calls hand over, as squashed words."""
    from ragcode.check.bash import resolved_calls

    parts: list[str] = []
    for step in resolved_calls(code, ctx):
        if step.call is None:
            continue
        given = {a.split("=", 1)[0] for a in step.call.args if a.startswith("-")}
        if step.flags is not None:
            parts += [str(f.default) for f in step.flags
                      if f.default is not None and not any(s in given for s in f.option_strings())]
            parts += [str(f.help) for f in step.flags if f.help and any(s in given for s in f.option_strings())]
        elif step.path is not None and step.path.suffix == ".py":
            parts += top_constants(step.path)
        if step.path is not None and step.path.suffix == ".py":
            parts += top_imports(step.path)
        for arg in step.call.args:
            word = arg.split("=", 1)[-1]
            path = step.cwd / word
            if word.endswith(_CONFIG_SUFFIXES) and path.is_file() and path.stat().st_size < 64_000:
                parts.append(read_text(path) or "")
    return _squashed_words("\n".join(parts))


@functools.lru_cache(maxsize=256)
def top_imports(path: Path) -> tuple[str, ...]:
    """The packages a script imports at its top level, by their first name (``tensorflow`` for
    ``import tensorflow.compat.v2 as tf``, ``tinystories`` for ``from tinystories import Task``):
    what it runs on whatever it is given."""
    tree = _parsed(path)
    if tree is None:
        return ()
    names = [a.name for n in tree.body if isinstance(n, ast.Import) for a in n.names]
    names += [n.module for n in tree.body if isinstance(n, ast.ImportFrom) and n.module and not n.level]
    return tuple(dict.fromkeys(m.split(".")[0] for m in names))


@functools.lru_cache(maxsize=256)
def top_constants(path: Path) -> tuple[str, ...]:
    """The string and number constants a script assigns at its top level (``dataset = 'x'``)."""
    tree = _parsed(path)
    if tree is None:
        return ()
    return tuple(str(node.value.value) for node in tree.body
                 if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                 and isinstance(node.value.value, (str, int, float)))


@functools.lru_cache(maxsize=64)
def _parsed(path: Path) -> ast.Module | None:
    """The script at ``path`` parsed once for the readings above; None when it does not parse."""
    try:
        return ast.parse(read_text(path) or "")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
