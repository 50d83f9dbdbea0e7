# mypy: ignore-errors
# ruff: noqa: F821
"""Runs inside the sandbox, before ``_hook_libs.py`` (same namespace: ``emit``, ``spec_of``, and
``_signature_spec`` from ``_hook_libs.py`` when it is called): the patch of python-fire's call,
which reports the parse of the function fire calls, that function (``callee``) and the arguments
the command gave (``given``), from which ``ragcode.dryrun.as_call`` writes the Python call."""


def _given(bound, named):
    """The arguments the command gave (``named``: the parameters fire parsed a word for; it fills
    the others with their defaults), as ``[name, kind, source]``: ``source`` the value written as
    Python that reads back equal (``None`` when it cannot be), for a call with the same values."""
    import ast
    import inspect

    kinds = bound.signature.parameters
    out = []
    for name, value in bound.arguments.items():
        variadic = kinds[name].kind in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
        if not (value if variadic else name in named):
            continue
        text = repr(value)
        try:
            back = ast.literal_eval(text) if len(text) <= 300 else None
            same = len(text) <= 300 and type(back) is type(value) and back == value
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            same = False
        out.append([name, kinds[name].kind.name, text if same else None])
    return out


def _patch_fire(core):
    import inspect

    original, parse_value = core._CallAndUpdateTrace, core._ParseValue
    named = set()

    def parsed_value(value, index, arg, metadata):  # called for a word given, never for a default
        named.add(arg)
        return parse_value(value, index, arg, metadata)

    def call(component, args, component_trace, treatment="class", target=None):
        fn = component.__call__ if treatment == "callable" else component
        if inspect.isclass(fn) or not callable(fn):
            return original(component, args, component_trace, treatment, target)
        parse = core._MakeParseFn(fn, core.decorators.GetMetadata(component))
        named.clear()
        try:
            (varargs, kwargs), _consumed, remaining, _capacity = parse(args)
        except core.FireError as exc:
            emit("rejected", message=f"ERROR: {exc}", parser="fire", spec=spec_of(_signature_spec, fn))
        if any(str(a).startswith("-") for a in remaining):
            emit("rejected", message=f"ERROR: Could not consume arg: {remaining[0]}", parser="fire",
                 spec=spec_of(_signature_spec, fn))
        try:
            bound = inspect.signature(fn).bind(*varargs, **kwargs)
        except TypeError as exc:
            emit("rejected", message=f"ERROR: {exc}", parser="fire", spec=spec_of(_signature_spec, fn))
        except ValueError:
            return original(component, args, component_trace, treatment, target)
        given = _given(bound, named)
        bound.apply_defaults()
        params = {}
        for name, value in bound.arguments.items():  # a **kwargs parameter's names as parameters of their own
            variadic = bound.signature.parameters[name].kind is inspect.Parameter.VAR_KEYWORD
            params.update(value if variadic and isinstance(value, dict) else {name: value})
        emit("accepted", params=params, explicit=sorted(named), parser="fire", spec=spec_of(_signature_spec, fn),
             callee=f"{getattr(fn, '__module__', '')}:{getattr(fn, '__qualname__', '')}", given=given)

    core._CallAndUpdateTrace, core._ParseValue = call, parsed_value
