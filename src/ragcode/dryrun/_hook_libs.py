# mypy: ignore-errors
# ruff: noqa: F821
"""Runs inside the sandbox last, after ``_hook.py``, ``_hook_stubs.py``, ``_hook_deps.py`` and
``_hook_launch.py`` and ``_hook_fire.py`` (same namespace: ``emit``, ``PATCHES``, ``SPEC``, ``dependencies``,
``start_launcher``...): the patches of the parser libraries that are imported later (click and
typer, python-fire, absl flags, hydra), the check of a Python answer's calls against the real
signatures, and the start of the entry point itself (or of a launcher's own parser), with the
watch of what its verdict depends on."""


def _click_spec(command):
    out = []
    for p in command.params:
        if getattr(p, "hidden", False) or p.name == "help":
            continue
        flag = getattr(p, "is_flag", False)
        kind = "switch" if flag else getattr(getattr(p, "type", None), "name", "str")
        default = getattr(p, "default", None)
        shown = not callable(default) and not flag and "UNSET" not in repr(default)
        out.append(param(" / ".join(p.opts) or p.name, kind, p.required, getattr(p, "help", ""),
                         getattr(getattr(p, "type", None), "choices", None), default if shown else None))
    commands = getattr(command, "commands", None)
    if commands:
        out.append({"name": "command", "type": "subcommand", "required": True,
                    "choices": ", ".join(list(commands)[:24])})
    return out[:64]


def _signature_spec(fn):
    import inspect

    out = []
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return out
    for p in params:
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        kind = getattr(p.annotation, "__name__", "") if p.annotation is not p.empty else ""
        out.append(param(f"--{p.name}", kind, p.default is p.empty,
                         default=None if p.default is p.empty else p.default))
    return out[:64]


def _patch_click(core):
    import importlib

    errors = importlib.import_module(core.__package__ + ".exceptions")  # click's, or typer's own copy
    original = core.Command.make_context

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            ctx = original(self, info_name, args, parent=parent, **extra)
        except errors.UsageError as exc:
            emit("rejected", message=f"Error: {exc.format_message()}", parser="click", spec=spec_of(_click_spec, self))
        except (errors.Exit, errors.Abort):
            emit("unreached", message="the parser exited (help or version)", parser="click", spec=spec_of(_click_spec, self))
        rest = list(getattr(ctx, "_protected_args", None) or getattr(ctx, "protected_args", None) or [])
        if hasattr(self, "commands") and (rest or ctx.args):
            return ctx  # a group: its subcommand is parsed next
        params, node = {}, ctx
        while node is not None:
            for key, value in node.params.items():
                params.setdefault(key, value)
            node = node.parent
        emit("accepted", params=params, explicit=_click_explicit(self, ctx, params), parser="click",
             spec=spec_of(_click_spec, self))

    core.Command.make_context = make_context


def _click_explicit(command, ctx, params):
    """The parameters the command line set. Click (>= 8.0) records where each value came from
    (``Context.get_parameter_source``); since 8.3 an option with no default holds a sentinel in
    ``Parameter.default``, so comparing values with defaults would call every option set. Older
    click: the values that differ from the declared defaults."""
    explicit, node = set(), ctx
    while node is not None:
        source_of = getattr(node, "get_parameter_source", None)
        if source_of is None:
            defaults = {p.name: p.default for p in command.params}
            return sorted(k for k, v in params.items() if defaults.get(k) != v)
        for key in node.params:
            source = source_of(key)
            if source is not None and getattr(source, "name", "") not in ("DEFAULT", "DEFAULT_MAP"):
                explicit.add(key)
        node = node.parent
    return sorted(explicit)


def _own_flags(values):
    """The flags a program declares itself (absl's own left out), each once."""
    seen = {}
    for owner, owned in values.flags_by_module_dict().items():
        if not owner.startswith("absl."):
            for flag in owned:
                seen.setdefault(flag.name, flag)
    return list(seen.values())


def _absl_spec(values):
    out = []
    for flag in _own_flags(values)[:64]:
        out.append(param(f"--{flag.name}", str(flag.flag_type()), False, flag.help, default=flag.default))
    return out


def _patch_absl(module):
    original = module.FlagValues.__call__

    def call(self, argv, known_only=False):
        from absl import flags

        try:
            result = original(self, argv, known_only)
        except flags.Error as exc:
            emit("rejected", message=f"FATAL Flags parsing error: {exc}", parser="absl", spec=spec_of(_absl_spec, self))
        params, explicit = {}, []
        for flag in _own_flags(self):
            params[flag.name] = flag.value
            if flag.present:
                explicit.append(flag.name)
        emit("accepted", params=params, explicit=sorted(explicit), parser="absl", spec=spec_of(_absl_spec, self))
        return result

    module.FlagValues.__call__ = call


def _flatten(tree, prefix, out):
    if isinstance(tree, dict):
        for key, value in tree.items():
            _flatten(value, f"{prefix}{key}.", out)
    else:
        out[prefix[:-1]] = tree
    return out


def _patch_hydra_run(module):
    from omegaconf import OmegaConf

    def run_job(*args, **kwargs):
        config = kwargs.get("config")
        tree = OmegaConf.to_container(config, resolve=False) if config is not None else {}
        tree.pop("hydra", None)
        overrides = list(OmegaConf.select(config, "hydra.overrides.task", default=[]) or [])
        explicit = sorted(o.split("=", 1)[0].lstrip("+~") for o in overrides)
        emit("accepted", params=_flatten(tree, "", {}), explicit=explicit, parser="hydra")

    module.run_job = run_job


def _patch_hydra_report(module):
    def run_and_report(func):
        try:
            return func()
        except Exception as exc:  # hydra's own refusal: an override it cannot parse or place
            emit("rejected", message=f"{type(exc).__name__}: {exc}", parser="hydra")

    module.run_and_report = run_and_report


PATCHES.update({
    "click.core": _patch_click, "typer._click.core": _patch_click, "fire.core": _patch_fire, "absl.flags._flagvalues": _patch_absl,
    "hydra._internal.hydra": _patch_hydra_run, "hydra._internal.utils": _patch_hydra_report,
})


def _check_calls(calls):
    """Each Python call into the repository bound against the callee's real signature; a constant
    key looked up in a mapping of the repository checked against its keys."""
    import importlib
    import inspect
    from collections.abc import Mapping

    out = []
    for call in calls:
        verdict = {"line": call["line"], "name": call["name"]}
        attrs = call["attrs"][:-1] if call.get("instance") else call["attrs"]
        try:
            obj = importlib.import_module(call["module"])
            for attr in attrs:
                obj = getattr(obj, attr)
        except BaseException as exc:  # noqa: BLE001 - the repository's own import failed
            verdict.update(status="unreached", message=f"{type(exc).__name__}: {exc}"[:300])
            out.append(verdict)
            continue
        defined = _defined_name(obj) if not call.get("instance") else ""
        if defined:
            verdict["defined"] = defined
            where = _defined_file(obj)
            if where:
                verdict["where"] = f"{where}:{obj.__qualname__}"
        if isinstance(obj, (_Stub, _StubModule)):
            verdict.update(status="unreached", message="stubbed")
        elif call.get("instance"):
            verdict.update(_bind_method(obj, call, inspect))
        elif "key" in call:
            ok = not isinstance(obj, Mapping) or call["key"] in obj
            verdict.update(status="accepted" if ok else "rejected", params={"key": call["key"]} if ok else {},
                           message="" if ok else f"KeyError: {call['key']!r} (keys: {', '.join(map(str, obj))})"[:300])
        else:
            verdict.update(_bind(obj, call, inspect))
        out.append(verdict)
    return out


def _defined_name(obj):
    """Where a class or function is defined, ``module.qualname`` (``vit_pytorch.vit.ViT`` for the
    ``ViT`` a package's ``__init__`` imports), or "" for anything else."""
    if isinstance(obj, (_Stub, _StubModule)):
        return ""
    module, qualname = getattr(obj, "__module__", None), getattr(obj, "__qualname__", None)
    return f"{module}.{qualname}" if isinstance(module, str) and isinstance(qualname, str) else ""


def _defined_file(obj):
    """The repository file that defines ``obj``, relative to its root ("" outside it): one file
    imported under two module names (``encoder`` from ``src/``, ``src.encoder`` from the root) is
    one definition."""
    import inspect

    try:
        source = inspect.getsourcefile(obj)
    except (TypeError, OSError):
        return ""
    return (_inside(ROOT, source) or "") if source else ""


def _bind_method(cls, call, inspect):
    """A method called on what class ``cls`` made: a plain function defined on the class (or a
    base) is bound with its ``self``, a static or class method as it is. Anything else (not a
    class, an attribute set on the instance, a property, ``__getattr__``) cannot be told."""
    name = call["attrs"][-1]
    if not isinstance(cls, type) or name.startswith("__"):
        return {"status": "unreached", "message": "not a class's method"}
    raw = next((vars(k)[name] for k in cls.__mro__ if name in vars(k)), None)
    if isinstance(raw, staticmethod):
        return _bind(raw.__func__, call, inspect)
    if isinstance(raw, classmethod):
        return _bind(getattr(cls, name), call, inspect)
    if inspect.isfunction(raw):
        return _bind(raw, call, inspect, skip=1)
    return {"status": "unreached", "message": "not a method of the class"}


def _bind(obj, call, inspect, skip=0):
    """``call``'s arguments bound to ``obj``'s signature (``skip``: leading parameters given
    already, a method's ``self``)."""
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return {"status": "unreached", "message": "no signature"}
    args = [object()] * (call["npos"] + skip)
    try:
        bound = signature.bind(*args, **{k: object() for k in call["kw"]})
    except TypeError as exc:
        refused = {"status": "rejected", "message": f"TypeError: {call['name']}() {exc}"}
        try:  # only a required argument missing: the parameters it left unset are still known
            partial = signature.bind_partial(*args, **{k: object() for k in call["kw"]})
        except TypeError:
            return refused
        return {**refused, "unset": {p.name: _kind(p) for p in signature.parameters.values()
                                     if p.name not in partial.arguments}}
    names = {k: call["values"][i - skip] for i, k in enumerate(bound.arguments)
             if skip <= i < len(call["values"]) + skip}
    unset = [p for p in signature.parameters.values() if p.name not in bound.arguments]
    names.update(call.get("kwvalues", {}))
    out = {"status": "accepted", "params": names, "unset": {p.name: _kind(p) for p in unset}}
    misbound = _misbound(signature, call, skip)
    if misbound:
        out.update(misbound)
    return out


def _misbound(signature, call, skip):
    """Positional arguments passed as a variable named after another parameter of the callee
    (``Unet1D(dim, dim_mults, channels)`` puts ``dim_mults`` in ``init_dim``): ``misbound``, each
    variable -> the parameter it lands in, and ``keywords``, the variables from the first
    misbound one on when every one of them names a parameter that takes a keyword and is not
    given one (written ``name=name`` they land where they are named), else none."""
    params = signature.parameters
    names = list(call.get("posnames") or [])
    total = call["npos"] + skip
    slots = []
    for p in params.values():
        if len(slots) >= total:
            break
        if p.kind == p.VAR_POSITIONAL:
            slots += [p.name] * (total - len(slots))
        elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            slots.append(p.name)
    keyword_kinds = _keyword_params(params)
    pairs = {n: slot for n, slot in zip(names, slots[skip:]) if n and n != slot and n in keyword_kinds}
    if not pairs:
        return {}
    first = names.index(next(iter(pairs)))
    rest = names[first:]
    fits = all(n in keyword_kinds for n in rest) and len(set(rest)) == len(rest) and not set(rest) & set(call["kw"])
    return {"misbound": pairs, "keywords": rest if fits else []}


def _keyword_params(params):
    """The parameters that may be given by keyword."""
    return {name for name, p in params.items() if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}


def _kind(param):
    """What a parameter takes, as far as its annotation or default says: ``int``, ``float``,
    ``bool``, ``str``, ``*`` for ``*args``/``**kwargs``, or ``""`` (anything)."""
    if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
        return "*"
    for kind in (bool, int, float, str):
        if param.annotation in (kind, kind.__name__) or param.default is not None and type(param.default) is kind:
            return kind.__name__
    return ""


def main():
    import runpy

    outside = [p for p in sys.path if p and _inside(ROOT, p) is None and os.path.abspath(p) != ROOT]
    if watch_reads(ROOT):
        FINAL.append(lambda: {"deps": dependencies(ROOT, outside, STUBBED, WANTED)})
    sys.meta_path.insert(0, _PatchFinder())
    if SPEC["kind"] == "launcher":  # the launcher's real parser, nothing stubbed
        start_launcher(SPEC["target"], SPEC["argv"], outside)
    sys.meta_path.append(_StubFinder())
    if SPEC["kind"] == "calls":
        sys.path[:0] = [os.getcwd(), ROOT]
        verdicts = _check_calls(SPEC["calls"])
        bad = [v for v in verdicts if v["status"] == "rejected"]
        params = {f"{v['name']}.{k}": val for v in verdicts for k, val in v.get("params", {}).items()}
        status = "rejected" if bad else ("accepted" if any(v["status"] == "accepted" for v in verdicts) else "unreached")
        emit(status, calls=verdicts, params=params, message=bad[0]["message"] if bad else "", parser="signature",
             stubbed=STUBBED)
    sys.argv = list(SPEC["argv"]) if SPEC["kind"] == "console" else [SPEC["target"], *SPEC["argv"]]
    try:
        if SPEC["kind"] == "module":
            sys.path.insert(0, os.getcwd())
            runpy.run_module(SPEC["target"], run_name="__main__", alter_sys=True)
        elif SPEC["kind"] == "console":  # an installed command: its module:function, as pip's wrapper calls it
            import importlib

            sys.path[:0] = [p for p in (os.path.join(ROOT, "src"), ROOT) if os.path.isdir(p)]
            module, _, function = SPEC["target"].partition(":")
            obj = importlib.import_module(module)
            for attr in function.split("."):
                obj = getattr(obj, attr)
            obj()
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(SPEC["target"])))
            runpy.run_path(SPEC["target"], run_name="__main__")
    except SystemExit as exc:
        finish_pending()
        emit("unreached", message=f"the program exited with {exc.code!r} before any parser ran: {_log_tail()}",
             stubbed=STUBBED)
    except BaseException as exc:  # noqa: BLE001 - the program failed before reaching a parser
        finish_pending()
        emit("unreached", message=f"{type(exc).__name__}: {exc}"[:300] + f" | {_log_tail()[-300:]}", stubbed=STUBBED)
    finish_pending()
    emit("unreached", message="the program ended without parsing its arguments", stubbed=STUBBED)


main()
