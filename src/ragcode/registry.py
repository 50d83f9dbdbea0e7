"""Implementations chosen by name, imported on first use.

Each stage keeps a ``Registry`` mapping short names to ``"module:attribute"`` targets, so
``import ragcode`` never imports torch, faiss or an LLM client. A name that is not registered but
looks like ``"package.module:Class"`` is imported as given, so a user's own class needs no
registration. A typo gets the nearest registered names in the error.
"""

from __future__ import annotations

import difflib
import importlib
from typing import Any

from ragcode.errors import UnknownNameError


class Registry:
    def __init__(self, kind: str, entries: dict[str, str] | None = None):
        self.kind = kind
        self._targets: dict[str, str] = dict(entries or {})
        self._loaded: dict[str, Any] = {}

    def register(self, name: str, target: str | Any) -> None:
        if isinstance(target, str):
            self._targets[name] = target
            self._loaded.pop(name, None)
        else:
            self._targets[name] = f"{target.__module__}:{target.__qualname__}"
            self._loaded[name] = target

    def names(self) -> list[str]:
        return sorted(self._targets)

    def __contains__(self, name: str) -> bool:
        return name in self._targets

    def get(self, name: str) -> Any:
        if name in self._loaded:
            return self._loaded[name]
        target = self._targets.get(name)
        if target is None:
            if ":" in name:
                target = name
            else:
                close = difflib.get_close_matches(name, self._targets, n=3)
                hint = f" Did you mean {', '.join(repr(c) for c in close)}?" if close else ""
                raise UnknownNameError(
                    f"unknown {self.kind} {name!r}.{hint} Known: {', '.join(self.names())}; "
                    "or give a 'package.module:Class' path."
                )
        module_name, _, attr = target.partition(":")
        try:
            obj: Any = importlib.import_module(module_name)
            for part in attr.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError) as exc:
            raise UnknownNameError(f"cannot load {self.kind} {name!r} from {target!r}: {exc}") from exc
        self._loaded[name] = obj
        return obj
