"""``digest``: the short stable hash ragcode keys resolved settings, stage caches and results by
(``Config.hash`` / ``section_hash``, ablation cells, task sets)."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def digest(data: Any) -> str:
    """16 hex digits of the sha256 of ``data`` written as JSON with sorted keys."""
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:16]
