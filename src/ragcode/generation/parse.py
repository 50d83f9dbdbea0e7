"""Model answers -> runnable code: the chosen fenced block (or the command line in plain prose),
and whether it is a bash command or a Python script.

- A command written on the fence line (```` ```bash run_scripts/x.sh a b````) belongs to the block.
- Fenced blocks labelled python/py, bash/sh/shell/console/zsh, or unlabelled are code; other
  labels (text, json, yaml, ...) are skipped unless nothing else is there. An unclosed fence
  (the answer hit max_tokens) runs to the end of the text.
- With several code blocks, the first that is not pure setup (only ``pip install``, ``git clone``,
  ``cd``, ``conda``...) wins; ML-Bench asks for one command or script.
- Without fences, the first command line (``python x.py ...``, ``bash run.sh``, ``$ ...``), its
  backslash continuations and the command lines right after it (``cd demo`` then ``python demo.py
  ...``) are taken; else the text if it is valid Python; else the text as is.
- Shell prompts (``$ ``, and ``(env) $ ``, ``user@host:~/x$ `` before a command) are removed; a backslash followed by trailing spaces is repaired so the
  continuation still works.
- A line is a shell command when ``ragcode.shell.starts_like_command`` says so (a launcher,
  wrapper or common shell command first, after any ``$ ``/``!`` prompt and ``VAR=value``).
- The type: a block whose content is a shell command is bash whatever its label
  (```` ```python\\npython train.py --lr 1```` is a bash answer); Python that parses is python; text
  that does not parse whose first line is a program name, words and an option (``whisper talk.wav
  --model base``, an installed console script) is bash.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from ragcode.shell import parse_command, starts_like_command, without_prompt

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)([^\n]*)\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)",
                    re.DOTALL | re.MULTILINE)
_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
BASH_LABELS = {"bash", "sh", "shell", "console", "zsh", "shell-session", "shellscript"}
PYTHON_LABELS = {"python", "py", "python3", "ipython"}
_SETUP = re.compile(r"^\s*(?:\$\s+)?(?:pip3?\s+install|conda\s+(?:install|create|activate)|"
                    r"git\s+clone|cd\s|mkdir\s|source\s|export\s|wget\s|curl\s|#|$)")


@dataclass(frozen=True)
class ParsedAnswer:
    code: str
    answer_type: str  # "bash" | "python"
    label: str = ""  # the fence label of the chosen block ("" = unlabelled or no fence)
    fenced: bool = False
    blocks: int = 0  # code blocks found


def parse_answer(text: str) -> ParsedAnswer:
    text = _THINK.sub("", text or "")
    blocks = [(m.group(2).lower(), _body(m)) for m in _FENCE.finditer(text)]
    code_blocks = [(lab, body) for lab, body in blocks
                   if lab in BASH_LABELS or lab in PYTHON_LABELS or lab == ""]
    candidates = code_blocks or blocks
    if candidates:
        label, body = next(((lab, b) for lab, b in candidates if not _only_setup(b)), candidates[0])
        code = _clean(body, shell=label in BASH_LABELS)
        return ParsedAnswer(code, classify(code, label), label, True, len(code_blocks))
    code = _from_prose(text)
    return ParsedAnswer(code, classify(code, ""), "", False, 0)


def _body(m: re.Match) -> str:
    """A block's text; a command written on the fence line itself (```` ```bash run.sh x````,
    the label doubling as the launcher) is its first line."""
    info, rest = f"{m.group(2)}{m.group(3)}".strip(), m.group(3).split()
    if rest and m.group(3)[:1] in " \t" and not re.search(r"[={}]", rest[0]) and parse_command(info.split()):
        return f"{info}\n{m.group(4)}"
    return m.group(4)


def classify(code: str, label: str = "") -> str:
    """``"bash"`` or ``"python"`` from the code itself, the fence label breaking ties."""
    first = next((ln for ln in code.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
    shellish = starts_like_command(first)
    parses = _parses(code)
    if label in BASH_LABELS:
        return "python" if parses and not shellish and _looks_python(code) else "bash"
    if label in PYTHON_LABELS:
        return "bash" if shellish and not parses else "python"
    if (shellish or _cli_shaped(first)) and not parses:
        return "bash"
    return "python"


def _command_line(line: str) -> bool:
    """A line that goes on an unfenced command: another command (``cd demo`` then ``python
    demo.py ...``), not prose and not Python."""
    return starts_like_command(line) and not _parses(line.strip().lstrip("$ "))


def _cli_shaped(line: str) -> bool:
    """``whisper talk.wav --model base``: a bare program name, words, and an option, with no
    parenthesis or quote-less ``=`` of Python (an installed console script)."""
    words = line.split()
    return (len(words) > 1 and bool(re.fullmatch(r"[A-Za-z][\w.-]*", words[0]))
            and any(re.match(r"--?[A-Za-z]", w) for w in words[1:]) and not re.search(r"[()\[\]{}]|\s=\s", line))


def _looks_python(code: str) -> bool:
    return bool(re.search(r"^\s*(?:import|from|def|class)\s|print\(", code, re.MULTILINE))


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def _only_setup(body: str) -> bool:
    lines = [ln for ln in body.splitlines() if ln.strip()]
    return bool(lines) and all(_SETUP.match(ln) for ln in lines)


def _clean(body: str, shell: bool) -> str:
    lines = [without_prompt(ln) for ln in body.strip("\n").splitlines()]
    if shell or (lines and starts_like_command(lines[0])):
        lines = [re.sub(r"^(\s*)\$\s+", r"\1", ln) for ln in lines]
    # rstrip also repairs "\\  " (a continuation broken by trailing spaces)
    return "\n".join(ln.rstrip() for ln in lines).strip()


def _from_prose(text: str) -> str:
    if _parses(text):  # an unfenced script
        return text.strip()
    lines = [without_prompt(ln) for ln in text.strip().splitlines()]
    for i, line in enumerate(lines):
        if starts_like_command(line) and not _parses(line.strip().lstrip("$ ")):
            cmd: list[str] = []
            j = i
            while j < len(lines) and (not cmd or cmd[-1].endswith("\\") or _command_line(lines[j])):
                cmd.append(re.sub(r"^\s*\$\s+", "", lines[j]).strip().strip("`"))
                j += 1
            return "\n".join(cmd)
    inline = re.search(r"`([^`\n]*\.(?:py|sh)\b[^`\n]*)`", text)
    if inline:
        return inline.group(1).strip()
    return text.strip()
