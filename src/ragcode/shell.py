"""The shell grammar ragcode reads: commands in answers and in documentation.

One home for what chunking (README commands -> scripts), the static checks (which script an
answer runs, with which flags) and answer parsing (is this text a shell command?) agree on.
A leaf module: it imports nothing from ragcode.

- ``logical_lines(text)``: lines with ``\\`` continuations joined (a backslash followed only by
  trailing spaces still continues), each with the index of its first physical line.
- ``tokenize(line)``: POSIX-style words of one line: ``'...'`` and ``"..."`` quoting,
  backslash escapes, ``#`` comments (at the start of a word only), the separators ``&&``,
  ``||``, ``;``, ``|``, ``|&``, ``&`` kept as tokens, and redirections (``> log``, ``2>&1``,
  ``&> f``, ``< in``) dropped with their targets. ``<placeholder>`` (no space after ``<`` or
  before ``>``, as in docs and answers: ``--data <path>``) is a word, not two redirections. A
  quote that is not closed on its line is kept as a literal character instead of failing.
- ``without_comments(text)``: the text with each line's comment cut off.
- ``split_commands(text)``: a bash answer -> simple commands (word lists), split at separators
  and newlines.
- ``split_prefix(words)``: ``(env, rest)``: leading ``VAR=value`` assignments and wrappers
  (``nohup``, ``time``, ``sudo``, ``env``, ``exec``) taken off.
- ``parse_command(words)``: the ``ScriptCall`` a command makes, or ``None``.
- ``python_options(words)``: the interpreter's own options (``-u``, ``-W x``) leading the words
  after ``python``.
- ``script_calls(text)``: every ``ScriptCall`` in a bash answer, in order.
- ``starts_like_command(line)``: whether a line reads as a shell command (a launcher, a common
  shell command, ``./x``, ``x.sh``), for telling bash answers from Python.

Forms ``parse_command`` recognises (after env assignments and wrappers):
``python[3[.x]] [opts] X.py``, ``python -m pkg.mod``, ``python -m torch.distributed.run|launch
[opts] X.py``, ``torchrun|deepspeed|horovodrun|mpirun|mpiexec|srun [opts] X.py|X.sh``, ``accelerate
launch [opts] X.py``, ``bash|sh|zsh|source|. [opts] X.sh|X.py``, ``dir/X.sh`` and ``./X.py``
(run directly; a bare ``X.sh`` or ``dir/X.py`` is not a command: docs name files that way),
``%run X.py`` (notebooks).

Not modelled: heredoc bodies, ``( ... )`` subshells, ``$( ... )`` with spaces inside, quotes
spanning lines (each line is read on its own), ``bash -c "..."`` (no script call).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

PYTHON = re.compile(r"^(?:.*/)?python[\d.]*$")  # python, python3, python3.10, /usr/bin/python
SCRIPT_LAUNCHERS = frozenset({"torchrun", "deepspeed", "accelerate", "horovodrun", "mpirun",
                              "mpiexec", "srun"})  # mpiexec: the MPI standard's name for mpirun
SHELLS = frozenset({"bash", "sh", "zsh", "source", "."})
WRAPPERS = frozenset({"nohup", "time", "exec", "sudo", "env"})
# not launchers, but a line starting with one is a shell command, not Python
COMMON_COMMANDS = ("cd", "export", "pip", "pip3", "conda", "git", "wget", "curl", "mkdir", "cp",
                   "mv", "rm", "ls", "chmod")
SEPARATORS = frozenset({"&&", "||", ";", ";;", "|", "|&", "&"})
ENV_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
# a regex fragment for "a launcher word", for prose heuristics (``run python x.py``)
LAUNCHER_WORD = r"python[\d.]*|torchrun|deepspeed|accelerate\s+launch|horovodrun|mpirun|mpiexec|srun|" \
                r"bash|sh|zsh|source"

_PYTHON_VALUE_OPTS = ("-W", "-X")  # python options that take a value


@dataclass(frozen=True)
class ScriptCall:
    """A command that runs a script or module: ``CUDA_VISIBLE_DEVICES=0 torchrun --nproc 2 t.py
    --lr 1`` -> launcher ``torchrun``, launcher_args ``[--nproc, 2]``, kind ``script``, target
    ``t.py``, args ``[--lr, 1]``, env ``{CUDA_VISIBLE_DEVICES: 0}``.

    ``launcher`` is the word as written (``python3``, ``bash``, ``accelerate launch``,
    ``python -m torch.distributed.run``, ``%run``), or ``""`` for a script run directly
    (``./run.sh``). ``kind`` is ``script`` (a file: ``.py``, ``.sh``) or ``module``
    (``python -m pkg.mod``; target ``pkg.mod``)."""

    launcher: str
    kind: str
    target: str
    args: list[str] = field(default_factory=list)
    launcher_args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)


def logical_lines(text: str) -> list[tuple[int, str]]:
    """Lines with ``\\`` continuations joined, each with its 0-based first line index."""
    out: list[tuple[int, str]] = []
    buf, first = "", 0
    for i, line in enumerate(text.split("\n")):
        if not buf:
            first = i
        stripped = line.rstrip()
        if (len(stripped) - len(stripped.rstrip("\\"))) % 2:  # an odd count of trailing backslashes
            buf += stripped[:-1] + " "
            continue
        out.append((first, buf + line))
        buf = ""
    if buf:
        out.append((first, buf))
    return out


_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<placeholder><(?=[^\s<>])[^<>]*(?<=[^\s<>])>)
  | (?P<redir>&>>|&>|>>|>&|>\||<<<|<<-?|<>|<&|>|<)
  | (?P<sep>&&|\|\||;;|\|&|[;|&])
  | '(?P<single>[^']*)'
  | "(?P<double>(?:[^"\\]|\\.)*)"
  | \\(?P<escaped>.)
  | (?P<hash>\#)
  | (?P<chars>[^\s'"\\;&|<>\#]+)
  | (?P<lone>['"\\])
""", re.VERBOSE | re.DOTALL)
_DOUBLE_ESCAPE = re.compile(r'\\([$`"\\])')
_DOUBLE_DOLLAR = re.compile(r'(?<!\\)(?:\\\\)*\$')  # a $ inside double quotes that no backslash escapes


def _lex(line: str) -> list[tuple[bool, str, bool]]:
    """``(is_separator, text, expands)`` tokens of one logical line; ``expands``: the word holds
    a ``$`` the shell would expand (outside single quotes, not escaped)."""
    tokens: list[tuple[bool, str, bool]] = []
    word: list[str] = []
    in_word = False  # a word has started (even an empty quoted one: "")
    fd_like = True  # the word so far is unquoted digits: the fd of a redirection (2>log)
    skip_next = False  # the next word is a redirection's target
    expands = False

    def end_word() -> None:
        nonlocal in_word, fd_like, skip_next, expands
        if in_word:
            if skip_next:
                skip_next = False
            else:
                tokens.append((False, "".join(word), expands))
        word.clear()
        in_word, fd_like, expands = False, True, False

    for m in _TOKEN.finditer(line):
        kind = m.lastgroup
        if kind == "space":
            end_word()
        elif kind == "redir":
            if in_word and fd_like:
                word.clear()
                in_word = False
            end_word()
            skip_next = True
        elif kind == "sep":
            end_word()
            skip_next = False
            tokens.append((True, m.group(), False))
        elif kind == "hash" and not in_word:
            break  # a comment runs to the end of the line
        else:
            if kind == "single":
                piece = m.group("single")
            elif kind == "double":
                piece = _DOUBLE_ESCAPE.sub(r"\1", m.group("double"))
            elif kind == "escaped":
                piece = m.group("escaped")
            else:  # plain text, a <placeholder>, a '#' inside a word, a quote never closed
                piece = m.group()
            if kind != "chars" or not piece.isdigit():
                fd_like = False
            expands = expands or kind in ("chars", "lone", "placeholder") and "$" in piece or (
                kind == "double" and _DOUBLE_DOLLAR.search(m.group("double")) is not None)
            word.append(piece)
            in_word = True
    end_word()
    return tokens


def without_comments(text: str) -> str:
    """``text`` with each line's comment cut off: a ``#`` at the start of a word, outside quotes
    (``--url=a#b`` and ``"#1"`` stay)."""
    return "\n".join(_before_comment(line) for line in text.split("\n"))


def _before_comment(line: str) -> str:
    in_word = False
    for m in _TOKEN.finditer(line):
        if m.lastgroup == "hash" and not in_word:
            return line[:m.start()].rstrip()
        in_word = m.lastgroup not in ("space", "sep", "redir")
    return line


def tokenize(line: str) -> list[str]:
    """Words and separator tokens of one logical line (see the module doc)."""
    return [text for _, text, _ in _lex(line)]


def split_commands(text: str) -> list[list[str]]:
    """Shell text -> simple commands (word lists), split at ``&&``, ``||``, ``;``, ``|``, ``&``
    and newlines; continuations joined, comments and redirections dropped."""
    return [[word for word, _ in command] for command in split_marked(text)]


def split_marked(text: str) -> list[list[tuple[str, bool]]]:
    """``split_commands`` with each word marked True where the shell would expand a ``$`` in it:
    ``'${now:%H}'`` in single quotes is the text itself, ``$OUT`` and ``"$OUT"`` are not known."""
    commands: list[list[tuple[str, bool]]] = []
    for _, line in logical_lines(text):
        current: list[tuple[str, bool]] = []
        for is_sep, text_, expands in _lex(line):
            if is_sep:
                if current:
                    commands.append(current)
                current = []
            else:
                current.append((text_, expands))
        if current:
            commands.append(current)
    return commands


def split_prefix(words: list[str]) -> tuple[dict[str, str], list[str]]:
    """``(env assignments, the rest)``: ``A=1 nohup python x.py`` -> ``({A: 1}, [python,
    x.py])``; wrappers (``nohup``, ``time``, ...) are dropped."""
    env: dict[str, str] = {}
    i = 0
    while i < len(words):
        w = words[i]
        if ENV_ASSIGNMENT.match(w):
            key, value = w.split("=", 1)
            env[key] = value
        elif w not in WRAPPERS:
            break
        i += 1
    return env, words[i:]


def _is_file(word: str, suffixes: tuple[str, ...]) -> bool:
    return word.endswith(suffixes) and not word.startswith("-")


def _first_target(launcher: str, words: list[str], env: dict[str, str],
                  suffixes: tuple[str, ...] = (".py", ".sh")) -> ScriptCall | None:
    """A launcher's target: the first ``X.py`` (or ``.sh``) word, or ``-m module``; the words
    before it are the launcher's own options."""
    for k, w in enumerate(words):
        if _is_file(w, suffixes):
            return ScriptCall(launcher, "script", w, words[k + 1:], words[:k], env)
        if w == "-m" and k + 1 < len(words):
            return ScriptCall(launcher, "module", words[k + 1], words[k + 2:], words[:k], env)
    return None


def python_options(rest: list[str]) -> list[str]:
    """The interpreter's own options at the start of ``rest`` (the words after ``python``: ``-u``,
    ``-W ignore``, ...), up to the script, ``-m``, ``-c`` or ``-``."""
    j = 0
    while j < len(rest) and rest[j].startswith("-") and rest[j] not in ("-m", "-c", "-"):
        j += 2 if rest[j] in _PYTHON_VALUE_OPTS else 1
    return rest[:j]


def _python_call(head: str, rest: list[str], env: dict[str, str]) -> ScriptCall | None:
    opts = python_options(rest)
    j = len(opts)
    if j >= len(rest) or rest[j] in ("-c", "-"):
        return None
    if rest[j] == "-m":
        if j + 1 >= len(rest):
            return None
        module = rest[j + 1]
        if module.startswith("torch.distributed."):
            call = _first_target(f"{head} -m {module}", rest[j + 2:], env, (".py",))
            return call if call is None else ScriptCall(
                call.launcher, call.kind, call.target, call.args, opts + call.launcher_args, env)
        return ScriptCall(head, "module", module, rest[j + 2:], opts, env)
    if rest[j].endswith(".py"):
        return ScriptCall(head, "script", rest[j], rest[j + 1:], opts, env)
    return None


def parse_command(words: list[str]) -> ScriptCall | None:
    """The script or module one simple command runs (see the module doc), else ``None``."""
    env, words = split_prefix(list(words))
    if not words:
        return None
    head, rest = words[0], words[1:]
    name = head.rsplit("/", 1)[-1]
    if head == "%run":
        return ScriptCall(head, "script", rest[0], rest[1:], [], env) if rest else None
    if PYTHON.match(head):
        return _python_call(head, rest, env)
    if name == "accelerate":
        if not rest or rest[0] != "launch":
            return None
        return _first_target("accelerate launch", rest[1:], env, (".py",))
    if name in SCRIPT_LAUNCHERS:
        return _first_target(head, rest, env)
    if name in SHELLS:
        k = 0
        while k < len(rest) and rest[k].startswith("-") and rest[k] != "-c":
            k += 1
        if k < len(rest) and rest[k].endswith((".sh", ".py")):
            return ScriptCall(head, "script", rest[k], rest[k + 1:], rest[:k], env)
        return None
    if head.endswith(".sh") and "/" in head or head.endswith(".py") and head.startswith(
            ("./", "../")):
        return ScriptCall("", "script", head, rest, [], env)
    return None


def script_calls(text: str) -> list[ScriptCall]:
    """Every script or module a bash answer runs, in order."""
    return [c for c in (parse_command(cmd) for cmd in split_commands(text)) if c is not None]


_COMMAND_WORDS = "|".join(
    [r"(?:\S*/)?python[\d.]*", *sorted(SCRIPT_LAUNCHERS | (SHELLS - {"."}) | WRAPPERS),
     r"\.", *COMMON_COMMANDS, r"CUDA_VISIBLE_DEVICES=\S*", r"\./\S+", r"\S+\.sh"])
_COMMAND_START = re.compile(
    rf"^\s*(?:\$\s+|!)?(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)*(?:{_COMMAND_WORDS})(?!\s*=)(?:\s|$)")


_PROMPT = re.compile(r"^(\s*)(?:\([^()\s]+\)\s*)?[^\s$()]*\$\s+(?=\S)")


def without_prompt(line: str) -> str:
    """``line`` without a shell prompt copied before its command (``(env) $ ``, ``user@host:~/x$ ``,
    ``(env)[repo]$ ``); kept whole when what follows the prompt does not start like a command."""
    m = _PROMPT.match(line)
    if m is None:
        return line
    rest = m.group(1) + line[m.end():]
    return rest if starts_like_command(rest) else line


def starts_like_command(line: str) -> bool:
    """Whether a line reads as a shell command: an optional ``$ `` or ``!`` prompt, ``VAR=value``
    prefixes, then a launcher, a wrapper, a common shell command (``cd``, ``pip``, ``git``,
    ...), ``./x`` or ``x.sh``, followed by a space or the end (``ls = []`` is Python)."""
    return bool(_COMMAND_START.match(line))
