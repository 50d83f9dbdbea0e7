# mypy: ignore-errors
# ruff: noqa: F821
"""A launcher's own parser, started inside the sandbox; and the one table of launchers that the
host (``ragcode.dryrun.launchers``, which imports this file) and the hook share.

Inside the sandbox (sent before ``_hook_libs.py``, in the hook's namespace): ``start_launcher``
imports the launcher's real module from the interpreter's own packages (nothing is stubbed: a
launcher that cannot be imported is unreached) and parses the launcher's part of the command
(its own options and the script) with the launcher's real parser; the patched argparse of
``_hook.py`` reports that parse and ends the run. The launcher's top-level module is one of the
verdict's dependencies even where it is missing, so a later install is a change. Plain Python,
no annotations, no ragcode.
"""

import sys

# launcher (as ragcode names it) -> (module, function, prog): the function either parses a list
# of words (``parse_args(args)``) or returns the parser (``launch_command_parser()``); ``prog``
# is the program name the launcher's own messages carry
LAUNCHERS = {
    "accelerate launch": ("accelerate.commands.launch", "launch_command_parser", "accelerate launch"),
    "torchrun": ("torch.distributed.run", "parse_args", "torchrun"),
    "python -m torch.distributed.run": ("torch.distributed.run", "parse_args", "run.py"),
    "python -m torch.distributed.launch": ("torch.distributed.launch", "parse_args", "launch.py"),
    "deepspeed": ("deepspeed.launcher.runner", "parse_args", "deepspeed"),
}
WANTED = []  # top-level modules a verdict depends on whether or not they were imported


def start_launcher(name, argv, paths):
    """Parse ``argv`` with launcher ``name``'s real parser, imported from ``paths`` (the
    interpreter's own ``sys.path``, the repository left out: a launcher is installed, never the
    repository's); the patched argparse ends the run."""
    import importlib

    module_name, function, prog = LAUNCHERS[name]
    WANTED.append(module_name.split(".")[0])
    sys.path[:] = list(paths)
    sys.argv = [prog, *argv]
    try:
        made = getattr(importlib.import_module(module_name), function)
        made = made(list(argv)) if function == "parse_args" else made()
        if hasattr(made, "parse_args"):
            made.parse_args(list(argv))
    except BaseException as exc:  # noqa: BLE001 - not installed, or failed before its parser ran
        emit("unreached", message=f"{name}: {type(exc).__name__}: {exc}"[:300], parser="launcher")
    emit("unreached", message=f"{name}: its parser did not parse", parser="launcher")
