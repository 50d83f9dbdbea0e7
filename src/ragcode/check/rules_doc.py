"""The documentation's tables of checkers and rules, written from the catalogue
(``ragcode.check.rules``): docs/generation.md holds them between ``check-rules`` markers and
``tests/test_check_rules.py`` fails when they differ (print them with
``python -m ragcode.check.rules_doc``)."""

from __future__ import annotations

from ragcode.check.rules import RULES

START, END = "<!-- check-rules:start -->", "<!-- check-rules:end -->"

# what each checker reads, in the order of DEFAULT_CHECKS, then the optional ones
CHECKER_READS = {
    "bash": "the answer split with the one shell grammar (`ragcode.shell`), `cd` followed from the task's path; "
            "each `python X.py`, `python -m pkg.mod`, `bash X.sh`, `./X.sh`, `torchrun`/`accelerate launch`/"
            "`deepspeed` target resolved there; the target's parser read by the chunker's `Flag` extraction "
            "(argparse, click, typer, absl)",
    "python": "`ast` of the answer; the repository's modules (task path, root, `src/`) and the interpreter's "
              "packages",
    "coverage": "the instruction only",
    "parse": "(on by default; says nothing where bubblewrap cannot run) the answer's Python entry points "
             "(launchers and wrappers followed) run in the scorer's sandbox only as far as their argument parser, missing imports stubbed; Python calls into "
             "the repository bound to their real signatures; a launcher's own options read by the launcher's real "
             "parser (`ragcode.dryrun`)",
    "executed": "(off by default) the answer run for 5 s in the scorer's sandbox: the script's own parser "
                "errors from stderr, typed as the static checks type them (`unknown-flag`, `bad-choice`, "
                "`bad-type`, `missing-required`, `unresolved-import`, `unknown-script`), any other failure "
                "`run-error`",
}
_FIX = {"none": "", "certain": "certain", "guessing": "guessing"}


def _weight(code: str) -> str:
    r = RULES[code]
    moved = f" ({r.moved_weight:g} when the file exists elsewhere)" if r.moved_weight is not None else ""
    return f"{r.weight:g}{moved}"


def render_tables() -> str:
    """The checker table and the rule table, between their markers."""
    lines = [START, "| checker | reads |", "| --- | --- |"]
    lines += [f"| `{name}` | {reads} |" for name, reads in CHECKER_READS.items()]
    lines += ["", "| code | checker | severity | weight | fix | what it finds |", "| --- | --- | --- | ---: | --- | --- |"]
    for checker in CHECKER_READS:
        for r in (r for r in RULES.values() if r.checker == checker):
            fix = _FIX[r.fix] + (f" ({', '.join(f'`{s}`' for s in r.fixed_by)})" if r.fix == "guessing" else "")
            lines.append(f"| `{r.code}` | {r.checker} | {r.severity} | {_weight(r.code)} | {fix} | {r.doc} |")
    lines.append(END)
    return "\n".join(lines)


def tables_in(text: str) -> str:
    """The tables as a document holds them (markers included), or ``""``."""
    if START not in text or END not in text:
        return ""
    return text[text.index(START):text.index(END) + len(END)]


if __name__ == "__main__":
    print(render_tables())
