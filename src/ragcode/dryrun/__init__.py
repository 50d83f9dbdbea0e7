"""A parse-only dry run: what the repository's own argument parser makes of an answer.

``dry_run(code, answer_type, ctx)`` finds the Python entry points an answer runs
(``ragcode.dryrun.entry``: launchers, env prefixes, ``python -m``, argument-less ``bash X.sh``
wrappers followed to the command inside, commands the repository installs started as their
``module:function``; a Python answer's calls into the repository), starts
each inside the sandbox (``ragcode.dryrun.sandbox``) just far enough for its parser to run, and
returns one ``ParseResult`` per entry point:

- ``accepted``: the parser took the command; ``params`` holds every parsed value by parameter
  name (``explicit``: the ones the command changed from their defaults; for click, which records
  where each value came from, the ones the command line gave);
- ``rejected``: the parser refused it; ``message`` is the parser's own message;
- ``unreached``: no parser was reached (the program failed first, reads ``sys.argv`` by hand,
  or no sandbox is available); then the static checks speak alone.

A run the sandbox cut before a final verdict (its time limit, a memory or disk bound, a crash or
a kill) carries ``cut`` and ``cause`` (a partial ``parse_known_args`` parse keeps its status); the
``parse`` check says so as ``parse-unfinished``, and it is never cached. A finished verdict is
cached and reused only while the files, folders and installed modules it depended on are
unchanged (``ragcode.dryrun.sandbox``, ``ragcode.dryrun.deps``).

A command that goes through a launcher is also read by the launcher's own parser
(``ragcode.dryrun.launchers.launcher_runs``: ``accelerate launch``, ``torchrun``, ``python -m
torch.distributed.run``/``launch``, ``deepspeed``; only a verdict that parser gave); the ``parse``
check reports its refusal, and ``dry_run`` keeps to the entry points.

Parsers covered: argparse (``parse_known_args``, subparsers, ``REMAINDER``, HfArgumentParser),
click and typer, python-fire, absl flags, hydra overrides, and configurators that ``exec`` code
reading ``sys.argv`` (nanoGPT's). Python answers: calls into the repository are bound against
the callees' real signatures, constant keys checked against the repository's mappings.
"""

from __future__ import annotations

from ragcode.dryrun.result import ACCEPTED, REJECTED, UNREACHED, Entry, ParseResult
from ragcode.dryrun.run import dry_run
from ragcode.dryrun.values import keeps_fix

__all__ = ["ACCEPTED", "REJECTED", "UNREACHED", "Entry", "ParseResult", "dry_run", "keeps_fix"]
