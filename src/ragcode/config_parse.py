"""Reading settings for ``ragcode.config``: YAML files, ``--set`` overrides, dotted keys, and
one-line messages for values the config models reject (naming the dotted field and the
allowed range). Knows nothing of the models' fields, so ``config`` can import it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, get_args, get_origin

import yaml
from pydantic import BaseModel, ValidationError

from ragcode.errors import ConfigError

RANGE_ERRORS = ("greater_than", "greater_than_equal", "less_than", "less_than_equal")


def one_line(exc: BaseException) -> str:
    """An exception's text on one line (YAML errors span several)."""
    return " ".join(str(exc).split())


def deep_merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def set_dotted(data: dict[str, Any], dotted: str, value: Any) -> None:
    """Set ``a.b.c`` in a nested dict, creating levels as needed."""
    parts = dotted.split(".")
    cur = data
    for part in parts[:-1]:
        nxt = cur.get(part)
        if not isinstance(nxt, dict):
            nxt = {}
            cur[part] = nxt
        cur = nxt
    cur[parts[-1]] = value


def parse_override(item: str) -> tuple[str, Any]:
    """``"retrieval.k=10"`` -> ``("retrieval.k", 10)``; values are parsed as YAML scalars."""
    if "=" not in item:
        raise ConfigError(f"override {item!r} is not of the form section.field=value")
    key, _, raw = item.partition("=")
    key = key.strip()
    if not key or any(not part for part in key.split(".")):
        raise ConfigError(f"override {item!r} names no field; use section.field=value")
    try:
        return key, yaml.safe_load(raw) if raw.strip() else ""
    except yaml.YAMLError as exc:
        raise ConfigError(f"override {item!r}: the value is not valid YAML ({one_line(exc)}); "
                          "quote it to pass a string") from None


def read_yaml_mapping(path: Path, what: str = "config file") -> dict[str, Any]:
    """A YAML file that must hold a mapping; ``ConfigError`` naming ``what`` otherwise."""
    try:
        if path.exists() and not path.is_file():  # a FIFO would block, /dev/zero never end
            raise ConfigError(f"{what} {path} is not a regular file")
        data = yaml.safe_load(path.read_text()) or {}
    except FileNotFoundError:
        raise ConfigError(f"{what} not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{what} {path} cannot be read: {one_line(exc)}") from None
    except yaml.YAMLError as exc:
        raise ConfigError(f"{what} {path} is not valid YAML: {one_line(exc)}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{what} {path} must hold a mapping at the top level")
    return data


def validation_message(exc: ValidationError, model: type[BaseModel]) -> str:
    """``"execution.max_procs = -5: must be > 0; ..."``: every error of ``exc`` on one line,
    a range error with the field's whole allowed range."""
    parts = []
    for err in exc.errors():
        loc = ".".join(str(p) for p in err["loc"])
        shown = repr(err.get("input"))
        shown = shown if len(shown) <= 60 else shown[:57] + "..."
        allowed = allowed_range(model, err["loc"]) if err["type"] in RANGE_ERRORS else ""
        if allowed:
            parts.append(f"{loc} = {shown}: must be {allowed}")
        elif err["type"] in ("extra_forbidden", "missing"):
            parts.append(f"{loc}: {err['msg']}")
        else:
            parts.append(f"{loc} = {shown}: {err['msg']}")
    return "; ".join(parts)


def allowed_range(model: type[BaseModel], loc: tuple[Any, ...]) -> str:
    """The range the field at ``loc`` allows (``"> 0"``, ``"in [0, 1]"``); '' when unknown.
    Follows nested models and the values of ``dict[str, Annotated[...]]`` fields."""
    cur: Any = model
    metadata: list[Any] = []
    for part in loc:
        if isinstance(cur, type) and issubclass(cur, BaseModel) and part in cur.model_fields:
            info = cur.model_fields[part]
            cur, metadata = info.annotation, list(info.metadata)
        elif get_origin(cur) is dict:
            cur, metadata = _unwrap(get_args(cur)[1])
        else:
            return ""
    low = high = None
    for item in metadata:
        for attr, side in (("gt", "("), ("ge", "[")):
            if getattr(item, attr, None) is not None:
                low = (side, getattr(item, attr))
        for attr, side in (("lt", ")"), ("le", "]")):
            if getattr(item, attr, None) is not None:
                high = (side, getattr(item, attr))
    if low and high:
        return f"in {low[0]}{low[1]}, {high[1]}{high[0]}"
    if low:
        return f"{'>' if low[0] == '(' else '>='} {low[1]}"
    if high:
        return f"{'<' if high[0] == ')' else '<='} {high[1]}"
    return ""


def _unwrap(tp: Any) -> tuple[Any, list[Any]]:
    """(type, constraint objects) of ``Annotated[type, Field(...), ...]``; plain types as is."""
    args = get_args(tp)
    if not args or not hasattr(tp, "__metadata__"):
        return tp, []
    metadata: list[Any] = []
    for item in tp.__metadata__:
        metadata += list(getattr(item, "metadata", None) or [item])
    return args[0], metadata


# the fix steps ``generation.fill: true`` meant (the default list until ``drop`` joined it)
FILL_TRUE = ["certain", "expand", "retarget", "switch", "fill", "fill_vars"]
# settings that no longer exist -> what to write instead
RENAMED = {
    ("generation", "fill"): "generation.fill was replaced by generation.fixes, the fix steps by name: "
                            f"fill: false is fixes: [certain]; fill: true is [{', '.join(FILL_TRUE)}]",
}


def refuse_renamed(data: dict[str, Any], where: str) -> None:
    """One ``ConfigError`` line naming the new spelling of a setting that was renamed."""
    for (section, key), instead in RENAMED.items():
        if isinstance(data.get(section), dict) and key in data[section]:
            raise ConfigError(f"{where}: {instead}")


def as_before_fixes(gen: dict[str, Any]) -> dict[str, Any]:
    """``generation`` as hashed before ``fixes`` replaced ``fill``: the two lists ``fill`` could
    say are written as it said them, so settings (and the caches keyed by them) keep their hash;
    any other list (the default since ``drop``, ``refile`` and ``rename`` joined it, too) hashes as itself."""
    gen = dict(gen)
    fixes = gen.pop("fixes")
    if fixes in (FILL_TRUE, ["certain"]):
        gen["fill"] = fixes != ["certain"]
    else:
        gen["fixes"] = fixes
    return gen


def diff_settings(a: Any, b: Any, prefix: str = "", skip: tuple[str, ...] = ("index", "scale", "serve")) -> list[str]:
    """``"dotted.key: old -> new"`` for every setting that differs between two config dicts
    (top-level sections in ``skip`` are left out)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for k in sorted(set(a) | set(b)):
            if not prefix and k in skip:
                continue
            out += diff_settings(a.get(k), b.get(k), f"{prefix}{k}.", skip)
        return out
    return [] if a == b else [f"{prefix.rstrip('.')}: {a!r} -> {b!r}"]


def load_with_base(path: Path, seen: tuple[Path, ...] = ()) -> dict[str, Any]:
    """A YAML config file as a mapping, merged over the file its ``base:`` names (recursively)."""
    path = path.resolve()
    if path in seen:
        raise ConfigError(f"config {path} extends itself through 'base'")
    data = read_yaml_mapping(path)
    base = data.pop("base", None)
    if base is not None and not isinstance(base, str):
        raise ConfigError(f"config {path}: 'base' must be a file name, got {base!r}")
    if base:
        parent = load_with_base((path.parent / base), seen + (path,))
        data = deep_merge(parent, data)
    return data
