"""The ``parse`` check: findings from the dry run, said only where the repository's own parser
has spoken.

- the parser refused the command (or a Python call does not bind to the callee's signature, or
  a constant key is not in the repository's mapping): an error, ``parse-rejected``, carrying the
  parser's own message; a flag unknown to a parser whose fields an installed library declares
  (``HfArgumentParser`` over transformers' ``TrainingArguments``) is a warning, ``parse-version``:
  those fields differ between the library's versions, and the repository may pin another;
- the parser took the command and a library then refused it on this machine's account (no GPU:
  transformers' ``--bf16`` / ``--tf32`` checks): a warning, ``parse-machine``, the command being
  accepted (on the user's GPU the same check passes);
- a configurator (``exec(open('configurator.py').read())``) refused a command that gives a key it
  takes with the value after a space (``--batch_size 32``): ``spaced-config-value`` for each such
  key, instead of ``parse-rejected``, whose certain fix joins them (``--batch_size=32``);
- a Python call bound with a variable named after another parameter of the callee in a positional
  place (``Unet1D(dim, dim_mults, channels)``: ``dim_mults`` lands in ``init_dim``): an error,
  ``misbound-positional``, whose certain fix writes those variables as keywords;
- the parser took the command with ``parse_known_args`` and left words of it unread: a warning,
  ``ignored-args`` (those values reach nothing);
- the sandbox cut the run before its parser answered (its time limit, a memory or disk bound, a
  crash or a kill): a warning, ``parse-unfinished``, naming the limit; never a clean pass;
- no parser reached otherwise (the program failed or ended first): nothing (the static checks
  speak alone).

A launcher's own part of a command (``accelerate launch --mixed_precison fp16 x.py``) is read by
the launcher's real parser (``ragcode.dryrun.launchers``): its refusal is ``parse-rejected``
naming the launcher; a launcher not installed says nothing. The launchers' verdicts take no part
in ``overrule`` or the keep rule of fixes (``keeps_fix``), which are about the script's parse.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from ragcode.check import ERROR, WARNING, CheckContext, Finding, say
from ragcode.check.args import unknown_flag
from ragcode.dryrun.launchers import launcher_runs
from ragcode.dryrun.result import ACCEPTED, REJECTED, ParseResult
from ragcode.dryrun.run import dry_run
from ragcode.dryrun.values import lands_in

NUMBERS_AND_BOOLS = frozenset({"int", "float", "bool"})
BOOL_WORDS = frozenset({"true", "false", "0", "1"})
# what a static check guesses about a command line, which the parser that took it has answered
# (not ``duplicate-flag``: argparse and click take a flag given twice and keep the last value, so
# their accepting it answers nothing; flags that collect or count each use are never reported)
PARSER_QUESTIONS = frozenset({"unknown-flag", "bad-choice", "bad-type", "missing-required", "positional-count",
                              "missing-flag-value", "ignored-args", "library-file"})


def _target(result: ParseResult) -> str:
    return result.entry.target or "the answer"


def unfinished(result: ParseResult) -> list[Finding]:
    """``parse-unfinished`` for a run the sandbox cut, else nothing."""
    if not result.cut:
        return []
    variant = result.cut if result.cut in ("limit", "crash") else ""
    return [Finding("parse", "parse-unfinished", say("parse-unfinished", variant, target=_target(result),
                                                     cause=result.cause), WARNING, result.entry.line,
                    result.entry.target)]


def findings_for(result: ParseResult) -> list[Finding]:
    return unfinished(result) + _verdict(result)


def _verdict(result: ParseResult) -> list[Finding]:
    entry = result.entry
    if entry.kind == "calls":
        return [Finding("parse", "parse-rejected", f"{call.get('message', '')}".strip(), ERROR,
                        int(call.get("line", 0)), str(call.get("name", "")))
                for call in result.calls if call.get("status") == REJECTED] + _misbound_findings(result)
    if result.status == REJECTED:
        message = result.message.strip().splitlines()[-1] if result.message.strip() else "refused"
        unknown = result.unrecognized or "unrecognized arguments" in message
        if result.versioned and unknown:  # a flag unknown to fields of the installed library's version
            return [Finding("parse", "parse-version", say("parse-version", target=_target(result), message=message,
                                                          fields=", ".join(result.versioned)),
                            WARNING, entry.line, entry.target)]
        return _spaced_findings(result) or [Finding("parse", "parse-rejected", say(
            "parse-rejected", target=_target(result), message=message), ERROR, entry.line, entry.target)]
    if result.status == ACCEPTED and result.machine:
        return [Finding("parse", "parse-machine", say("parse-machine", target=_target(result), message=result.machine),
                        WARNING, entry.line, entry.target)]
    if result.status == ACCEPTED and result.unrecognized:
        words = " ".join(result.unrecognized)
        return [Finding("parse", "ignored-args", f"{_target(result)} parses with parse_known_args and never "
                        f"reads {words}", WARNING, entry.line, entry.target)]
    return []


def spaced_values(result: ParseResult) -> list[tuple[str, str]]:
    """The ``(key, value)`` pairs a refused configurator command gives with the value after a
    space (``--batch_size 32``), each key one the configurator takes; none for other parsers. The
    word after a bare bool key is its value only when it is a bool (``--compile config/x.py``
    is a switch left bare before a config file), and a ``.py`` word is never a value."""
    if result.parser != "configurator" or result.status != REJECTED:
        return []
    types = {str(p.get("name", "")): str(p.get("type", "")) for p in result.spec}
    argv = result.entry.argv

    def value(key: str, word: str) -> bool:
        if word.startswith("--") or word.endswith(".py"):
            return False
        return types[key] != "bool" or word.lower() in BOOL_WORDS

    return [(word, argv[i + 1]) for i, word in enumerate(argv[:-1]) if word in types and value(word, argv[i + 1])]


def _spaced_findings(result: ParseResult) -> list[Finding]:
    return [Finding("parse", "spaced-config-value", say("spaced-config-value", target=_target(result),
                                                        given=f"{key} {value}", fixed=f"{key}={value}"),
                    ERROR, result.entry.line, key, f"{key}=") for key, value in spaced_values(result)]


def _misbound_findings(result: ParseResult) -> list[Finding]:
    """``misbound-positional`` for each call the dry run bound with a variable in another
    parameter's place; its suggestion: the variables to write as keywords, comma-separated
    (empty when that cannot be done for certain)."""
    out = []
    for call in result.calls:
        pairs = call.get("misbound")
        if call.get("status") != ACCEPTED or not isinstance(pairs, dict) or not pairs:
            continue
        lands = ", ".join(f"{name} lands in {slot}" for name, slot in pairs.items())
        out.append(Finding("parse", "misbound-positional", say("misbound-positional", call=call.get("name", ""),
                                                               lands=lands), ERROR, int(call.get("line", 0)),
                           str(call.get("name", "")), ",".join(map(str, call.get("keywords") or []))))
    return out


class ParseChecker:
    """Checker ``parse`` (see the module doc); the sandbox is ``execution``'s, bubblewrap only."""

    name = "parse"
    takes_config = True

    def __init__(self, config: Any = None):
        from ragcode.config import Config
        from ragcode.dryrun.sandbox import DryRunner

        self.config = config or Config()
        self.runner = DryRunner.from_config(self.config)
        self._last: tuple[tuple[Any, ...], list[ParseResult]] | None = None

    def _results(self, code: str, answer_type: str, ctx: CheckContext) -> list[ParseResult]:
        """The dry run of ``code``; ``check_answer`` calls ``check`` then ``overrule`` on the same
        answer, so the last answer's results are kept and both read the same parse (the entry
        points are found once, and a parse the sandbox could not cache is not run twice)."""
        key = (code, answer_type, str(ctx.repo_dir), ctx.workdir, ctx.interpreter, id(self.runner))
        if self._last is None or self._last[0] != key:
            self._last = (key, dry_run(code, answer_type, ctx, runner=self.runner))
        return self._last[1]

    def check(self, code: str, answer_type: str, ctx: CheckContext) -> list[Finding]:
        """Findings of the entry points' parses, then of the launchers' own parsers (only a
        refusal speaks: ``ragcode.dryrun.launchers``)."""
        found: list[Finding] = []
        for result in self._results(code, answer_type, ctx) + launcher_runs(code, answer_type, ctx, self.runner):
            found.extend(findings_for(result))
        return found

    def overrule(self, code: str, answer_type: str, ctx: CheckContext, findings: list[Finding]) -> list[Finding]:
        """``findings`` less the static guesses this answer's parse has answered (``overrule``),
        from the parse ``check`` just made."""
        return overrule(findings, self._results(code, answer_type, ctx))

    def declared(self, code: str, answer_type: str, ctx: CheckContext) -> list[str]:
        """The flags the parsers that refused the answer declare (their spec's names; argparse's
        aliases each), for the fixes that give a refused flag its real name."""
        return [n for result in self._results(code, answer_type, ctx) if result.status == REJECTED
                for n in _spec_names(result) if n.startswith("-")]

    def call_slots(self, code: str, answer_type: str, ctx: CheckContext) -> list[dict[str, Any]]:
        """A Python answer's calls the dry run bound to their signatures (or refused only for a
        required argument left out): each with its line, its name as written and its unset
        parameters by kind (for ``ragcode.check.fill_calls``)."""
        return [{"line": c.get("line"), "name": c.get("name"), "unset": dict(c["unset"])}
                for r in self._results(code, answer_type, ctx) if r.entry.kind == "calls"
                for c in r.calls if isinstance(c.get("unset"), dict)]

    def accepts(self, code: str, answer_type: str, ctx: CheckContext) -> bool:
        """Whether the answer's every entry point was parsed to the end and accepted, every word
        of it read (the evidence checked selection prefers among equally clean answers)."""
        results = self._results(code, answer_type, ctx)
        return bool(results) and all(r.status == ACCEPTED and not r.cut and not r.unrecognized for r in results)

    def parsed_flags(self, code: str, answer_type: str, ctx: CheckContext) -> dict[str, tuple[str, list[dict]]]:
        """The parameters the dry run read of each script the answer runs whose parser no static
        reading finds (python-fire, a configurator): resolved path -> ``(parser, spec)``, for the
        fix that places left-out values (``ragcode.check.spec_flags``)."""
        from pathlib import Path

        from ragcode.check.spec_flags import SPEC_PARSERS

        return {str((Path(ctx.repo_dir) / r.entry.workdir / r.entry.target).resolve()): (r.parser, r.spec)
                for r in self._results(code, answer_type, ctx)
                if r.entry.kind == "script" and r.parser in SPEC_PARSERS and r.spec}

    def as_python(self, code: str, answer_type: str, ctx: CheckContext) -> str | None:
        """The Python call a one-line command running a python-fire script makes
        (``ragcode.dryrun.as_call``), or None."""
        from ragcode.dryrun.as_call import as_python

        return as_python(code, self._results(code, answer_type, ctx), ctx.workdir) if answer_type == "bash" else None

    def keeps_fix(self, before: str, after: str, answer_type: str, ctx: CheckContext) -> bool:
        from ragcode.dryrun.values import keeps_fix

        return keeps_fix(before, after, answer_type, ctx, runner=self.runner)


def _lands_nowhere(value: str, results: list[ParseResult]) -> bool:
    """``value`` is a name (a word: no number, path or file) and every call of the Python answer
    was bound to a signature none of whose unset parameters could take one (numbers and bools
    only, as ``_hook_libs._kind`` reads them): a Perceiver built for "CIFAR-10 images" from numbers alone
    leaves no place where the name was due. Like the bash coverage rule (``ragcode.check.meaning``)."""
    from ragcode.check.words import number_value

    if not value or number_value(value) is not None or re.search(r"[/\\~]|^\.|\.[A-Za-z][A-Za-z0-9]{0,4}$", value):
        return False
    calls = [c for r in results for c in r.calls]  # a key looked up takes a name: it has no "unset"
    return bool(calls) and all(c.get("status") == ACCEPTED and "unset" in c
                               and all(kind in NUMBERS_AND_BOOLS for kind in c["unset"].values()) for c in calls)


def overrule(findings: list[Finding], results: list[ParseResult]) -> list[Finding]:
    """``findings`` without the static guesses the parser has answered: when every entry point
    was accepted, the static checks' command-line questions (``PARSER_QUESTIONS``) are dropped,
    and a ``missing-value`` / ``respelled-value`` whose value a parsed parameter holds by meaning
    (``vit_h`` for ViT-H, ``128`` for 128-dim) too; values handed to a Python answer's calls count
    only as written, and a number only in a parameter the command sets. Nothing changes where a parser was not
    reached or its run was cut (a partial parse has not seen the whole command); where a parser
    refused the command, the ``unknown-flag`` guesses about flags it declares go (``_declared``)
    and the others are said from its declared flags (``_named_by_spec``)."""
    if not results or any(r.status != ACCEPTED or r.cut for r in results):
        return [_named_by_spec(f, results) for f in findings if not _declared(f, results)]
    exact = any(r.entry.kind == "calls" for r in results)  # a bound call does not check its values
    kept = []
    for f in findings:
        if f.check != "parse" and f.code in PARSER_QUESTIONS:
            continue
        value = f.target if f.code == "missing-value" else f.suggestion if f.code == "respelled-value" else ""
        if value and lands_in(value, results, exact):
            continue
        if f.code == "missing-value" and exact and _lands_nowhere(value, results):
            continue
        kept.append(f)
    return kept


def _declared(finding: Finding, results: list[ParseResult]) -> bool:
    """A static ``unknown-flag`` whose flag the parser that read that command line declares:
    the static reading missed where the flag comes from (a parent parser in another module:
    ``run_with_submitit.py`` taking ``main.py``'s flags), and the parser's own refusal names what
    it did not take."""
    flag = finding.message.split(" ", 1)[0]
    return any(flag in names for names in _parsers_at(finding, results))


def _named_by_spec(finding: Finding, results: list[ParseResult]) -> Finding:
    """A static ``unknown-flag`` said again from the flags the refusing parser declares (its
    hint and suggestion: ``--output-dir`` -> ``--output_dir``, a certain fix, where the static
    reading offered the wrapper's own flags only); any other finding as it is."""
    names = next((names for names in _parsers_at(finding, results) if names), None)
    if not names:
        return finding
    flag = finding.message.split(" ", 1)[0]
    return replace(unknown_flag(flag, sorted(n for n in names if n.startswith("-")), finding.target),
                   line=finding.line, severity=finding.severity)


def _parsers_at(finding: Finding, results: list[ParseResult]) -> list[set[str]]:
    """For a static ``unknown-flag``, the flags declared by each parser whose finished run read
    its command line; none for any other finding."""
    if finding.check == "parse" or finding.code != "unknown-flag":
        return []
    return [set(_spec_names(r)) for r in results
            if not r.cut and r.entry.line == finding.line and r.entry.kind != "calls"]


def _spec_names(result: ParseResult) -> list[str]:
    """The flags a parser declares, in its order (argparse's aliases each: ``--lr / -l``)."""
    return [n.strip() for p in result.spec for n in str(p.get("name", "")).split(" / ")]
