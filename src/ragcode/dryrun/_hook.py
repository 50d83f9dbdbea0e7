# mypy: ignore-errors
# ruff: noqa: F821
"""Runs inside the sandbox, never on the host: the parse-only start of one answer's entry point.

Sent as source text by ``ragcode.dryrun.sandbox`` (with the other ``HOOK_FILES`` after it,
``_hook_libs.py`` last, in one namespace) and executed by a ``python -c`` loader with ``SPEC`` (what to run) in
its namespace. It saves the real stdout, points the program's own stdout and stderr at a log
file, installs the parser patches and a finder that stubs the imports the environment lacks
(``_hook_stubs.py``: only for imports made by the repository's own code), then runs the script
(``runpy``) with the answer's argv. The first parse ends the run:
one ``RAGCODE-DRYRUN <base64 zlib json>`` line on the saved stdout, then ``os._exit``. A
``parse_known_args`` called directly (a first, partial parse; ``HfArgumentParser``) is reported
as pending and the run goes on a few lines for a second parse. Nothing here imports ragcode.
"""

import argparse
import base64
import builtins
import importlib.abc
import importlib.util
import json
import os
import re
import sys
import types
import zlib

MARK = "RAGCODE-DRYRUN "
RECORD_BYTES = 64_000  # an encoded record's size at most: a long parameter list is cut to fit
LINE_BUDGET = 40  # lines the calling frame may run after a partial parse, looking for the final one
_OUT = os.dup(1)
_LOG = os.path.join(os.environ.get("TMPDIR", "/tmp"), "ragcode-dryrun.log")
_fd = os.open(_LOG, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
os.dup2(_fd, 1)
os.dup2(_fd, 2)
os.close(_fd)
_PENDING = {}
FINAL = []  # functions whose fields a final record carries (``_hook_libs.main``: its dependencies)
ROOT = os.path.abspath(SPEC.get("root", "."))  # the repository copy (SPEC: set by the loader)


def _plain(value, depth=0):
    if value is None or isinstance(value, (bool, int, str)):
        return value if not isinstance(value, str) else value[:300]
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else repr(value)
    if isinstance(value, (list, tuple, set, frozenset)) and depth < 3:
        return [_plain(v, depth + 1) for v in list(value)[:64]]
    if isinstance(value, dict) and depth < 3:
        return {str(k)[:100]: _plain(v, depth + 1) for k, v in list(value.items())[:200]}
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    inner = getattr(value, "value", None)  # an Enum member
    if isinstance(inner, (str, int, float)) and type(value).__module__ != "builtins":
        return inner
    return repr(value)[:300]


def _log_tail():
    try:
        with open(_LOG, "rb") as fh:
            fh.seek(0, 2)
            fh.seek(max(0, fh.tell() - 600))
            return fh.read().decode("utf-8", "replace")
    except OSError:
        return ""


def emit(status, final=True, **fields):
    """Write one result line on the saved stdout; a final one ends the process."""
    record = {"status": status, "final": final}
    record.update({k: _plain(v) for k, v in fields.items()})
    record.setdefault("stubbed", list(STUBBED))
    for add in FINAL if final else ():
        try:
            record.update(add())
        except Exception as exc:  # noqa: BLE001 - a verdict without its dependencies is never cached
            record.update(cache=False, deps_error=f"{type(exc).__name__}: {exc}"[:300])
    data = _fitting(record)
    os.write(_OUT, (MARK + data + "\n").encode("ascii"))
    if final:
        os._exit(0)


def _encoded(record):
    return base64.b64encode(zlib.compress(json.dumps(record).encode("utf-8"), 9)).decode("ascii")


def _fitting(record):
    """``record`` encoded, a long ``spec`` cut to fit ``RECORD_BYTES`` (well within the end of stdout
    the sandbox keeps for a dry run): first its help texts, then its later parameters."""
    data = _encoded(record)
    spec = record.get("spec")
    if len(data) > RECORD_BYTES and isinstance(spec, list) and spec:
        record["spec"] = [{k: v for k, v in p.items() if k != "help"} if isinstance(p, dict) else p for p in spec]
        data = _encoded(record)
        while len(data) > RECORD_BYTES and record["spec"]:
            record["spec"] = record["spec"][:len(record["spec"]) // 2]
            data = _encoded(record)
    return data


def finish_pending():
    if _PENDING:
        emit(**_PENDING)


# -- imports watched for a patch ----------------------------------------------------------------
PATCHES = {}  # module name -> function(module) applied right after it is executed


class _PatchFinder(importlib.abc.MetaPathFinder):
    busy = set()

    def find_spec(self, name, path=None, target=None):
        if name not in PATCHES or name in self.busy:
            return None
        self.busy.add(name)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            self.busy.discard(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        loader = spec.loader
        original = loader.exec_module

        def exec_module(module):
            original(module)
            PATCHES[name](module)

        spec.loader = types.SimpleNamespace(create_module=loader.create_module, exec_module=exec_module)
        return spec


# -- argparse -----------------------------------------------------------------------------------
class Rejected(BaseException):
    pass


_DEPTH = [0]
# libraries whose own argparse pass comes before the parse that decides (hydra reads its flags,
# then the overrides)
DEFERRING = ("hydra.",)


def _defaults(parser, out):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _defaults(sub, out)
        elif action.dest != argparse.SUPPRESS:
            out.setdefault(action.dest, action.default)
    return out


def _explicit(parser, params):
    defaults = _defaults(parser, {})
    return sorted(k for k, v in params.items() if k not in defaults or defaults[k] != v)


def _short(value):
    return value if isinstance(value, str) else repr(value)


def param(name, kind, required, help_text="", choices=None, default=None):
    """One declared parameter as plain strings (what every parser library's spec is made of):
    name(s), type, required, help (one line, 120 characters), up to 24 choices, default."""
    out = {"name": name, "type": kind, "required": bool(required),
           "help": " ".join(str(help_text or "").split())[:120]}
    if choices:
        out["choices"] = ", ".join(map(str, list(choices)[:24]))
    if default is not None:
        out["default"] = _short(default)[:60]
    return out


def _argparse_param(action):
    """One parameter of an argparse parser: a switch takes no value and shows no default."""
    names = " / ".join(action.option_strings) or action.dest
    kind = "switch" if action.nargs == 0 else getattr(action.type, "__name__", "") or "str"
    shown = action.default is not argparse.SUPPRESS and action.nargs != 0
    return param(names, kind, action.required, action.help, action.choices,
                 action.default if shown else None)


def spec_of(read, *args):
    """``read(*args)``: a parser's declared parameters, or ``[]`` when reading them fails (the
    spec is for a prompt; it never changes a verdict)."""
    try:
        return read(*args)
    except Exception:  # noqa: BLE001 - a parser library's own shape: say nothing
        return []


def _argparse_spec(parser):
    """The parameters ``parser`` declares (help and version left out), for a prompt: what the
    repository's own parser takes, read from the parser itself."""
    out = []
    for action in parser._actions:
        if isinstance(action, (argparse._HelpAction, argparse._VersionAction)):
            continue
        if isinstance(action, argparse._SubParsersAction):
            out.append({"name": action.dest if action.dest != argparse.SUPPRESS else "command",
                        "type": "subcommand", "required": bool(action.required),
                        "choices": ", ".join(list(action.choices)[:24])})
            continue
        out.append(_argparse_param(action))
    return out[:64]


def _library_fields(parser):
    """For a parser built from dataclasses (``HfArgumentParser``): those an installed library
    declares, not the repository, as ``"transformers 5.2.0's TrainingArguments"``: their fields
    change between that library's versions. A repository's subclass (``class
    TrainingArguments(transformers.TrainingArguments)``) names the library class it extends."""
    from importlib import metadata

    out = []
    for kind in getattr(parser, "dataclass_types", None) or ():
        base = next((k for k in getattr(kind, "__mro__", ())
                     if "__dataclass_fields__" in vars(k) and not _in_repository(k)), None)
        if base is None:
            continue
        package = base.__module__.split(".")[0]
        try:
            version = metadata.version(package)
        except Exception:  # noqa: BLE001 - not a distribution of that name
            version = "(version unknown)"
        out.append(f"{package} {version}'s {base.__name__}")
    return out


def _in_repository(kind):
    module = sys.modules.get(getattr(kind, "__module__", ""))
    return _inside(ROOT, getattr(module, "__file__", None) or ROOT) is not None  # _hook_deps.py's


def _parse_wrapper(name, original):
    def patched(self, args=None, namespace=None):
        if _DEPTH[0] or sys._getframe(1).f_globals.get("__name__", "").startswith(DEFERRING):
            return original(self, args, namespace)
        _DEPTH[0] += 1
        try:
            result = original(self, args, namespace)
        except Rejected as exc:
            emit("rejected", message=str(exc), parser="argparse", spec=spec_of(_argparse_spec, self),
                 versioned=spec_of(_library_fields, self))
        except argparse.ArgumentError as exc:
            emit("rejected", message=f"{self.prog}: error: {exc}", parser="argparse", spec=spec_of(_argparse_spec, self),
                 versioned=spec_of(_library_fields, self))
        except SystemExit as exc:
            emit("unreached", message=f"the parser exited with code {exc.code} (help or version)",
                 parser="argparse", spec=spec_of(_argparse_spec, self))
        finally:
            _DEPTH[0] -= 1
        known = name != "parse_known_args"
        namespace_, extra = (result, []) if known else result
        params = dict(vars(namespace_))
        fields = dict(params=params, explicit=_explicit(self, params), parser="argparse",
                      unrecognized=list(extra), spec=spec_of(_argparse_spec, self))
        if extra:  # a later refusal of these words is the refusal of the parser's own fields
            fields["versioned"] = spec_of(_library_fields, self)
        if known:
            emit("accepted", **fields)
        _PENDING.clear()
        _PENDING.update(status="accepted", **fields)
        emit("accepted", final=False, **fields)
        _arm(sys._getframe(1))
        return result
    return patched


def _error(self, message):
    if _DEPTH[0]:
        raise Rejected(f"{self.prog}: error: {message}")
    return _ORIGINAL_ERROR(self, message)


def _check_value(self, action, value):
    """argparse's choice test, except against an empty list: one built from a module the sandbox
    stubs or lacks (``choices=sorted(torchvision.models.__dict__)``) is no list its author wrote,
    so any value passes; the real list is known only where the module is installed."""
    try:
        empty = action.choices is not None and len(action.choices) == 0
    except TypeError:
        empty = False
    return None if empty else _ORIGINAL_CHECK(self, action, value)


_ORIGINAL_ERROR = argparse.ArgumentParser.error
argparse.ArgumentParser.error = _error
_ORIGINAL_CHECK = argparse.ArgumentParser._check_value
argparse.ArgumentParser._check_value = _check_value
for _name in ("parse_args", "parse_known_args", "parse_intermixed_args"):
    setattr(argparse.ArgumentParser, _name, _parse_wrapper(_name, getattr(argparse.ArgumentParser, _name)))


# what a library says after the parse when the machine has no accelerator (the sandbox never has
# one): transformers' TrainingArguments on --bf16 / --tf32 / --fp16, torch without CUDA
_NO_ACCELERATOR = re.compile(
    r"doesn't support bf16/gpu|requires Ampere or a newer GPU|mixed precision requires a GPU|requires a GPU"
    r"|Torch not compiled with CUDA enabled|Found no NVIDIA driver|no CUDA-capable device|CUDA is not available",
    re.IGNORECASE)


def _arm(caller):
    """After a partial parse: stop when the library call that made it returns to the script, or
    after a few more lines of the script itself; a second parse decides first."""
    frame, below = caller, None
    while frame is not None and frame.f_globals.get("__name__") != "__main__":
        below, frame = frame, frame.f_back
    anchor = below if (below is not None and frame is not None) else caller
    in_script = anchor.f_globals.get("__name__") == "__main__"
    state = {"lines": LINE_BUDGET, "exc": None}

    def local(frame_, event, arg):
        if event == "exception":
            state["exc"] = arg[1]
        elif event == "line":
            state["exc"] = None
            state["lines"] -= 1
            if in_script and state["lines"] <= 0:
                finish_pending()
        elif event == "return":
            exc = state["exc"]
            if exc is not None and not in_script:
                if _NO_ACCELERATOR.search(str(exc)) and not _PENDING.get("unrecognized"):  # it looked at the machine
                    emit(**{**_PENDING, "machine": f"{type(exc).__name__}: {exc}"[:300]})
                emit("rejected", message=f"{type(exc).__name__}: {exc}", parser=_PENDING.get("parser"),
                     unrecognized=_PENDING.get("unrecognized", []), versioned=_PENDING.get("versioned", []),
                     spec=_PENDING.get("spec", []))
            finish_pending()
        return local

    anchor.f_trace = local
    anchor.f_trace_lines = in_script
    sys.settrace(lambda *a: None)


# -- sys.argv-reading configurators (exec(open('configurator.py').read())) ----------------------
_ORIGINAL_EXEC = builtins.exec


def _simple(value):
    return isinstance(value, (bool, int, float, str)) or value is None


def _configurator_spec(names):
    """The keys a configurator takes: the simple values bound before it runs, each written
    ``--key=value`` (its type and default are the value's)."""
    return [param(f"--{k}", "bool" if isinstance(v, bool) else type(v).__name__ if v is not None else "",
                  False, default=v) for k, v in names.items()]


def _exec(source, globals_=None, locals_=None, *rest, **kw):
    text = source.decode("utf-8", "replace") if isinstance(source, bytes) else source
    caller = sys._getframe(1)
    if not isinstance(text, str) or "sys.argv" not in text:
        if globals_ is None:  # what exec would have used had it been called directly
            globals_, locals_ = caller.f_globals, caller.f_locals if locals_ is None else locals_
        return _ORIGINAL_EXEC(source, globals_, locals_, *rest, **kw)
    g = globals_ if globals_ is not None else caller.f_globals
    loc = locals_ if locals_ is not None else (g if globals_ is not None else caller.f_locals)
    before = {k: v for k, v in loc.items() if not k.startswith("_") and _simple(v)}
    spec = spec_of(_configurator_spec, before)
    try:
        _ORIGINAL_EXEC(source, g, loc)
    except Exception as exc:  # the configurator's own refusal: unknown key, wrong type
        tb = exc.__traceback__
        while tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
        lines = text.splitlines()
        where = lines[tb.tb_lineno - 1].strip() if tb is not None and 0 < tb.tb_lineno <= len(lines) else ""
        emit("rejected", message=f"{type(exc).__name__}: {exc}".rstrip(": ") + (f" at `{where}`" if where else ""),
             parser="configurator", spec=spec)
    params = {k: loc.get(k) for k in before}
    explicit = sorted(k for k in before if loc.get(k) != before[k])
    emit("accepted", params=params, explicit=explicit, parser="configurator", spec=spec)


builtins.exec = _exec
