"""An answer, read once: its commands, script calls and flags (bash), or its syntax tree, string
literals, imports and calls (Python).

``read_answer(code, answer_type)`` is cached by the answer's text, so the checkers and the fixes
that read one answer parse it once. The reading knows nothing of the repository: which file a
call runs, and what a ``cd`` does, is ``ragcode.check.bash.walk``'s.
"""

from __future__ import annotations

import ast
import functools
import io
import tokenize
from collections.abc import Callable
from dataclasses import dataclass

from ragcode.shell import ScriptCall, logical_lines, parse_command, split_marked, split_prefix, without_comments


@dataclass(frozen=True)
class Command:
    """One command of a bash answer: its words, the words after any ``VAR=value`` prefix
    (``rest``), the script call it makes (None for ``cd`` and programs that run no script), its
    logical line's first and last physical line (0-based) and whether it ends that line;
    ``expands``: one of the ``rest`` words holds a ``$`` the shell expands (its value unknown)."""

    words: tuple[str, ...]
    rest: tuple[str, ...]
    call: ScriptCall | None
    first_line: int
    end_line: int
    last: bool
    expands: bool = False

    @property
    def arguments(self) -> tuple[str, ...]:
        """Its words after the program's name."""
        return self.rest[1:]


@dataclass(frozen=True)
class Import:
    line: int
    module: str
    names: tuple[str, ...]  # from module import names
    alias: str  # import module [as alias]: the name it binds; "" for from-imports


@dataclass(frozen=True)
class Answer:
    code: str
    answer_type: str
    commands: tuple[Command, ...] = ()
    tree: ast.Module | None = None
    syntax_error: SyntaxError | None = None

    @property
    def calls(self) -> list[ScriptCall]:
        return [c.call for c in self.commands if c.call is not None]

    @property
    def flags(self) -> list[str]:
        return [w.split("=", 1)[0] for c in self.commands for w in c.arguments if w.startswith("-")]

    @property
    def strings(self) -> list[str]:
        """Its string literals (Python; none when it does not parse)."""
        if self.tree is None:
            return []
        return [n.value for n in ast.walk(self.tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]

    @property
    def imports(self) -> list[Import]:
        out: list[Import] = []
        for node in ast.walk(self.tree) if self.tree is not None else ():
            if isinstance(node, ast.Import):
                out += [Import(node.lineno, a.name, (), a.asname or a.name.split(".")[0]) for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                out.append(Import(node.lineno, node.module, tuple(a.name for a in node.names), ""))
        return out

    @property
    def value_places(self) -> list[str]:
        """Where a value stands: string literals (Python), commands' arguments (bash)."""
        if self.answer_type == "python":
            return self.strings
        return [w for c in self.commands for w in c.arguments]


def call_at(tree: ast.AST, line: int | None, name: str | None,
            fits: Callable[[ast.Call], bool] = lambda _: True) -> ast.Call | None:
    """The first call on ``line`` whose callee is written ``name`` (``Unet1D``,
    ``models_mae.mae_vit``), as the dry run names the calls it bound, and that ``fits``; None
    when there is none."""
    return next((n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.lineno == line
                 and ast.unparse(n.func) == name and fits(n)), None)


def char_column(line: str, col: int) -> int:
    """The character column of ``line`` that ast's ``col`` (a count of UTF-8 bytes) points at."""
    return len(line.encode()[:col].decode(errors="ignore"))


@functools.lru_cache(maxsize=256)
def code_text(code: str, answer_type: str) -> str:
    """The answer without its comments, what runs: a Python answer's ``#`` comments found by
    Python's own tokenizer, a bash answer's by the shell grammar
    (``ragcode.shell.without_comments``)."""
    if answer_type != "python":
        return without_comments(code)
    lines = code.split("\n")
    for row, col in _comment_starts(code):  # one comment a line, at its end: cut from its column
        lines[row - 1] = lines[row - 1][:col].rstrip()
    return "\n".join(lines)


def _comment_starts(code: str) -> list[tuple[int, int]]:
    """Where each ``#`` comment of Python ``code`` starts, as far as it tokenizes (an answer cut
    off mid-call still has its comments found up to there)."""
    starts = []
    try:
        for t in tokenize.generate_tokens(io.StringIO(code).readline):
            if t.type == tokenize.COMMENT:
                starts.append(t.start)
    except (tokenize.TokenError, SyntaxError, ValueError):
        pass
    return starts


@functools.lru_cache(maxsize=256)
def read_answer(code: str, answer_type: str) -> Answer:
    if answer_type == "python":
        try:
            return Answer(code, answer_type, tree=ast.parse(code))
        except (SyntaxError, ValueError, MemoryError, RecursionError) as exc:  # NUL bytes, nesting past the stack
            error = exc if isinstance(exc, SyntaxError) else SyntaxError(str(exc)[:80] or "nested too deeply")
            return Answer(code, answer_type, syntax_error=error)
    return Answer(code, answer_type, commands=_commands(code))


def _commands(code: str) -> tuple[Command, ...]:
    out = []
    lines = logical_lines(code)
    total = code.count("\n")
    for k, (first, line) in enumerate(lines):
        end = lines[k + 1][0] - 1 if k + 1 < len(lines) else total
        commands = split_marked(line)
        for j, marked in enumerate(commands):
            words = [word for word, _ in marked]
            rest = split_prefix(words)[1]
            call = parse_command(words) if not (rest and rest[0] == "cd") else None
            expands = any(e for _, e in marked[len(words) - len(rest):])
            out.append(Command(tuple(words), tuple(rest), call, first, end, j == len(commands) - 1, expands))
    return tuple(out)
